import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { grams, kgString } from '../../../lib/grams.js';
import { expectedRoastedGrams, grossUpGrams, planProduction, type DemandItem, type PlanInput, type PlanMachine } from './planner.js';

const machine = (id: string, sizes: Partial<PlanMachine> = {}): PlanMachine => ({
  id,
  code: id.toUpperCase(),
  minBatchKg: '5.000',
  maxBatchKg: '15.000',
  capacityKg: '15.000',
  ...sizes,
});

const item = (fields: Partial<DemandItem> = {}): DemandItem => ({
  profileId: 'prf_a',
  profileCode: 'A',
  profileMachineId: null,
  targetDropTempC: null,
  greenLotId: null,
  greenLotCode: null,
  roastLevel: 'medium',
  isDecaf: false,
  openKg: '10.000',
  expectedLossPct: '0',
  ...fields,
});

const plan = (input: Partial<PlanInput>) =>
  planProduction({ demand: [], machines: [machine('m1')], greenAvailableKg: new Map(), maxBatchesPerMachine: null, ...input });

const totalGreen = (batches: { greenKg: string }[]) => kgString(batches.reduce((sum, b) => sum + grams(b.greenKg), 0n));

describe('green needed for roasted demand', () => {
  test('is grossed up for roast loss and rounded up to the gram', () => {
    assert.equal(grossUpGrams(10_000n, '15'), 11_765n); // 10 / 0.85 = 11.7647…
    assert.equal(grossUpGrams(8_500n, '15.00'), 10_000n); // exact: no rounding
    assert.equal(grossUpGrams(10_000n, '0'), 10_000n);
    assert.equal(grossUpGrams(1n, '12.5'), 2n);
    assert.throws(() => grossUpGrams(1_000n, '100'));
  });

  test('the roasted weight expected back is rounded half up', () => {
    assert.equal(expectedRoastedGrams(10_000n, '15'), 8_500n);
    assert.equal(expectedRoastedGrams(11_765n, '15'), 10_000n); // 10000.25
    assert.equal(expectedRoastedGrams(3n, '50'), 2n); // 1.5 → 2
  });
});

describe('no demand', () => {
  test('gives a draft with no batches and a note saying so', () => {
    for (const demand of [[], [item({ openKg: '0' })]]) {
      const result = plan({ demand });
      assert.deepEqual(result.batches, []);
      assert.equal(result.notes.length, 1);
      assert.equal(result.notes[0].kind, 'no_demand');
      assert.match(result.notes[0].message, /No open demand/);
    }
  });
});

describe('sizing batches the machine can run', () => {
  test('splits evenly into as few batches as the maximum allows, grossed up for loss', () => {
    const result = plan({ demand: [item({ openKg: '30', expectedLossPct: '15' })] });
    // 30 / 0.85 = 35.294… → 35.295 kg of green, three batches of at most 15 kg.
    assert.deepEqual(result.batches.map((b) => b.greenKg), ['11.765', '11.765', '11.765']);
    assert.equal(totalGreen(result.batches), '35.295');
    assert.deepEqual(result.batches.map((b) => b.expectedRoastedKg), ['10.000', '10.000', '10.000']);
    assert.deepEqual(result.notes, []);
  });

  test('spreads an uneven gram remainder over the first batches', () => {
    const result = plan({ demand: [item({ openKg: '20.002' })] });
    assert.deepEqual(result.batches.map((b) => b.greenKg), ['10.001', '10.001']);
    const odd = plan({ demand: [item({ openKg: '30.002' })] });
    assert.deepEqual(odd.batches.map((b) => b.greenKg), ['10.001', '10.001', '10.000']);
  });

  test('uses the capacity when the machine has no maximum batch, and one batch when it has neither', () => {
    const byCapacity = plan({ demand: [item({ openKg: '25' })], machines: [machine('m1', { maxBatchKg: null, capacityKg: '12.5' })] });
    assert.deepEqual(byCapacity.batches.map((b) => b.greenKg), ['12.500', '12.500']);
    const unbounded = plan({ demand: [item({ openKg: '250' })], machines: [machine('m1', { maxBatchKg: null, capacityKg: null, minBatchKg: null })] });
    assert.deepEqual(unbounded.batches.map((b) => b.greenKg), ['250.000']);
  });

  test('prefers the machine needing the fewest batches, then the one with fewer batches so far', () => {
    const machines = [machine('small', { maxBatchKg: '5', minBatchKg: '1' }), machine('big', { maxBatchKg: '20', capacityKg: '20' })];
    const result = plan({ demand: [item({ openKg: '18' })], machines });
    assert.deepEqual(result.batches.map((b) => [b.machineId, b.greenKg]), [['big', '18.000']]);

    const twins = [machine('m1'), machine('m2')];
    const balanced = plan({ demand: [item({ profileId: 'p1', profileCode: 'P1' }), item({ profileId: 'p2', profileCode: 'P2' })], machines: twins });
    assert.deepEqual(balanced.batches.map((b) => b.machineId), ['m1', 'm2']);
  });

  test('numbers batches across the schedule and per machine', () => {
    const machines = [machine('m1'), machine('m2', { maxBatchKg: '30', capacityKg: '30' })];
    const result = plan({
      demand: [item({ profileId: 'p1', profileCode: 'P1', roastLevel: 'light', openKg: '25' }), item({ profileId: 'p2', profileCode: 'P2', roastLevel: 'dark', openKg: '10' })],
      machines,
    });
    assert.deepEqual(
      result.batches.map((b) => [b.position, b.machineId, b.machineSequence, b.profileId]),
      [
        [1, 'm2', 1, 'p1'],
        [2, 'm1', 1, 'p2'],
      ],
    );
  });

  test('a profile bound to a machine runs only there', () => {
    const machines = [machine('m1'), machine('m2', { maxBatchKg: '30', capacityKg: '30' })];
    const result = plan({ demand: [item({ openKg: '25', profileMachineId: 'm1' })], machines });
    assert.deepEqual(result.batches.map((b) => [b.machineId, b.greenKg]), [['m1', '12.500'], ['m1', '12.500']]);
  });
});

describe('roasting order', () => {
  test('light before dark, unknown level after dark, decaf last whatever its level', () => {
    const demand = [
      item({ profileId: 'decaf', profileCode: 'DECAF', roastLevel: 'light', isDecaf: true }),
      item({ profileId: 'dark', profileCode: 'DARK', roastLevel: 'dark' }),
      item({ profileId: 'unknown', profileCode: 'UNKNOWN', roastLevel: null }),
      item({ profileId: 'light', profileCode: 'LIGHT', roastLevel: 'light' }),
      item({ profileId: 'medium', profileCode: 'MEDIUM', roastLevel: 'medium' }),
    ];
    const result = plan({ demand });
    assert.deepEqual(result.batches.map((b) => b.profileId), ['light', 'medium', 'dark', 'unknown', 'decaf']);
    assert.deepEqual(result.batches.map((b) => b.machineSequence), [1, 2, 3, 4, 5]);
  });

  test('within a level, a lower target drop temperature goes first', () => {
    const demand = [
      item({ profileId: 'hot', profileCode: 'A-HOT', roastLevel: 'light', targetDropTempC: 212 }),
      item({ profileId: 'none', profileCode: 'A-NONE', roastLevel: 'light', targetDropTempC: null }),
      item({ profileId: 'cool', profileCode: 'Z-COOL', roastLevel: 'light', targetDropTempC: 203.5 }),
    ];
    assert.deepEqual(plan({ demand }).batches.map((b) => b.profileId), ['cool', 'hot', 'none']);
  });

  test('one profile’s batches run back to back, its green lots in turn', () => {
    const demand = [
      item({ profileId: 'pb', profileCode: 'B', greenLotId: 'gl_2', greenLotCode: 'L2', openKg: '20' }),
      item({ profileId: 'pa', profileCode: 'A', greenLotId: 'gl_3', greenLotCode: 'L3' }),
      item({ profileId: 'pb', profileCode: 'B', greenLotId: 'gl_1', greenLotCode: 'L1' }),
      item({ profileId: 'pa', profileCode: 'A', greenLotId: 'gl_1', greenLotCode: 'L1' }),
    ];
    const greenAvailableKg = new Map([['gl_1', '100'], ['gl_2', '100'], ['gl_3', '100']]);
    const result = plan({ demand, greenAvailableKg });
    assert.deepEqual(
      result.batches.map((b) => `${b.profileId}/${b.greenLotId}`),
      ['pa/gl_1', 'pa/gl_3', 'pb/gl_1', 'pb/gl_2', 'pb/gl_2'],
    );
  });
});

describe('maxBatchesPerMachine', () => {
  test('fills a machine with full batches up to its cap and moves the rest to the next machine', () => {
    const machines = [machine('m1'), machine('m2')];
    const result = plan({ demand: [item({ openKg: '50' })], machines, maxBatchesPerMachine: 2 });
    assert.deepEqual(
      result.batches.map((b) => [b.machineId, b.greenKg]),
      [['m1', '15.000'], ['m1', '15.000'], ['m2', '10.000'], ['m2', '10.000']],
    );
    assert.deepEqual(result.notes, []);
  });

  test('what no machine has room for is noted as over capacity', () => {
    const result = plan({ demand: [item({ profileId: 'p1', openKg: '40' }), item({ profileId: 'p2', profileCode: 'B', openKg: '8' })], maxBatchesPerMachine: 2 });
    assert.deepEqual(result.batches.map((b) => [b.profileId, b.greenKg]), [['p1', '15.000'], ['p1', '15.000']]);
    assert.deepEqual(
      result.notes.map((n) => [n.kind, n.profileId, n.unplannedKg]),
      [['over_capacity', 'p1', '10.000'], ['over_capacity', 'p2', '8.000']],
    );
    assert.match(result.notes[0].message, /no room for more batches \(at most 2 each\)/);
  });
});

describe('green availability', () => {
  test('a short lot is planned as far as it goes and noted with the shortfall', () => {
    const result = plan({ demand: [item({ greenLotId: 'gl_1', greenLotCode: 'L1', openKg: '17', expectedLossPct: '15' })], greenAvailableKg: new Map([['gl_1', '12']]) });
    assert.equal(totalGreen(result.batches), '12.000');
    assert.deepEqual(result.notes, [
      {
        kind: 'green_short',
        message: 'Profile A, green lot L1: 20.000 kg of green needed, 12.000 kg available; 8.000 kg short.',
        profileId: 'prf_a',
        greenLotId: 'gl_1',
        neededKg: '20.000',
        availableKg: '12.000',
        shortKg: '8.000',
      },
    ]);
  });

  test('items naming the same lot share what it has, in roasting order', () => {
    const demand = [
      item({ profileId: 'dark', profileCode: 'D', roastLevel: 'dark', greenLotId: 'gl_1', openKg: '10' }),
      item({ profileId: 'light', profileCode: 'L', roastLevel: 'light', greenLotId: 'gl_1', openKg: '10' }),
    ];
    const result = plan({ demand, greenAvailableKg: new Map([['gl_1', '14']]) });
    assert.deepEqual(result.batches.map((b) => [b.profileId, b.greenKg]), [['light', '10.000']]);
    assert.deepEqual(result.notes.map((n) => [n.kind, n.profileId, n.shortKg]), [['green_short', 'dark', '6.000'], ['no_machine_fits', 'dark', undefined]]);
    assert.equal(result.notes[1].unplannedKg, '4.000'); // below the 5 kg minimum
  });

  test('a lot with nothing available (or missing from availability) plans nothing and notes only the shortfall', () => {
    const result = plan({ demand: [item({ greenLotId: 'gl_1' }), item({ profileId: 'p2', profileCode: 'B', greenLotId: 'gl_gone' })], greenAvailableKg: new Map([['gl_1', '0']]) });
    assert.deepEqual(result.batches, []);
    assert.deepEqual(result.notes.map((n) => [n.kind, n.greenLotId, n.availableKg]), [['green_short', 'gl_1', '0.000'], ['green_short', 'gl_gone', '0.000']]);
  });
});

describe('no machine fits', () => {
  test('demand below every machine’s minimum batch', () => {
    const result = plan({ demand: [item({ openKg: '3' })] });
    assert.deepEqual(result.batches, []);
    assert.deepEqual(result.notes.map((n) => [n.kind, n.unplannedKg]), [['no_machine_fits', '3.000']]);
    assert.match(result.notes[0].message, /no active machine can roast 3\.000 kg/);
  });

  test('no machines at all, or the profile’s machine is not among them', () => {
    assert.equal(plan({ demand: [item()], machines: [] }).notes[0].kind, 'no_machine_fits');
    const bound = plan({ demand: [item({ profileMachineId: 'elsewhere' })] });
    assert.deepEqual(bound.batches, []);
    assert.equal(bound.notes[0].kind, 'no_machine_fits');
    assert.match(bound.notes[0].message, /the profile’s machine/);
  });

  test('a quantity no even split fits: two batches would fall below the minimum', () => {
    // 16 kg on a 10–15 kg drum: one batch is too big, two of 8 kg too small.
    const narrow = [machine('m1', { minBatchKg: '10' })];
    const result = plan({ demand: [item({ openKg: '16' })], machines: narrow });
    assert.deepEqual(result.batches, []);
    assert.equal(result.notes[0].kind, 'no_machine_fits');
    // A wider drum takes it.
    const wider = plan({ demand: [item({ openKg: '16' })], machines: [...narrow, machine('m2', { minBatchKg: '4' })] });
    assert.deepEqual(wider.batches.map((b) => [b.machineId, b.greenKg]), [['m2', '8.000'], ['m2', '8.000']]);
  });
});
