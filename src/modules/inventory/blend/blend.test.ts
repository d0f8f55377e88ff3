import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../../../testing/harness.js';
import { assertRefusedUnchanged, greenState, makeGreenLot } from '../green/testing.js';
import { assertProblem } from '../../../testing/problems.js';

const server = await startTestServer();
const org = await server.createOrg();
const lotA = await makeGreenLot(org, { lotCode: 'BL-ETH', weightKg: '100' });
const lotB = await makeGreenLot(org, { lotCode: 'BL-BRA', weightKg: '100' });
const lotC = await makeGreenLot(org, { lotCode: 'BL-COL', weightKg: '100' });

let codes = 0;
const recipe = (input: Record<string, unknown> = {}) => ({
  name: 'House espresso',
  code: `HOUSE-${++codes}`,
  blendType: 'pre_roast',
  components: [
    { greenLotId: lotA, ratioPct: '60' },
    { greenLotId: lotB, ratioPct: 40 },
  ],
  ...input,
});

async function create(input: Record<string, unknown> = {}) {
  const res = await org.call('inventory.blend.createBlend', recipe(input));
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

const refused = (input: unknown, status: number, code: string, path?: string) =>
  assertRefusedUnchanged(server.owner, org, () => org.call('inventory.blend.createBlend', input), status, code, path);

test('createBlend stores the recipe with its components and emits inventory.blend.created', async () => {
  const blend = await create({ roastLevel: 'medium', isDecaf: false });
  assert.match(blend.id, /^bln_/);
  assert.deepEqual(
    [blend.blendType, blend.roastLevel, blend.isDecaf, blend.targetWeightLossPct],
    ['pre_roast', 'medium', false, '15.00'],
  );
  assert.deepEqual(
    blend.components.map((c: any) => [c.greenLotId, c.lotCode, c.ratioPct]),
    [[lotA, 'BL-ETH', '60.00'], [lotB, 'BL-BRA', '40.00']],
  );
  assert.match(blend.components[0].id, /^blc_/);
  const [event] = await server.owner.query<{ data: any }>(`select data from events where org_id = $1 and type = 'inventory.blend.created'`, [org.id]);
  assert.equal(event.data.blend.id, blend.id);
  const got = await org.call('inventory.blend.getBlend', { id: blend.id }, { method: 'GET' });
  assert.deepEqual(got.body, blend);
  assertProblem(await org.call('inventory.blend.getBlend', { id: 'bln_nothere' }), 404, 'not_found', 'id');
});

test('a post-roast blend keeps no loss unless given one; decimals in ratios add up exactly', async () => {
  const post = await create({
    blendType: 'post_roast',
    isDecaf: true,
    components: [
      { greenLotId: lotA, ratioPct: '33.33' },
      { greenLotId: lotB, ratioPct: '33.33' },
      { greenLotId: lotC, ratioPct: '33.34' },
    ],
  });
  assert.deepEqual([post.blendType, post.targetWeightLossPct, post.isDecaf, post.components.length], ['post_roast', null, true, 3]);
  const given = await create({ targetWeightLossPct: '12.5' });
  assert.equal(given.targetWeightLossPct, '12.50');
});

test('createBlend refusals name the offending field and write nothing', async () => {
  const parts = (...ratios: unknown[]) => ratios.map((ratioPct, i) => ({ greenLotId: [lotA, lotB, lotC][i], ratioPct }));
  await refused(recipe({ components: parts('60', '39.99') }), 400, 'invalid_input', 'components');
  await refused(recipe({ components: parts('60', '40.01') }), 400, 'invalid_input', 'components');
  await refused(recipe({ components: parts('100', '0') }), 400, 'invalid_input', 'components[1].ratioPct');
  await refused(recipe({ components: parts('60', '39.995', '0.005') }), 400, 'invalid_input', 'components[1].ratioPct');
  await refused(recipe({ components: [] }), 400, 'invalid_input', 'components');
  await refused(recipe({ components: [{ greenLotId: lotA, ratioPct: '50' }, { greenLotId: lotA, ratioPct: '50' }] }), 400, 'invalid_input', 'components[1].greenLotId');
  await refused(recipe({ components: [{ greenLotId: lotA, ratioPct: '50' }, { greenLotId: 'gl_nothere', ratioPct: '50' }] }), 404, 'not_found', 'components[1].greenLotId');
  await refused(recipe({ components: [{ greenLotId: lotA, ratioPct: '100', extra: 1 }] }), 400, 'invalid_input', 'components[0].extra');
  await refused(recipe({ targetWeightLossPct: '50.01' }), 400, 'invalid_input', 'targetWeightLossPct');
  await refused(recipe({ targetWeightLossPct: '-1' }), 400, 'invalid_input', 'targetWeightLossPct');
  await refused(recipe({ blendType: 'mixed' }), 400, 'invalid_input', 'blendType');
  await refused(recipe({ roastLevel: 'french' }), 400, 'invalid_input', 'roastLevel');
  await refused(recipe({ isDecaf: 'no' }), 400, 'invalid_input', 'isDecaf');
  const { blendType: _omitted, ...withoutType } = recipe();
  await refused(withoutType, 400, 'invalid_input', 'blendType');
  const taken = await create();
  await refused(recipe({ code: taken.code }), 409, 'duplicate', 'code');
});

test('listBlends filters by blendType, roastLevel, isDecaf and text, and pages', async () => {
  const other = await server.createOrg();
  const lot = await makeGreenLot(other);
  const make = async (input: Record<string, unknown>) =>
    (await other.call('inventory.blend.createBlend', { components: [{ greenLotId: lot, ratioPct: 100 }], ...input })).body.id;
  const dark = await make({ name: 'Midnight', code: 'MID', blendType: 'pre_roast', roastLevel: 'dark' });
  const light = await make({ name: 'Sunrise', code: 'SUN', blendType: 'post_roast', roastLevel: 'light' });
  const decaf = await make({ name: 'Sleepy', code: 'ZZZ', blendType: 'pre_roast', isDecaf: true });
  const list = async (filter: Record<string, unknown>) => {
    const res = await other.call('inventory.blend.listBlends', { filter });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.items.map((b: any) => b.id);
  };
  assert.deepEqual(await list({}), [dark, light, decaf]);
  assert.deepEqual(await list({ blendType: 'post_roast' }), [light]);
  assert.deepEqual(await list({ roastLevel: 'dark' }), [dark]);
  assert.deepEqual(await list({ isDecaf: true }), [decaf]);
  assert.deepEqual(await list({ isDecaf: false }), [dark, light]);
  assert.deepEqual(await list({ q: 'sun' }), [light]);
  assert.deepEqual(await list({ q: 'zzz' }), [decaf]);
  assertProblem(await other.call('inventory.blend.listBlends', { filter: { status: 'active' } }), 400, 'invalid_input', 'filter.status');
  const first = await other.call('inventory.blend.listBlends', { page: { limit: 2 } }, { method: 'GET' });
  assert.deepEqual(first.body.items.map((b: any) => b.id), [dark, light]);
  assert.equal(first.body.items[0].components[0].greenLotId, lot);
  const rest = await other.call('inventory.blend.listBlends', { page: { limit: 2, cursor: first.body.nextCursor } });
  assert.deepEqual([rest.body.items.map((b: any) => b.id), rest.body.nextCursor], [[decaf], null]);
});

test('validateBlendAvailability grosses pre-roast blends up for roast loss and rounds up to the gram', async () => {
  const blend = await create(); // 60 / 40, 15 % loss
  const res = await org.call('inventory.blend.validateBlendAvailability', { blendId: blend.id, requestedKg: '100' });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  // 100 × 0.6 / 0.85 = 70.588235… → 70.589; 100 × 0.4 / 0.85 = 47.058823… → 47.059.
  assert.deepEqual(
    res.body.components.map((c: any) => [c.greenLotId, c.neededKg, c.availableKg, c.shortKg]),
    [[lotA, '70.589', '100.000', '0.000'], [lotB, '47.059', '100.000', '0.000']],
  );
  assert.deepEqual([res.body.available, res.body.totalNeededKg, res.body.totalShortKg, res.body.requestedKg], [true, '117.648', '0.000', '100.000']);
  assert.equal(res.body.grossedUpForRoastLoss, true);

  // An exact quotient is not rounded up further: 85 × 0.6 / 0.85 = 60.
  const exact = await org.call('inventory.blend.validateBlendAvailability', { blendId: blend.id, requestedKg: 85 });
  assert.deepEqual(exact.body.components.map((c: any) => c.neededKg), ['60.000', '40.000']);

  const big = await org.call('inventory.blend.validateBlendAvailability', { blendId: blend.id, requestedKg: '150' });
  // 150 × 0.6 / 0.85 = 105.882352… → 105.883, short 5.883; 150 × 0.4 / 0.85 = 70.588235… → 70.589.
  assert.deepEqual(big.body.components.map((c: any) => [c.neededKg, c.shortKg]), [['105.883', '5.883'], ['70.589', '0.000']]);
  assert.deepEqual([big.body.available, big.body.totalShortKg], [false, '5.883']);
});

test('validateBlendAvailability counts only available coffee: reserved weight and quarantined lots do not count', async () => {
  const lot1 = await makeGreenLot(org, { weightKg: '50' });
  const lot2 = await makeGreenLot(org, { weightKg: '50' });
  const blend = await create({ blendType: 'post_roast', components: [{ greenLotId: lot1, ratioPct: 50 }, { greenLotId: lot2, ratioPct: 50 }] });
  assert.equal((await org.call('inventory.green.reserveGreenLot', { id: lot1, weightKg: '45' })).status, 200);
  await server.owner.query(`update green_lots set quarantined = true where org_id = $1 and id = $2`, [org.id, lot2]);
  const before = await greenState(server.owner, org.id);
  const res = await org.call('inventory.blend.validateBlendAvailability', { blendId: blend.id, requestedKg: '20' });
  // Post-roast: 20 × 0.5 = 10 kg each, no gross-up.
  assert.deepEqual(
    res.body.components.map((c: any) => [c.neededKg, c.availableKg, c.shortKg, c.quarantined]),
    [['10.000', '5.000', '5.000', false], ['10.000', '0.000', '10.000', true]],
  );
  assert.deepEqual([res.body.available, res.body.totalShortKg, res.body.grossedUpForRoastLoss], [false, '15.000', false]);
  assert.deepEqual(await greenState(server.owner, org.id), before, 'checking availability reserves and records nothing');
});

test('validateBlendAvailability input rules: POST only, positive requestedKg, known blend', async () => {
  const blend = await create();
  const get = await org.call('inventory.blend.validateBlendAvailability', { blendId: blend.id, requestedKg: '1' }, { method: 'GET' });
  assert.equal(get.status, 405);
  assertProblem(await org.call('inventory.blend.validateBlendAvailability', { blendId: blend.id, requestedKg: '0' }), 400, 'invalid_input', 'requestedKg');
  assertProblem(await org.call('inventory.blend.validateBlendAvailability', { blendId: blend.id }), 400, 'invalid_input', 'requestedKg');
  assertProblem(await org.call('inventory.blend.validateBlendAvailability', { blendId: 'bln_nothere', requestedKg: '1' }), 404, 'not_found', 'blendId');
});

test('recipes are immutable for the service role (server mode)', async (t) => {
  if (server.kind !== 'postgres') return t.skip('table privileges are enforced by the PostgreSQL server');
  await create();
  for (const sql of [`update blend_components set ratio_pct = 50`, `delete from blend_components`, `update blends set name = 'x'`]) {
    await assert.rejects(server.app.databases.service.transaction((tx) => tx.query(sql), { orgId: org.id }), /permission denied/, sql);
  }
});
