import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestOrg, type TestServer } from '../../../testing/harness.js';
import { assertProblem } from '../../../testing/problems.js';
import { importLot } from '../../inventory/green/testing.js';
import { makeRoaster } from '../../production/roast/testing.js';
import { confirmedOrder, roastLot } from '../../orders/testing.js';
import { makeSample } from '../../sourcing/sample/testing.js';
import { assertRefusedUnchanged } from '../cupping/testing.js';

const server: TestServer = await startTestServer();
const org: TestOrg = await server.createOrg();
const [credential] = await server.owner.query<{ id: string }>(`select id from credentials where org_id = $1`, [org.id]);

const call = (operation: string, input: unknown) => org.call(operation.includes('.') ? operation : `quality.grading.${operation}`, input);
const refused = (operation: string, input: unknown, status: number, code: string, path?: string) =>
  assertRefusedUnchanged(server.owner, org, () => call(operation, input), status, code, path);

/** Specialty grade on every SCA rule. */
const specialty = { standard: 'sca', defectsPrimary: 0, defectsSecondary: 5, moisturePct: 11.2, waterActivity: 0.58 };

async function grade(input: Record<string, unknown>) {
  const res = await call('recordGrading', input);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

async function events(type: string): Promise<any[]> {
  const rows = await server.owner.query<{ data: any }>(`select data from events where org_id = $1 and type = $2 order by id`, [org.id, type]);
  return rows.map((r) => r.data);
}

test('sca: specialty grade passes; each rule broken fails with its reason (0 cat-1, ≤ 5 cat-2, moisture 10–12 %, aw < 0.70)', async () => {
  const lot = await importLot(org);
  const pass = await grade({ greenLotId: lot.id, ...specialty, screenSizeAvg: 17.5, densityGPerL: 720, screenDistribution: { '18': 40, '17': 35, '16': 25 }, defectCounts: { broken: 5 } });
  assert.deepEqual([pass.grading.result, pass.grading.grade, pass.grading.reasons, pass.grading.quarantinedLot], ['pass', 'specialty', [], false]);
  assert.deepEqual(pass.grading.checks.map((c: any) => [c.rule, c.passed]), [
    ['sca.category1_defects', true], ['sca.category2_defects', true], ['sca.moisture', true], ['sca.water_activity', true],
  ]);
  assert.deepEqual([pass.grading.moisturePct, pass.grading.waterActivity, pass.grading.screenDistribution], ['11.20', '0.580', { '18': 40, '17': 35, '16': 25 }]);
  assert.equal(pass.lot.quarantined, false);

  for (const [change, rule] of [
    [{ defectsPrimary: 1 }, 'sca.category1_defects'],
    [{ defectsSecondary: 6 }, 'sca.category2_defects'],
    [{ moisturePct: 12.1 }, 'sca.moisture'],
    [{ moisturePct: 9.9 }, 'sca.moisture'],
    [{ waterActivity: 0.7 }, 'sca.water_activity'],
  ] as const) {
    const res = await grade({ greenLotId: (await importLot(org)).id, ...specialty, ...change });
    assert.equal(res.grading.result, 'fail', JSON.stringify(change));
    assert.deepEqual(res.grading.checks.filter((c: any) => !c.passed).map((c: any) => c.rule), [rule]);
    assert.equal(res.grading.reasons.length, 1);
    assert.equal(res.lot.quarantined, true, `${rule} quarantines the lot`);
  }
});

test('a failing grading quarantines the lot with its reasons, who and when; the lot refuses reserve, split, merge and roast', async () => {
  const lot = await importLot(org, { weightKg: '200' });
  const target = await importLot(org);
  const failed = await grade({ greenLotId: lot.id, ...specialty, defectsPrimary: 2, moisturePct: 13.4 });
  const { grading } = failed;
  assert.deepEqual([grading.result, grading.grade, grading.quarantinedLot], ['fail', 'below specialty', true]);
  assert.equal(grading.reasons.length, 2);
  assert.equal(failed.lot.quarantined, true);
  assert.equal(failed.lot.quarantineReason, `Grading ${grading.id} (sca) failed: ${grading.reasons.join('; ')}`);
  assert.match(failed.lot.quarantineReason, /2 category-1 full defects/);
  assert.deepEqual(
    { ...failed.lot.quarantine, quarantinedAt: typeof failed.lot.quarantine.quarantinedAt },
    { reason: failed.lot.quarantineReason, quarantinedAt: 'string', quarantinedBy: credential.id, releasedAt: null, releasedBy: null, releaseReason: null },
  );
  const shown = await org.call('inventory.green.getGreenLot', { id: lot.id });
  assert.equal(shown.body.quarantine.reason, failed.lot.quarantineReason, 'getGreenLot shows the quarantine record');
  assert.deepEqual((await events('quality.grading.failed')).filter((e) => e.grading.id === grading.id).length, 1);
  assert.deepEqual((await events('inventory.green.lot_quarantined')).filter((e) => e.lot.id === lot.id).map((e) => e.lot.quarantined), [true]);

  const roaster = await makeRoaster(org);
  await refused('inventory.green.reserveGreenLot', { id: lot.id, weightKg: '1' }, 409, 'lot_quarantined');
  await refused('inventory.green.splitGreenLot', { id: lot.id, weightKg: '1', newLotCode: 'Q-SPLIT' }, 409, 'lot_quarantined');
  await refused('inventory.green.mergeGreenLots', { targetId: target.id, sourceIds: [lot.id] }, 409, 'lot_quarantined');
  await refused('production.roast.startRoastBatch', { batchNumber: 'Q-ROAST', machineId: roaster.id, greenLotId: lot.id, chargeWeightKg: '10' }, 409, 'lot_quarantined', 'greenLotId');

  // A later passing grading does not release it; another failing one keeps the first reason.
  const passing = await grade({ greenLotId: lot.id, ...specialty });
  assert.deepEqual([passing.grading.result, passing.grading.quarantinedLot, passing.lot.quarantined], ['pass', false, true]);
  const again = await grade({ greenLotId: lot.id, ...specialty, waterActivity: 0.75 });
  assert.deepEqual([again.grading.quarantinedLot, again.lot.quarantineReason], [false, failed.lot.quarantineReason]);
  await refused('inventory.green.reserveGreenLot', { id: lot.id, weightKg: '1' }, 409, 'lot_quarantined');
});

test('releaseQuarantine needs a reason, records it with who and when, and frees the lot; a lot not in quarantine is 409', async () => {
  const lot = await importLot(org);
  await refused('releaseQuarantine', { greenLotId: lot.id, reason: 'fine' }, 409, 'lot_not_quarantined', 'greenLotId');
  await grade({ greenLotId: lot.id, ...specialty, defectsSecondary: 9 });
  await refused('releaseQuarantine', { greenLotId: lot.id }, 400, 'invalid_input', 'reason');
  await refused('releaseQuarantine', { greenLotId: lot.id, reason: '   ' }, 400, 'invalid_input', 'reason');
  await refused('releaseQuarantine', { greenLotId: 'gl_0000000000nothing', reason: 'x' }, 404, 'not_found', 'greenLotId');

  const res = await call('releaseQuarantine', { greenLotId: lot.id, reason: 'Regraded by the importer: 4 category-2 defects' });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.quarantined, false);
  assert.equal(res.body.quarantineReason, null);
  assert.deepEqual(
    [res.body.quarantine.releaseReason, res.body.quarantine.releasedBy, typeof res.body.quarantine.releasedAt],
    ['Regraded by the importer: 4 category-2 defects', credential.id, 'string'],
  );
  assert.match(res.body.quarantine.reason, /category-2/, 'why it was quarantined stays on record');
  assert.deepEqual((await events('inventory.green.lot_released')).filter((e) => e.lot.id === lot.id).length, 1);
  assert.equal((await org.call('inventory.green.reserveGreenLot', { id: lot.id, weightKg: '1' })).status, 200, 'the released lot can be reserved');
  await refused('releaseQuarantine', { greenLotId: lot.id, reason: 'again' }, 409, 'lot_not_quarantined');
});

test('roasted coffee of a lot quarantined after roasting can still be allocated: quarantine binds the green lot only', async () => {
  const roasted = await roastLot(org, { kg: '5' });
  await grade({ greenLotId: roasted.greenLotId, ...specialty, defectsPrimary: 4 });
  const order = await confirmedOrder(org, [{ greenLotId: roasted.greenLotId, quantityKg: '2' }]);
  const res = await org.call('orders.allocateOrder', { id: order.id });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.complete, true, 'the roasted coffee is allocated');
});

test('recordGrading validates: a lot or sample, the measures the standard needs, sane values; nothing is written', async () => {
  const lot = await importLot(org);
  await refused('recordGrading', { ...specialty }, 400, 'invalid_input', 'greenLotId');
  for (const field of ['moisturePct', 'waterActivity', 'defectsPrimary', 'defectsSecondary']) {
    const { [field as keyof typeof specialty]: _omitted, ...rest } = specialty;
    await refused('recordGrading', { greenLotId: lot.id, ...rest }, 400, 'invalid_input', field);
  }
  await refused('recordGrading', { greenLotId: lot.id, ...specialty, moisturePct: 101 }, 400, 'invalid_input', 'moisturePct');
  await refused('recordGrading', { greenLotId: lot.id, ...specialty, defectsPrimary: 1.5 }, 400, 'invalid_input', 'defectsPrimary');
  await refused('recordGrading', { greenLotId: lot.id, ...specialty, standard: 'iso' }, 400, 'invalid_input', 'standard');
  await refused('recordGrading', { greenLotId: lot.id, ...specialty, screenDistribution: { '18': 60, '17': 50 } }, 400, 'invalid_input', 'screenDistribution');
  await refused('recordGrading', { greenLotId: lot.id, ...specialty, grader: 'me' }, 400, 'invalid_input', 'grader');
  await refused('recordGrading', { greenLotId: 'gl_0000000000nothing', ...specialty, defectsPrimary: 9 }, 404, 'not_found', 'greenLotId');
  await refused('recordGrading', { sampleId: 'smp_0000000000nothing', ...specialty }, 404, 'not_found', 'sampleId');
  const foreign = await makeSample(await server.createOrg());
  await refused('recordGrading', { sampleId: foreign.id, ...specialty, defectsPrimary: 3 }, 404, 'not_found', 'sampleId');
});

test('a sample is graded (and filtered by) without any quarantine; a sample and its lot graded together quarantine the lot', async () => {
  const sample = await makeSample(org, { sampleType: 'arrival' });
  const failed = await grade({ sampleId: sample.id, ...specialty, defectsPrimary: 2 });
  assert.deepEqual([failed.grading.result, failed.grading.sampleId, failed.grading.quarantinedLot, failed.lot], ['fail', sample.id, false, null]);
  const lot = await importLot(org);
  const both = await grade({ sampleId: sample.id, greenLotId: lot.id, ...specialty, moisturePct: 14 });
  assert.deepEqual([both.grading.sampleId, both.grading.greenLotId, both.grading.quarantinedLot, both.lot.quarantined], [sample.id, lot.id, true, true]);
  const listed = await call('listGradings', { filter: { sampleId: sample.id } });
  assert.deepEqual(listed.body.items.map((g: any) => g.id), [both.grading.id, failed.grading.id]);
});

test('other standards: NY/COB types and SNI grades with the ICO export minimums; custom is recorded, not judged', async () => {
  const cases: [Record<string, unknown>, string, string | null][] = [
    [{ standard: 'brazil_ny', defectsPrimary: 30, defectsSecondary: 56, moisturePct: 11.5 }, 'pass', 'NY 6'],
    [{ standard: 'brazil_ny', defectsPrimary: 2, defectsSecondary: 2, moisturePct: 11.5 }, 'pass', 'NY 2'],
    [{ standard: 'brazil_ny', defectsPrimary: 30, defectsSecondary: 57, moisturePct: 11.5 }, 'fail', 'NY 7'],
    [{ standard: 'brazil_ny', defectsPrimary: 0, defectsSecondary: 400, moisturePct: 11.5 }, 'fail', 'out of type'],
    [{ standard: 'brazil_ny', defectsPrimary: 0, defectsSecondary: 4, moisturePct: 12.6 }, 'fail', 'NY 2'],
    [{ standard: 'indonesian', defectsPrimary: 5, defectsSecondary: 6, moisturePct: 12.5 }, 'pass', 'SNI 1'],
    [{ standard: 'indonesian', defectsPrimary: 100, defectsSecondary: 50, moisturePct: 12 }, 'pass', 'SNI 5'],
    [{ standard: 'indonesian', defectsPrimary: 100, defectsSecondary: 51, moisturePct: 12 }, 'fail', 'SNI 6'],
    [{ standard: 'vietnamese', defectsPrimary: 60, defectsSecondary: 60, moisturePct: 7.5 }, 'fail', null],
    [{ standard: 'vietnamese', defectsPrimary: 60, defectsSecondary: 60, moisturePct: 12.5 }, 'pass', null],
    [{ ...specialty, standard: 'coe' }, 'pass', 'specialty'],
    [{ ...specialty, standard: 'coe', waterActivity: 0.71 }, 'fail', 'below specialty'],
    [{ standard: 'custom', moisturePct: 15 }, 'not_judged', null],
  ];
  for (const [input, result, gradeName] of cases) {
    const lot = await importLot(org);
    const res = await grade({ greenLotId: lot.id, ...input });
    assert.deepEqual([res.grading.result, res.grading.grade], [result, gradeName], JSON.stringify(input));
    assert.equal(res.lot.quarantined, result === 'fail', `${JSON.stringify(input)}: quarantined only when failed`);
  }
});

test('listGradings filters by lot, standard, result and time, newest first; an unknown filter is 400', async () => {
  const lot = await importLot(org);
  const a = await grade({ greenLotId: lot.id, ...specialty });
  const b = await grade({ greenLotId: lot.id, ...specialty, defectsPrimary: 1 });
  const c = await grade({ greenLotId: lot.id, standard: 'custom' });
  const ids = async (filter: Record<string, unknown>, page?: Record<string, unknown>) => {
    const res = await call('listGradings', { filter: { greenLotId: lot.id, ...filter }, ...(page ? { page } : {}) });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body;
  };
  assert.deepEqual((await ids({})).items.map((g: any) => g.id), [c.grading.id, b.grading.id, a.grading.id]);
  assert.deepEqual((await ids({ result: 'fail' })).items.map((g: any) => g.id), [b.grading.id]);
  assert.deepEqual((await ids({ standard: 'custom' })).items.map((g: any) => g.id), [c.grading.id]);
  assert.deepEqual((await ids({ gradedFrom: b.grading.createdAt })).items.map((g: any) => g.id).includes(a.grading.id), a.grading.createdAt >= b.grading.createdAt);
  assert.deepEqual((await ids({ gradedTo: '2000-01-01T00:00:00Z' })).items, []);
  const first = await ids({}, { limit: 2 });
  const rest = await ids({}, { limit: 2, cursor: first.nextCursor });
  assert.deepEqual([...first.items, ...rest.items].map((g: any) => g.id), [c.grading.id, b.grading.id, a.grading.id]);
  assertProblem(await call('listGradings', { filter: { lotId: lot.id } }), 400, 'invalid_input', 'filter.lotId');
});
