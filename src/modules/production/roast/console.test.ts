import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../../../testing/harness.js';
import { assertProblem } from '../../../testing/problems.js';
import { dataOf, postSamples, watchStream } from './telemetry/testing.js';
import { bridgeToken, makeProfile, makeRoaster, postCurve, refusedUnchanged, startBatch, syntheticRoast } from './testing.js';

const server = await startTestServer();
const org = await server.createOrg('enterprise', 'Marking Roastery');
const machine = await makeRoaster(org);
const token = await bridgeToken(org, machine.id);

/** A batch roasted with a synthetic curve and completed: a reference to follow. */
async function completedBatch(profileId?: string): Promise<string> {
  const batch = await startBatch(org, { machineId: machine.id, ...(profileId ? { profileId } : {}) });
  await postCurve(server, token, batch.id, syntheticRoast({ durationS: 120 }));
  const done = await org.call('production.roast.completeRoastBatch', { id: batch.id });
  assert.equal(done.status, 200, JSON.stringify(done.body));
  return batch.id;
}

test('an event marked from the console joins the live session like a detected one: watchers see it and completion uses it', async () => {
  const batch = await startBatch(org, { machineId: machine.id });
  const watch = await watchStream(`${server.url}/stream/v1/roast/${batch.id}`, { authorization: `Bearer ${org.key}` });
  const samples = Array.from({ length: 300 }, (_, i) => ({ t: i * 1000, bt: 90 + i * 0.5, et: 230 }));
  assert.equal((await postSamples(server.url, token, batch.id, { seq: 1, samples: samples.slice(0, 200) })).status, 202);
  assert.equal((await org.call('production.roast.markRoastEvent', { id: batch.id, type: 'charge', t: 0 })).status, 200);

  const marked = await org.call('production.roast.markRoastEvent', { id: batch.id, type: 'first_crack_start' });
  assert.equal(marked.status, 200, JSON.stringify(marked.body));
  assert.deepEqual(marked.body, { batchId: batch.id, type: 'first_crack_start', t: 199_000 }, 'at the time of the latest sample');
  // The bridge goes on posting with its own seq numbers: none collides with the console's marks.
  assert.equal((await postSamples(server.url, token, batch.id, { seq: 2, samples: samples.slice(200) })).status, 202);
  await watch.until((w) => dataOf(w, 'roast_event').length === 2 && dataOf(w, 'sample').length === 300);
  assert.deepEqual(dataOf(watch, 'roast_event'), [{ type: 'charge', t: 0 }, { type: 'first_crack_start', t: 199_000 }]);
  assert.equal((await org.call('production.roast.markRoastEvent', { id: batch.id, type: 'drop', t: 299_000 })).status, 200);

  const viewer = await org.createKey('viewer');
  await refusedUnchanged(server.owner, org, () => server.call(viewer, 'production.roast.markRoastEvent', { id: batch.id, type: 'drop' }), 403, 'permission_denied');
  assertProblem(await org.call('production.roast.markRoastEvent', { id: batch.id, type: 'crack' }), 400, 'invalid_input', 'type');

  const done = await org.call('production.roast.completeRoastBatch', { id: batch.id });
  assert.equal(done.status, 200, JSON.stringify(done.body));
  assert.equal(done.body.metrics.firstCrackStartS, 199);
  assert.equal(done.body.metrics.dropS, 299);
  const curve = await org.call('production.roast.getRoastCurve', { id: batch.id });
  assert.deepEqual(curve.body.events.map((e: { type: string }) => e.type), ['charge', 'first_crack_start', 'drop']);
  watch.close();

  await refusedUnchanged(server.owner, org, () => org.call('production.roast.markRoastEvent', { id: batch.id, type: 'drop' }), 409, 'batch_not_live', 'id');
  assertProblem(await org.call('production.roast.markRoastEvent', { id: 'rb_00000000000000000000000000', type: 'drop' }), 404, 'not_found');
  const aborted = await startBatch(org, { machineId: machine.id });
  await org.call('production.roast.abortRoastBatch', { id: aborted.id, reason: 'dumped' });
  assertProblem(await org.call('production.roast.markRoastEvent', { id: aborted.id, type: 'first_crack_start' }), 409, 'batch_not_live');
});

test('a batch follows the reference curve chosen for it: any completed batch, or the profile’s', async () => {
  const profile = await makeProfile(org);
  const reference = await completedBatch();
  const live = await startBatch(org, { machineId: machine.id, profileId: profile.id, referenceBatchId: reference });
  assert.equal(live.referenceBatchId, reference, 'chosen at the start');
  assert.equal((await org.call('production.roast.getRoastBatch', { id: live.id })).body.referenceBatchId, reference);

  const back = await org.call('production.roast.setRoastReference', { id: live.id, referenceBatchId: null });
  assert.equal(back.status, 200, JSON.stringify(back.body));
  assert.equal(back.body.referenceBatchId, null, 'back to the profile’s');
  const other = await completedBatch(profile.id);
  assert.equal((await org.call('production.roast.setRoastReference', { id: other, referenceBatchId: reference })).body.referenceBatchId, reference, 'a completed batch may change its reference too');

  const stillLive = await startBatch(org, { machineId: machine.id });
  await refusedUnchanged(server.owner, org, () => org.call('production.roast.setRoastReference', { id: live.id, referenceBatchId: stillLive.id }), 409, 'reference_not_completed', 'referenceBatchId');
  assertProblem(await org.call('production.roast.setRoastReference', { id: live.id, referenceBatchId: live.id }), 400, 'invalid_input', 'referenceBatchId');
  assertProblem(await org.call('production.roast.setRoastReference', { id: live.id, referenceBatchId: 'rb_00000000000000000000000000' }), 404, 'not_found', 'referenceBatchId');
  assertProblem(await org.call('production.roast.startRoastBatch', { batchNumber: 'REF-LIVE', machineId: machine.id, chargeWeightKg: '10', referenceBatchId: stillLive.id }), 409, 'reference_not_completed', 'referenceBatchId');

  // Another organization's completed batch is no reference here: 404, as if it did not exist.
  const stranger = await server.createOrg('enterprise', 'Stranger');
  const strangerMachine = await makeRoaster(stranger);
  const theirs = await startBatch(stranger, { machineId: strangerMachine.id });
  await stranger.call('production.roast.completeRoastBatch', { id: theirs.id });
  assertProblem(await org.call('production.roast.setRoastReference', { id: live.id, referenceBatchId: theirs.id }), 404, 'not_found', 'referenceBatchId');
  const viewer = await org.createKey('viewer');
  assertProblem(await server.call(viewer, 'production.roast.setRoastReference', { id: live.id, referenceBatchId: reference }), 403, 'permission_denied');
  for (const id of [live.id, stillLive.id]) await org.call('production.roast.abortRoastBatch', { id, reason: 'test over' });
});
