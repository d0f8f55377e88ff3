import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../../../testing/harness.js';
import { assertProblem } from '../../../testing/problems.js';
import { dataOf, postSamples, watchStream } from './telemetry/testing.js';
import { makeLocation } from '../../catalog/location/tenancy.cases.js';
import { assertLedgerInvariants, importLot } from '../../inventory/green/testing.js';
import { ABORT_REASON_MAX_LENGTH } from './schemas.js';
import { bridgeToken, makeRoaster, postCurve, refusedUnchanged, roastedLedgerViolations, startBatch, syntheticRoast } from './testing.js';

const server = await startTestServer();
const org = await server.createOrg('enterprise', 'Abort roastery');
const live = server.app.services.liveSessions;

const abort = (id: string, input: Record<string, unknown> = { reason: 'started by mistake' }) => () =>
  org.call('production.roast.abortRoastBatch', { id, ...input });
const countEvents = async (type: string, orgId = org.id) =>
  (await server.owner.query<{ n: number }>(`select count(*)::int as n from events where org_id = $1 and type = $2`, [orgId, type]))[0].n;
const greenLedgerKinds = async (lotId: string) =>
  (await server.owner.query<{ kind: string }>(`select kind from green_lot_ledger where org_id = $1 and lot_id = $2 order by seq`, [org.id, lotId])).map((r) => r.kind);
const sample = (t: number) => ({ t, bt: 150, et: 200 });

/** A roaster at a location with a bridge token, a 50 kg green lot there, and a live 12 kg batch of it with some telemetry. */
async function liveBatch() {
  const locationId = await makeLocation(org);
  const machine = await makeRoaster(org, { locationId });
  const token = await bridgeToken(org, machine.id);
  const lot = await importLot(org, { weightKg: '50', locationId });
  const batch = await startBatch(org, { machineId: machine.id, greenLotId: lot.id, chargeWeightKg: '12' });
  await postCurve(server, token, batch.id, { samples: syntheticRoast().samples.slice(0, 120), events: [{ type: 'charge', t: 0 }] });
  return { machine, token, lot, batch };
}

describe('abortRoastBatch', () => {
  test('abandons a live batch: nothing consumed, no roasted lot, the reason kept, the session closed and its buffer discarded', async () => {
    const { token, lot, batch } = await liveBatch();
    const watcher = await watchStream(`${server.url}/stream/v1/roast/${batch.id}`, { authorization: `Bearer ${org.key}` });
    assert.equal(watcher.status, 200);
    const eventsBefore = await countEvents('production.roast.batch_aborted');

    const res = await abort(batch.id, { reason: '  wrong coffee in the hopper ' })();
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const aborted = res.body;
    assert.deepEqual(
      [aborted.id, aborted.state, aborted.abortReason, aborted.completedAt, aborted.dropWeightKg, aborted.weightLossPct, aborted.metrics, aborted.roastedLot, aborted.curve],
      [batch.id, 'aborted', 'wrong coffee in the hopper', null, null, null, null, null, null],
    );
    assert.ok(Date.parse(aborted.abortedAt) >= Date.parse(batch.startedAt), 'abortedAt is the time of the abort');
    assert.equal(aborted.chargeWeightKg, '12.000', 'the planned charge stays on record');

    // Nothing consumed: the green lot's ledger and balance are as received.
    assert.deepEqual(await greenLedgerKinds(lot.id), ['receive']);
    const green = await org.call('inventory.green.getGreenLot', { id: lot.id });
    assert.equal(green.body.onHandKg, '50.000');
    await assertLedgerInvariants(server.owner, org.id);

    // No roasted lot, no lineage, no curve.
    const lots = await org.call('inventory.roast.listRoastedLots', { filter: { roastBatchId: batch.id } }, { method: 'GET' });
    assert.deepEqual(lots.body.items, []);
    assert.deepEqual(await roastedLedgerViolations(server.owner, org.id), []);
    assert.equal((await server.owner.query(`select 1 from lineage_edges where org_id = $1 and (from_id = $2 or to_id = $2)`, [org.id, batch.id])).length, 0);
    assert.equal((await server.owner.query(`select 1 from roast_curves where org_id = $1 and batch_id = $2`, [org.id, batch.id])).length, 0);
    assert.equal(await server.app.services.blobs.get(`curves/${org.id}/${batch.id}.json`), null);
    const curve = await org.call('production.roast.getRoastCurve', { id: batch.id }, { method: 'GET' });
    assert.deepEqual([curve.status, curve.body.state, curve.body.persisted, curve.body.samples, curve.body.fullSampleCount], [200, 'aborted', false, [], 0]);

    // One event, written with the abort.
    assert.equal(await countEvents('production.roast.batch_aborted'), eventsBefore + 1);
    const [event] = await server.owner.query<{ data: any }>(
      `select data from events where org_id = $1 and type = 'production.roast.batch_aborted' order by id desc limit 1`,
      [org.id],
    );
    assert.deepEqual([event.data.batch.id, event.data.batch.state, event.data.batch.abortReason], [batch.id, 'aborted', 'wrong coffee in the hopper']);

    // Watchers hear it and their stream ends; the buffer is gone; posts and new streams are refused as for a completed batch.
    await watcher.until((w) => w.ended);
    assert.deepEqual(dataOf(watcher, 'status'), [{ state: 'aborted' }]);
    assert.equal(await live.get(org.id, batch.id), null);
    assert.equal(await live.readCurve(org.id, batch.id), null);
    const late = await postSamples(server.url, token, batch.id, { seq: 99, samples: [sample(200_000)] });
    assert.deepEqual([late.status, late.body.code, late.body.state], [409, 'batch_not_live', 'aborted']);
    const stream = await watchStream(`${server.url}/stream/v1/roast/${batch.id}`, { authorization: `Bearer ${org.key}` });
    assert.deepEqual([stream.status, stream.problem.code], [409, 'batch_not_live']);

    // getRoastBatch answers what the abort answered.
    assert.deepEqual((await org.call('production.roast.getRoastBatch', { id: batch.id }, { method: 'GET' })).body, aborted);
  });

  test('only a live batch can be aborted, and an aborted batch cannot be completed; refusals change nothing', async () => {
    const { machine, token, lot, batch } = await liveBatch();
    assert.equal((await abort(batch.id)()).status, 200);

    const again = await refusedUnchanged(server.owner, org, abort(batch.id, { reason: 'twice' }), 409, 'batch_not_live', 'id');
    assert.equal(again.body.state, 'aborted');
    assert.match(again.body.detail, /started by mistake/);
    const complete = await refusedUnchanged(server.owner, org, () => org.call('production.roast.completeRoastBatch', { id: batch.id, dropWeightKg: '10' }), 409, 'batch_not_live', 'id');
    assert.equal(complete.body.state, 'aborted');
    assert.deepEqual(await greenLedgerKinds(lot.id), ['receive']);

    // A completed batch is not live either.
    const done = await startBatch(org, { machineId: machine.id, chargeWeightKg: '6' });
    await postCurve(server, token, done.id, syntheticRoast());
    assert.equal((await org.call('production.roast.completeRoastBatch', { id: done.id })).status, 200);
    const completed = await refusedUnchanged(server.owner, org, abort(done.id), 409, 'batch_not_live', 'id');
    assert.equal(completed.body.state, 'completed');
  });

  test('a buffer that outlived an abort (a crash before the discard) takes no posts and is discarded by the next call', async () => {
    const { machine, token, batch } = await liveBatch();
    assert.equal((await abort(batch.id)()).status, 200);
    // The session as a crash between the abort's commit and its discard would leave it.
    await live.open({ orgId: org.id, batchId: batch.id, machineId: machine.id });
    await live.append(org.id, batch.id, 1, [sample(0)], []);
    await live.seal(org.id, batch.id);
    const late = await postSamples(server.url, token, batch.id, { seq: 2, samples: [sample(1000)] });
    assert.deepEqual([late.status, late.body.code], [409, 'batch_not_live']);

    await refusedUnchanged(server.owner, org, abort(batch.id), 409, 'batch_not_live', 'id');
    assert.equal(await live.get(org.id, batch.id), null, 'the leftover buffer is discarded');
  });

  test('bad input is refused naming the field, and the batch stays live with its session taking posts', async () => {
    const { token, batch } = await liveBatch();
    await refusedUnchanged(server.owner, org, () => org.call('production.roast.abortRoastBatch', { id: batch.id }), 400, 'invalid_input', 'reason');
    await refusedUnchanged(server.owner, org, abort(batch.id, { reason: '   ' }), 400, 'invalid_input', 'reason');
    await refusedUnchanged(server.owner, org, abort(batch.id, { reason: 'x'.repeat(ABORT_REASON_MAX_LENGTH + 1) }), 400, 'invalid_input', 'reason');
    await refusedUnchanged(server.owner, org, abort(batch.id, { reason: 42 }), 400, 'invalid_input', 'reason');
    await refusedUnchanged(server.owner, org, abort(batch.id, { reason: 'ok', surprise: true }), 400, 'invalid_input', 'surprise');
    await refusedUnchanged(server.owner, org, abort('rb_0000000000ghost00000000000'), 404, 'not_found', 'id');

    assert.equal((await org.call('production.roast.getRoastBatch', { id: batch.id }, { method: 'GET' })).body.state, 'live');
    const post = await postSamples(server.url, token, batch.id, { seq: 50, samples: [sample(130_000)] });
    assert.equal(post.status, 202, JSON.stringify(post.body));
    // The longest reason allowed is accepted.
    const longest = await abort(batch.id, { reason: 'y'.repeat(ABORT_REASON_MAX_LENGTH) })();
    assert.equal(longest.status, 200, JSON.stringify(longest.body));
  });

  test('another organization’s batch is not found, and stays live with its session open', async () => {
    const { token, batch } = await liveBatch();
    const other = await server.createOrg('enterprise', 'Other roastery');
    const res = await other.call('production.roast.abortRoastBatch', { id: batch.id, reason: 'not mine' });
    assertProblem(res, 404, 'not_found', 'id');
    assert.equal(await countEvents('production.roast.batch_aborted', other.id), 0);
    assert.equal((await org.call('production.roast.getRoastBatch', { id: batch.id }, { method: 'GET' })).body.state, 'live');
    const post = await postSamples(server.url, token, batch.id, { seq: 60, samples: [sample(140_000)] });
    assert.equal(post.status, 202, JSON.stringify(post.body));
  });

  test('a role without production.roast.write cannot abort', async () => {
    const { batch } = await liveBatch();
    const viewer = await org.createKey('viewer');
    const res = await server.call(viewer, 'production.roast.abortRoastBatch', { id: batch.id, reason: 'looking only' });
    assert.equal(res.status, 403, JSON.stringify(res.body));
    assert.equal((await org.call('production.roast.getRoastBatch', { id: batch.id }, { method: 'GET' })).body.state, 'live');
  });
});
