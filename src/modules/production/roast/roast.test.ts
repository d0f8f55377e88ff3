import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startTestServer } from '../../../testing/harness.js';
import { deriveMetrics, downsampleTo1Hz } from './telemetry/metrics.js';
import { makeLocation } from '../../catalog/location/tenancy.cases.js';
import { assertLedgerInvariants, importLot } from '../../inventory/green/testing.js';
import { assertProblem } from '../../../testing/problems.js';
import { postSamples } from './telemetry/testing.js';
import { messagesOfRun } from '../../../streaming/testing.js';
import { NO_TELEMETRY_WARNING } from './completion.js';
import {
  bridgeToken,
  makeProfile,
  makeRoaster,
  postCurve,
  refusedUnchanged,
  roastedLedgerViolations,
  roastingState,
  startBatch,
  syntheticRoast,
  unique,
} from './testing.js';

const server = await startTestServer();
const org = await server.createOrg('enterprise', 'Roast roastery');
const live = server.app.services.liveSessions;
const roast = syntheticRoast();

const lastEvent = async (type: string) =>
  (await server.owner.query<{ data: any }>(`select data from events where org_id = $1 and type = $2 order by id desc limit 1`, [org.id, type]))[0]?.data;
const countEvents = async (type: string) =>
  (await server.owner.query<{ n: number }>(`select count(*)::int as n from events where org_id = $1 and type = $2`, [org.id, type]))[0].n;
const greenLedger = async (lotId: string) =>
  server.owner.query<{ kind: string; location_id: string | null; delta_kg: string; group_id: string | null }>(
    `select kind, location_id, delta_kg, group_id from green_lot_ledger where org_id = $1 and lot_id = $2 order by seq`,
    [org.id, lotId],
  );
const lineageOf = async (batchId: string) =>
  server.owner.query<{ from_kind: string; from_id: string; to_kind: string; to_id: string; weight_kg: string }>(
    `select from_kind, from_id, to_kind, to_id, weight_kg from lineage_edges where org_id = $1 and group_id = $2 order by from_kind`,
    [org.id, batchId],
  );

/** A roaster at a location with a bridge token, and a green lot of 50 kg held there. */
async function setup(lotKg = '50') {
  const locationId = await makeLocation(org);
  const machine = await makeRoaster(org, { locationId });
  const token = await bridgeToken(org, machine.id);
  const lot = await importLot(org, { weightKg: lotKg, locationId });
  return { locationId, machine, token, lot };
}

describe('startRoastBatch', () => {
  test('creates a live batch at the machine’s location and opens its live session', async () => {
    const { locationId, machine, lot } = await setup();
    const profile = await makeProfile(org, { machineId: machine.id });
    const batchNumber = unique('B');
    const res = await org.call('production.roast.startRoastBatch', {
      batchNumber,
      machineId: machine.id,
      profileId: profile.id,
      greenLotId: lot.id,
      chargeWeightKg: 12.5,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const batch = res.body;
    assert.match(batch.id, /^rb_[0-9a-z]+$/);
    assert.deepEqual(
      { ...batch, id: undefined, startedAt: undefined, createdAt: undefined, updatedAt: undefined, profileComparison: undefined },
      {
        id: undefined,
        batchNumber,
        source: 'live',
        state: 'live',
        machineId: machine.id,
        profileId: profile.id,
        greenLotId: lot.id,
        locationId,
        chargeWeightKg: '12.500',
        dropWeightKg: null,
        chargeWeightG: '12500.0',
        dropWeightG: null,
        weightLossPct: null,
        importFormat: null,
        warnings: [],
        metrics: null,
        notes: null,
        startedAt: undefined,
        completedAt: null,
        abortedAt: null,
        abortReason: null,
        referenceBatchId: null,
        createdAt: undefined,
        updatedAt: undefined,
        profileComparison: undefined,
        roastedLot: null,
        curve: null,
      },
    );
    assert.deepEqual(await live.get(org.id, batch.id), { orgId: org.id, batchId: batch.id, machineId: machine.id });
    assert.equal((await lastEvent('production.roast.batch_started')).batch.id, batch.id);
    // Nothing is deducted at the start.
    assert.deepEqual((await greenLedger(lot.id)).map((r) => r.kind), ['receive']);
  });

  test('an explicit location wins over the machine’s', async () => {
    const { machine } = await setup();
    const elsewhere = await makeLocation(org);
    const batch = await startBatch(org, { machineId: machine.id, locationId: elsewhere });
    assert.equal(batch.locationId, elsewhere);
  });

  test('refuses a duplicate batch number, unknown references and rule breaks, changing nothing', async () => {
    const { machine, lot } = await setup('20');
    const taken = await startBatch(org, { machineId: machine.id });
    const ghost = 'zz_0000000000ghost00000000000';
    const start = (input: Record<string, unknown>) => () =>
      org.call('production.roast.startRoastBatch', { batchNumber: unique('B'), machineId: machine.id, chargeWeightKg: '10', ...input });

    await refusedUnchanged(server.owner, org, start({ batchNumber: taken.batchNumber }), 409, 'duplicate', 'batchNumber');
    await refusedUnchanged(server.owner, org, start({ machineId: ghost.replace('zz', 'mch') }), 404, 'not_found', 'machineId');
    await refusedUnchanged(server.owner, org, start({ profileId: ghost.replace('zz', 'prf') }), 404, 'not_found', 'profileId');
    await refusedUnchanged(server.owner, org, start({ greenLotId: ghost.replace('zz', 'gl') }), 404, 'not_found', 'greenLotId');
    await refusedUnchanged(server.owner, org, start({ locationId: ghost.replace('zz', 'loc') }), 404, 'not_found', 'locationId');

    // Outside the machine's 5–15 kg range.
    const below = await refusedUnchanged(server.owner, org, start({ chargeWeightKg: '4.999' }), 400, 'invalid_input', 'chargeWeightKg');
    assert.match(JSON.stringify(below.body.errors), /minimum batch of 5\.000 kg/);
    const above = await refusedUnchanged(server.owner, org, start({ chargeWeightKg: '15.001' }), 400, 'invalid_input', 'chargeWeightKg');
    assert.match(JSON.stringify(above.body.errors), /maximum batch of 15\.000 kg/);
    await refusedUnchanged(server.owner, org, start({ chargeWeightKg: '0' }), 400, 'invalid_input', 'chargeWeightKg');
    await refusedUnchanged(server.owner, org, start({ surprise: true }), 400, 'invalid_input', 'surprise');

    // A profile written for another machine.
    const otherMachine = await makeRoaster(org);
    const foreignProfile = await makeProfile(org, { machineId: otherMachine.id });
    await refusedUnchanged(server.owner, org, start({ profileId: foreignProfile.id }), 409, 'profile_machine_mismatch', 'profileId');

    // More than is available: 20 kg on hand, 8 kg reserved leaves 12.
    assert.equal((await org.call('inventory.green.reserveGreenLot', { id: lot.id, weightKg: '8' })).status, 200);
    const short = await refusedUnchanged(server.owner, org, start({ greenLotId: lot.id, chargeWeightKg: '12.001' }), 409, 'insufficient_stock', 'chargeWeightKg');
    assert.equal(short.body.availableKg, '12.000');
    assert.equal((await org.call('production.roast.startRoastBatch', { batchNumber: unique('B'), machineId: machine.id, greenLotId: lot.id, chargeWeightKg: '12' })).status, 200);

    // A quarantined lot.
    await server.owner.query(`update green_lots set quarantined = true where org_id = $1 and id = $2`, [org.id, lot.id]);
    await refusedUnchanged(server.owner, org, start({ greenLotId: lot.id, chargeWeightKg: '5' }), 409, 'lot_quarantined', 'greenLotId');

    // An archived location, an inactive machine.
    const archived = await makeLocation(org);
    assert.equal((await org.call('catalog.location.archiveLocation', { id: archived })).status, 200);
    await refusedUnchanged(server.owner, org, start({ locationId: archived }), 409, 'location_archived', 'locationId');
    assert.equal((await org.call('catalog.machine.updateMachine', { id: machine.id, isActive: false })).status, 200);
    await refusedUnchanged(server.owner, org, start({}), 409, 'machine_inactive', 'machineId');
  });
});

describe('completeRoastBatch', () => {
  test('persists the curve, derives metrics, deducts the green, opens the roasted lot with lineage, then discards the buffer', async () => {
    const { locationId, machine, token, lot } = await setup();
    const profile = await makeProfile(org, { machineId: machine.id, targetChargeKg: '12', targetDropTempC: 212.5, targetTotalTimeS: 630, targetDtrPct: '21.5' });
    const started = await startBatch(org, { machineId: machine.id, profileId: profile.id, greenLotId: lot.id, chargeWeightKg: '12.500' });
    const curve = syntheticRoast({ hz: 10, channels: 3 });
    await postCurve(server, token, started.id, curve);

    const statuses: unknown[] = [];
    const unsubscribe = await live.subscribe(org.id, started.id, 0, (run) => { for (const m of messagesOfRun(run)) if (m.event === 'status') statuses.push(m.data); });
    const res = await org.call('production.roast.completeRoastBatch', { id: started.id, dropWeightKg: '10.625', notes: 'sweet, even' });
    // Watchers may hear of it a moment later (across processes, through Redis).
    for (let waited = 0; statuses.length === 0 && waited < 2000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    unsubscribe();
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const batch = res.body;
    assert.equal(batch.state, 'completed');
    assert.ok(batch.completedAt, 'a completed batch has completedAt');
    assert.equal(batch.dropWeightKg, '10.625');
    assert.equal(batch.weightLossPct, '15.00');
    assert.equal(batch.notes, 'sweet, even');

    // Metrics: the landmarks the synthetic roast was built with.
    const m = batch.metrics;
    assert.equal(m.chargeTempC, 200);
    assert.equal(m.turningPointS, 75);
    assert.equal(m.turningPointTempC, 95);
    assert.equal(m.dryEndS, 240);
    assert.equal(m.firstCrackStartS, 480);
    assert.equal(m.firstCrackEndS, 540);
    assert.equal(m.secondCrackStartS, null);
    assert.equal(m.dropS, 600);
    assert.equal(m.dropTempC, 210);
    assert.deepEqual([m.dryingPhaseS, m.maillardPhaseS, m.developmentPhaseS, m.totalTimeS], [240, 240, 120, 600]);
    assert.equal(m.developmentTimeRatioPct, 20);
    assert.equal(m.weightLossPct, 15);
    const expected = deriveMetrics(curve);
    for (const key of ['rorDryingCPerMin', 'rorMaillardCPerMin', 'rorDevelopmentCPerMin', 'dryEndTempC', 'firstCrackStartTempC'] as const) {
      assert.equal(m[key], Math.round(expected[key]! * 100) / 100, key);
    }

    // Against the profile's targets.
    assert.deepEqual(batch.profileComparison, {
      profileId: profile.id,
      profileCode: profile.code,
      chargeWeightKg: { target: '12.000', actual: '12.500', difference: '0.500' },
      dropTempC: { target: 212.5, actual: 210, difference: -2.5 },
      totalTimeS: { target: 630, actual: 600, difference: -30 },
      dtrPct: { target: 21.5, actual: 20, difference: -1.5 },
    });

    // Both copies of the curve.
    const key = `curves/${org.id}/${started.id}.json`;
    assert.deepEqual(batch.curve, { sampleCount: 636, fullSampleCount: curve.samples.length, fullCurveKey: key });
    const full = JSON.parse((await server.app.services.blobs.get(key))!.toString('utf8'));
    assert.deepEqual(full.samples, curve.samples);
    assert.deepEqual(full.events, curve.events);
    const stored = await org.call('production.roast.getRoastCurve', { id: started.id }, { method: 'GET' });
    assert.equal(stored.status, 200);
    assert.equal(stored.body.persisted, true);
    assert.deepEqual(stored.body.samples, downsampleTo1Hz(curve.samples));
    assert.deepEqual(stored.body.events, curve.events);
    assert.equal(stored.body.fullCurveKey, key);

    // Green consumed at the batch's location, grouped under the batch.
    assert.deepEqual((await greenLedger(lot.id)).slice(1), [{ kind: 'roast_consume', location_id: locationId, delta_kg: '-12.500', group_id: started.id }]);
    const greenAfter = await org.call('inventory.green.getGreenLot', { id: lot.id });
    assert.equal(greenAfter.body.onHandKg, '37.500');
    await assertLedgerInvariants(server.owner, org.id);

    // The roasted lot and its opening ledger row.
    const roasted = batch.roastedLot;
    assert.match(roasted.id, /^rl_/);
    assert.equal(roasted.lotCode, `R-${started.batchNumber}`);
    assert.deepEqual(
      [roasted.form, roasted.roastBatchId, roasted.batchNumber, roasted.greenLotId, roasted.greenLotCode, roasted.profileId, roasted.locationId],
      ['loose', started.id, started.batchNumber, lot.id, lot.lotCode, profile.id, locationId],
    );
    assert.deepEqual([roasted.openingKg, roasted.onHandKg, roasted.weightLossPct, roasted.roastedAt], ['10.625', '10.625', '15.00', batch.completedAt]);
    const lotView = await org.call('inventory.roast.getRoastedLot', { id: roasted.id });
    assert.deepEqual(lotView.body.transactions.map((t: any) => [t.seq, t.kind, t.deltaKg]), [[1, 'roast_output', '10.625']]);
    assert.deepEqual(await roastedLedgerViolations(server.owner, org.id), []);

    // Lineage green lot → batch → roasted lot, with the weights that followed each edge.
    assert.deepEqual(await lineageOf(started.id), [
      { from_kind: 'green_lot', from_id: lot.id, to_kind: 'roast_batch', to_id: started.id, weight_kg: '12.500' },
      { from_kind: 'roast_batch', from_id: started.id, to_kind: 'roasted_lot', to_id: roasted.id, weight_kg: '10.625' },
    ]);

    // Events, then the live session: completed status published, buffer gone.
    const completedEvent = await lastEvent('production.roast.batch_completed');
    assert.equal(completedEvent.batch.id, started.id);
    assert.equal(completedEvent.roastedLotId, roasted.id);
    assert.equal((await lastEvent('inventory.roast.lot_created')).lot.id, roasted.id);
    assert.deepEqual(statuses, [{ state: 'completed' }]);
    assert.equal(await live.get(org.id, started.id), null);
    assert.equal(await live.readCurve(org.id, started.id), null);

    // getRoastBatch answers what completion answered.
    const again = await org.call('production.roast.getRoastBatch', { id: started.id }, { method: 'GET' });
    assert.deepEqual(again.body, batch);
  });

  test('completing twice completes once; a buffer that outlived the commit is discarded by the retry', async () => {
    const { machine, token, lot } = await setup();
    const started = await startBatch(org, { machineId: machine.id, greenLotId: lot.id, chargeWeightKg: '10' });
    await postCurve(server, token, started.id, roast);
    const first = await org.call('production.roast.completeRoastBatch', { id: started.id, dropWeightKg: '8.4' });
    assert.equal(first.status, 200);
    const events = await countEvents('production.roast.batch_completed');
    const before = await roastingState(server.owner, org.id);

    // A plain retry.
    const second = await org.call('production.roast.completeRoastBatch', { id: started.id, dropWeightKg: '8.4' });
    assert.equal(second.status, 200);
    assert.deepEqual(second.body, first.body);

    // A crash between the commit and the discard: the buffer is still there when the client retries.
    await live.open({ orgId: org.id, batchId: started.id, machineId: machine.id });
    await live.append(org.id, started.id, 1, roast.samples.slice(0, 100), []);
    assert.equal((await live.readCurve(org.id, started.id))!.samples.length, 100);
    const retry = await org.call('production.roast.completeRoastBatch', { id: started.id, dropWeightKg: '9', notes: 'ignored' });
    assert.equal(retry.status, 200);
    assert.deepEqual(retry.body, first.body);
    assert.equal(await live.get(org.id, started.id), null, 'the leftover buffer is discarded');

    // Nothing was booked again.
    assert.deepEqual(await roastingState(server.owner, org.id), before);
    assert.equal(await countEvents('production.roast.batch_completed'), events);
    assert.deepEqual((await greenLedger(lot.id)).map((r) => r.kind), ['receive', 'roast_consume']);
  });

  test('a batch without telemetry completes without a curve: weights, green consumed, roasted lot, metrics null, a warning', async () => {
    const { locationId, machine, token, lot } = await setup();
    const started = await startBatch(org, { machineId: machine.id, greenLotId: lot.id, chargeWeightKg: '10' });
    const completedEvents = await countEvents('production.roast.batch_completed');

    // The roasted weight is still required to make the roasted lot, and a refusal books nothing.
    await refusedUnchanged(server.owner, org, () => org.call('production.roast.completeRoastBatch', { id: started.id }), 400, 'invalid_input', 'dropWeightKg');

    const res = await org.call('production.roast.completeRoastBatch', { id: started.id, dropWeightKg: '8.5', notes: 'no logger on this one' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const batch = res.body;
    assert.deepEqual(
      [batch.state, batch.chargeWeightKg, batch.dropWeightKg, batch.weightLossPct, batch.notes, batch.metrics, batch.curve],
      ['completed', '10.000', '8.500', '15.00', 'no logger on this one', null, null],
    );
    assert.deepEqual(batch.warnings, [NO_TELEMETRY_WARNING]);
    assert.match(batch.warnings[0], /no telemetry was recorded/);
    assert.ok(batch.completedAt, 'a completed batch has completedAt');

    // The green left its lot through the same ledger path as a completion with a curve.
    assert.deepEqual((await greenLedger(lot.id)).slice(1), [{ kind: 'roast_consume', location_id: locationId, delta_kg: '-10.000', group_id: started.id }]);
    assert.equal((await org.call('inventory.green.getGreenLot', { id: lot.id })).body.onHandKg, '40.000');
    await assertLedgerInvariants(server.owner, org.id);

    // The roasted lot holds the drop weight, with lineage green lot → batch → roasted lot.
    const roasted = batch.roastedLot;
    assert.deepEqual(
      [roasted.lotCode, roasted.roastBatchId, roasted.openingKg, roasted.onHandKg, roasted.weightLossPct, roasted.locationId],
      [`R-${started.batchNumber}`, started.id, '8.500', '8.500', '15.00', locationId],
    );
    const lotView = await org.call('inventory.roast.getRoastedLot', { id: roasted.id });
    assert.deepEqual(lotView.body.transactions.map((t: any) => [t.kind, t.deltaKg]), [['roast_output', '8.500']]);
    assert.deepEqual(await roastedLedgerViolations(server.owner, org.id), []);
    assert.deepEqual(await lineageOf(started.id), [
      { from_kind: 'green_lot', from_id: lot.id, to_kind: 'roast_batch', to_id: started.id, weight_kg: '10.000' },
      { from_kind: 'roast_batch', from_id: started.id, to_kind: 'roasted_lot', to_id: roasted.id, weight_kg: '8.500' },
    ]);
    assert.equal(await countEvents('production.roast.batch_completed'), completedEvents + 1);
    assert.deepEqual((await lastEvent('production.roast.batch_completed')).batch.warnings, [NO_TELEMETRY_WARNING]);
    assert.equal((await lastEvent('inventory.roast.lot_created')).lot.id, roasted.id);

    // No curve anywhere; the session is gone and later posts are refused as for any completed batch.
    assert.equal(await server.app.services.blobs.get(`curves/${org.id}/${started.id}.json`), null);
    const curve = await org.call('production.roast.getRoastCurve', { id: started.id }, { method: 'GET' });
    assert.deepEqual(
      [curve.status, curve.body.persisted, curve.body.samples, curve.body.events, curve.body.sampleCount, curve.body.fullCurveKey],
      [200, true, [], [], 0, null],
    );
    assert.equal(await live.get(org.id, started.id), null);
    const late = await postSamples(server.url, token, started.id, { seq: 1, samples: [{ t: 0, bt: 200, et: 240 }] });
    assert.deepEqual([late.status, late.body.code, late.body.state], [409, 'batch_not_live', 'completed']);

    // A retry answers the same and books nothing again.
    const before = await roastingState(server.owner, org.id);
    const retry = await org.call('production.roast.completeRoastBatch', { id: started.id, dropWeightKg: '8.5' });
    assert.deepEqual([retry.status, retry.body], [200, batch]);
    assert.deepEqual(await roastingState(server.owner, org.id), before);
    assert.deepEqual((await org.call('production.roast.getRoastBatch', { id: started.id }, { method: 'GET' })).body, batch);
  });

  test('events posted without any sample are no telemetry either: the batch completes without a curve', async () => {
    const { machine, token } = await setup();
    const started = await startBatch(org, { machineId: machine.id, chargeWeightKg: '6' });
    // A refused completion leaves the session taking posts.
    await refusedUnchanged(server.owner, org, () => org.call('production.roast.completeRoastBatch', { id: started.id, dropWeightKg: '6.001' }), 400, 'invalid_input', 'dropWeightKg');
    const eventsOnly = await postSamples(server.url, token, started.id, { seq: 1, samples: [], events: [{ type: 'charge', t: 0 }] });
    assert.deepEqual([eventsOnly.status, eventsOnly.body.accepted], [202, 0]);
    assert.deepEqual((await live.readCurve(org.id, started.id))!.events, [{ type: 'charge', t: 0 }]);
    const res = await org.call('production.roast.completeRoastBatch', { id: started.id, dropWeightKg: '5.1' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(
      [res.body.metrics, res.body.warnings, res.body.curve, res.body.dropWeightKg, res.body.weightLossPct, res.body.roastedLot],
      [null, [NO_TELEMETRY_WARNING], null, '5.100', '15.00', null],
    );
    assert.equal((await server.owner.query(`select 1 from roast_curves where org_id = $1 and batch_id = $2`, [org.id, started.id])).length, 0);
    assert.equal(await live.get(org.id, started.id), null);
  });

  test('refusals at completion change nothing and keep every buffered sample', async () => {
    const { machine, token, lot, locationId } = await setup('20');
    const started = await startBatch(org, { machineId: machine.id, greenLotId: lot.id, chargeWeightKg: '12' });
    await postCurve(server, token, started.id, roast);
    const complete = (input: Record<string, unknown>) => () => org.call('production.roast.completeRoastBatch', { id: started.id, ...input });

    // A batch consuming a green lot must give the roasted weight, and it cannot exceed the charge.
    await refusedUnchanged(server.owner, org, complete({}), 400, 'invalid_input', 'dropWeightKg');
    await refusedUnchanged(server.owner, org, complete({ dropWeightKg: '12.001' }), 400, 'invalid_input', 'dropWeightKg');
    await refusedUnchanged(server.owner, org, complete({ dropWeightKg: '-1' }), 400, 'invalid_input', 'dropWeightKg');

    // The green was moved meanwhile: no single location holds the 12 kg charge.
    const elsewhere = await makeLocation(org);
    const moved = await org.call('inventory.green.transferGreenLotToLocation', { id: lot.id, fromLocationId: locationId, toLocationId: elsewhere, weightKg: '10' });
    assert.equal(moved.status, 200);
    const short = await refusedUnchanged(server.owner, org, complete({ dropWeightKg: '10' }), 409, 'insufficient_stock');
    assert.equal(short.body.largestHoldingKg, '10.000');

    await refusedUnchanged(server.owner, org, () => org.call('production.roast.completeRoastBatch', { id: 'rb_0000000000ghost00000000000' }), 404, 'not_found', 'id');
    assert.equal((await live.readCurve(org.id, started.id))!.samples.length, roast.samples.length);

    // Put right, the same buffer completes.
    await org.call('inventory.green.transferGreenLotToLocation', { id: lot.id, fromLocationId: elsewhere, toLocationId: locationId, weightKg: '10' });
    const done = await complete({ dropWeightKg: '10' })();
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.equal(done.body.curve.fullSampleCount, roast.samples.length);
  });

  test('takes the green from the lot’s largest holding when the batch’s location does not hold the charge', async () => {
    const { machine, token, lot, locationId } = await setup('30');
    const second = await makeLocation(org);
    await org.call('inventory.green.transferGreenLotToLocation', { id: lot.id, fromLocationId: locationId, toLocationId: second, weightKg: '22' });
    // The batch's location holds 8 kg, less than the 10 kg charge: the 22 kg holding pays.
    const started = await startBatch(org, { machineId: machine.id, greenLotId: lot.id, chargeWeightKg: '10' });
    await postCurve(server, token, started.id, roast);
    assert.equal((await org.call('production.roast.completeRoastBatch', { id: started.id, dropWeightKg: '8.5' })).status, 200);
    assert.deepEqual((await greenLedger(lot.id)).at(-1), { kind: 'roast_consume', location_id: second, delta_kg: '-10.000', group_id: started.id });

    // Holding it at the batch's location wins even when another holding is larger.
    const next = await startBatch(org, { machineId: machine.id, greenLotId: lot.id, chargeWeightKg: '5', locationId });
    await postCurve(server, token, next.id, roast);
    assert.equal((await org.call('production.roast.completeRoastBatch', { id: next.id, dropWeightKg: '4.2' })).status, 200);
    assert.deepEqual((await greenLedger(lot.id)).at(-1), { kind: 'roast_consume', location_id: locationId, delta_kg: '-5.000', group_id: next.id });
    await assertLedgerInvariants(server.owner, org.id);
  });

  test('without a green lot no stock moves: a drop weight only gives the weight loss', async () => {
    const { machine, token } = await setup();
    const weighed = await startBatch(org, { machineId: machine.id, chargeWeightKg: '6' });
    await postCurve(server, token, weighed.id, roast);
    const res = await org.call('production.roast.completeRoastBatch', { id: weighed.id, dropWeightKg: '5.1' });
    assert.equal(res.status, 200);
    assert.deepEqual([res.body.dropWeightKg, res.body.weightLossPct, res.body.metrics.weightLossPct, res.body.roastedLot], ['5.100', '15.00', 15, null]);

    const unweighed = await startBatch(org, { machineId: machine.id, chargeWeightKg: '6' });
    await postCurve(server, token, unweighed.id, roast);
    const bare = await org.call('production.roast.completeRoastBatch', { id: unweighed.id });
    assert.equal(bare.status, 200);
    assert.deepEqual([bare.body.dropWeightKg, bare.body.weightLossPct, bare.body.metrics.weightLossPct, bare.body.roastedLot], [null, null, null, null]);
    assert.equal(bare.body.metrics.totalTimeS, 600);
    for (const batch of [weighed, unweighed]) {
      assert.deepEqual(await lineageOf(batch.id), []);
      const lots = await org.call('inventory.roast.listRoastedLots', { filter: { roastBatchId: batch.id } }, { method: 'GET' });
      assert.deepEqual(lots.body.items, []);
    }
  });
});

describe('getRoastCurve and getRoastBatch', () => {
  test('a live batch’s curve is the 1 Hz downsample of what is buffered so far', async () => {
    const { machine, token } = await setup();
    const started = await startBatch(org, { machineId: machine.id });
    const half = { samples: syntheticRoast({ hz: 4 }).samples.slice(0, 400), events: [{ type: 'charge' as const, t: 0 }] };
    await postCurve(server, token, started.id, half);
    const res = await org.call('production.roast.getRoastCurve', { id: started.id }, { method: 'GET' });
    assert.equal(res.status, 200);
    assert.equal(res.body.persisted, false);
    assert.equal(res.body.fullCurveKey, null);
    assert.equal(res.body.fullSampleCount, 400);
    assert.deepEqual(res.body.samples, downsampleTo1Hz(half.samples));
    assert.equal(res.body.sampleCount, res.body.samples.length);
    assert.deepEqual(res.body.events, half.events);
  });

  test('a batch with a profile compares the targets it has; a live batch only its charge', async () => {
    const { machine } = await setup();
    const profile = await makeProfile(org, { targetChargeKg: '10.5', targetDtrPct: 20 });
    const started = await startBatch(org, { machineId: machine.id, profileId: profile.id, chargeWeightKg: '10' });
    const res = await org.call('production.roast.getRoastBatch', { id: started.id }, { method: 'GET' });
    assert.deepEqual(res.body.profileComparison, {
      profileId: profile.id,
      profileCode: profile.code,
      chargeWeightKg: { target: '10.500', actual: '10.000', difference: '-0.500' },
      dropTempC: { target: null, actual: null, difference: null },
      totalTimeS: { target: null, actual: null, difference: null },
      dtrPct: { target: 20, actual: null, difference: null },
    });
  });

  test('unknown batches answer 404', async () => {
    for (const operation of ['production.roast.getRoastBatch', 'production.roast.getRoastCurve']) {
      assertProblem(await org.call(operation, { id: 'rb_0000000000ghost00000000000' }, { method: 'GET' }), 404, 'not_found', 'id');
    }
  });
});

describe('listRoastBatches', () => {
  test('newest first with a stable cursor, and every filter', async () => {
    const listOrg = await server.createOrg('enterprise', 'List roastery');
    const locationA = await makeLocation(listOrg);
    const machineA = await makeRoaster(listOrg, { locationId: locationA });
    const machineB = await makeRoaster(listOrg);
    const token = await bridgeToken(listOrg, machineA.id);
    const profile = await makeProfile(listOrg);
    const lot = await importLot(listOrg, { weightKg: '100' });
    const b1 = await startBatch(listOrg, { machineId: machineA.id, profileId: profile.id, batchNumber: 'MON-1' });
    const b2 = await startBatch(listOrg, { machineId: machineB.id, greenLotId: lot.id, batchNumber: 'MON-2' });
    const b3 = await startBatch(listOrg, { machineId: machineA.id, batchNumber: 'TUE-1' });
    const b4 = await startBatch(listOrg, { machineId: machineB.id, batchNumber: 'TUE-2' });
    assert.equal((await listOrg.call('production.roast.abortRoastBatch', { id: b4.id, reason: 'wrong coffee in the hopper' })).status, 200);
    await postCurve(server, token, b3.id, roast);
    assert.equal((await listOrg.call('production.roast.completeRoastBatch', { id: b3.id })).status, 200);
    // An old roast imported today sorts by when it was roasted (2015).
    const fixture = readFileSync(new URL('../../../../../shared/fixtures/roast-logs/profile2.alog', import.meta.url), 'utf8');
    const imported = await listOrg.call('production.roast.importLoggerRoast', { content: fixture, batchNumber: 'OLD-1' });
    assert.equal(imported.status, 200);

    const list = (filter: Record<string, unknown> = {}, page: Record<string, unknown> = {}) =>
      listOrg.call('production.roast.listRoastBatches', { filter, page }, { method: 'GET' });
    const ids = async (filter: Record<string, unknown>) => (await list(filter)).body.items.map((b: any) => b.id);

    assert.deepEqual(await ids({}), [b4.id, b3.id, b2.id, b1.id, imported.body.id]);
    const pages: string[] = [];
    let cursor: string | undefined;
    do {
      const res = await list({}, { limit: 1, ...(cursor ? { cursor } : {}) });
      assert.equal(res.status, 200);
      pages.push(...res.body.items.map((b: any) => b.id));
      cursor = res.body.nextCursor ?? undefined;
    } while (cursor);
    assert.deepEqual(pages, [b4.id, b3.id, b2.id, b1.id, imported.body.id]);

    assert.deepEqual(await ids({ state: 'completed' }), [b3.id, imported.body.id]);
    assert.deepEqual(await ids({ state: 'live' }), [b2.id, b1.id]);
    assert.deepEqual(await ids({ state: 'aborted' }), [b4.id]);
    assert.deepEqual(await ids({ source: 'import' }), [imported.body.id]);
    assert.deepEqual(await ids({ machineId: machineA.id }), [b3.id, b1.id]);
    assert.deepEqual(await ids({ profileId: profile.id }), [b1.id]);
    assert.deepEqual(await ids({ greenLotId: lot.id }), [b2.id]);
    assert.deepEqual(await ids({ locationId: locationA }), [b3.id, b1.id]);
    assert.deepEqual(await ids({ q: 'mon-' }), [b2.id, b1.id]);
    assert.deepEqual(await ids({ to: '2015-08-10' }), [imported.body.id]);
    assert.deepEqual(await ids({ from: '2015-08-10', to: '2015-08-10' }), [imported.body.id]);
    assert.deepEqual(await ids({ from: '2015-08-11', to: '2020-01-01' }), []);
    const today = new Date().toISOString().slice(0, 10);
    assert.deepEqual(await ids({ from: today }), [b4.id, b3.id, b2.id, b1.id]);

    assertProblem(await list({ color: 'brown' }), 400, 'invalid_input', 'filter.color');
    assertProblem(await list({ state: 'roasting' }), 400, 'invalid_input', 'filter.state');
    assertProblem(await list({}, { cursor: 'nonsense' }), 400, 'invalid_cursor', 'page.cursor');
  });
});
