import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../../config.js';
import { startTestServer } from '../../testing/harness.js';
import { makeLocation } from '../catalog/location/tenancy.cases.js';
import * as repo from './repository.js';
import { eventually } from './testing.js';

// The delivery queue's lease, driven by hand: this server's own workers are stopped, so only the test claims.
const server = await startTestServer({ config: { webhooks: { ...loadConfig().webhooks, allowPrivateUrls: true } } });
await server.app.jobs.stop();

const owner = server.app.databases.owner;
const service = server.app.databases.service;

/** A new organization with one endpoint taking catalog.location.created, and `locations` events for it (so as many due deliveries). */
async function dueDeliveries(path: string, locations: number) {
  const org = await server.createOrg();
  const created = await org.call('webhooks.createEndpoint', { url: `http://127.0.0.1:9/${path}`, eventTypes: ['catalog.location.created'] });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  for (let i = 0; i < locations; i++) await makeLocation(org);
  return { org, endpointId: created.body.id as string };
}

const succeeded = (startedAt = new Date()): repo.AttemptResult => ({ startedAt, latencyMs: 3, statusCode: 200, succeeded: true, responseBody: 'ok', error: null });

test('a claim leases due deliveries with their endpoint and event; an expired lease is claimed again under a new token, and the old token records nothing', async () => {
  const { org, endpointId } = await dueDeliveries('leased', 3);

  const first = await repo.claimDueDeliveries(owner, 10, 1);
  assert.equal(first.length, 3, 'the three due deliveries are leased');
  // (The feed may lag behind transactions still open elsewhere on a shared server.)
  const feed = await eventually(async () => {
    const res = await org.call('webhooks.listEvents', { filter: { types: ['catalog.location.created'] } });
    return res.body.items.length === 3 && res.body.items;
  }, 'the three events in the feed');
  for (const { target, event } of first) {
    assert.equal(target.orgId, org.id);
    assert.equal(target.endpointId, endpointId);
    assert.equal(target.url, 'http://127.0.0.1:9/leased');
    assert.deepEqual(event, feed.find((e: { id: string }) => e.id === target.eventId), 'the event comes with its delivery, as the feed serves it');
  }
  assert.deepEqual(await repo.claimDueDeliveries(owner, 10, 1), [], 'leased deliveries are not claimed twice');

  await sleep(1100);
  const again = await repo.claimDueDeliveries(owner, 10, 30);
  assert.deepEqual(again.map((a) => a.target.deliveryId).sort(), first.map((a) => a.target.deliveryId).sort(), 'expired leases are claimed again');
  for (const a of again) assert.notEqual(a.target.token, first.find((f) => f.target.deliveryId === a.target.deliveryId)!.target.token, 'under a new token');

  const [stale, current] = [first[0].target, again.find((a) => a.target.deliveryId === first[0].target.deliveryId)!.target];
  const recordedStale = await service.transaction((tx) => repo.recordSuccesses(tx, org.id, [{ deliveryId: stale.deliveryId, token: stale.token, result: succeeded() }]), { orgId: org.id });
  assert.equal(recordedStale.size, 0, 'the expired lease no longer owns the delivery');
  const recorded = await service.transaction((tx) => repo.recordSuccesses(tx, org.id, [{ deliveryId: current.deliveryId, token: current.token, result: succeeded() }]), { orgId: org.id });
  assert.deepEqual([...recorded], [current.deliveryId]);
  const listed = await org.call('webhooks.listDeliveries', { filter: { endpointId, status: 'succeeded' } });
  assert.deepEqual(listed.body.items.map((d: { id: string }) => d.id), [current.deliveryId]);
  assert.equal(listed.body.items[0].attempts.length, 1, 'one attempt recorded');
});

test('a deferred delivery is due again later without an attempt counted; a deferral under a stale token moves nothing', async () => {
  const { org, endpointId } = await dueDeliveries('deferred', 1);
  const [{ target }] = await repo.claimDueDeliveries(owner, 10, 30);
  const later = new Date(Date.now() + 60_000);
  await service.transaction((tx) => repo.deferDeliveries(tx, org.id, [{ deliveryId: target.deliveryId, token: 'not-the-lease' }], later), { orgId: org.id });
  assert.deepEqual(await repo.claimDueDeliveries(owner, 10, 30), [], 'a stale deferral leaves the lease in place');
  await service.transaction((tx) => repo.deferDeliveries(tx, org.id, [{ deliveryId: target.deliveryId, token: target.token }], later), { orgId: org.id });
  const [listed] = (await org.call('webhooks.listDeliveries', { filter: { endpointId } })).body.items;
  assert.equal(listed.status, 'pending');
  assert.equal(listed.attemptCount, 0, 'no attempt counted');
  assert.equal(new Date(listed.nextAttemptAt).getTime(), later.getTime(), 'due at the deferred time');
  assert.deepEqual(await repo.claimDueDeliveries(owner, 10, 30), [], 'not due before then, though its lease has ended');
});

test('claims made at once lease disjoint deliveries, and together all that are due', async () => {
  await dueDeliveries('concurrent', 12);
  // On PostgreSQL these run on separate connections at once (SKIP LOCKED); on PGlite one after the other.
  const claims = await Promise.all([1, 2, 3].map(() => repo.claimDueDeliveries(owner, 5, 30)));
  const ids = claims.flat().map((c) => c.target.deliveryId);
  assert.equal(new Set(ids).size, ids.length, 'no delivery leased twice');
  assert.equal(ids.length, 12, 'every due delivery leased by one of the claims');
});
