import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestOrg } from '../../testing/harness.js';
import { assertProblem, assertRefusedWithout } from '../../testing/problems.js';
import { makeLocation } from '../catalog/location/tenancy.cases.js';
import { eventually, startReceiver, verifiedBy } from './testing.js';
import { SVIX_RETRY_SCHEDULE_SECONDS } from '../../config.js';
import { BUSY_ENDPOINT_SLOTS, DELIVERY_CONCURRENCY, SLOW_ENDPOINT_SLOTS } from './delivery.js';
import { verifyWebhook, WebhookVerificationError } from '../../../clients/typescript/src/index.js';

// Private addresses allowed (the receiver is on 127.0.0.1), a fast retry schedule, the real 5-day disable rule.
const server = await startTestServer({
  config: { webhooks: { allowPrivateUrls: true, retryScheduleSeconds: [0, 0.2, 0.2, 0.2], disableAfterMs: 5 * 24 * 3600 * 1000, timeoutMs: 3000 } },
});
const receiver = await startReceiver();
after(() => receiver.close());

async function endpoint(org: TestOrg, path: string, eventTypes?: string[]) {
  const res = await org.call('webhooks.createEndpoint', { url: receiver.url + path, description: `to ${path}`, ...(eventTypes ? { eventTypes } : {}) });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as { id: string; secret: string; eventTypes: string[] };
}

/**
 * The feed serves an event once every transaction older than its own has ended, cluster-wide: on a shared
 * PostgreSQL server another database's open transaction delays it. Read it until `count` events are there.
 */
const feedOf = async (org: TestOrg, input: Record<string, unknown>, count: number) =>
  eventually(async () => {
    const res = await org.call('webhooks.listEvents', input);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.items.length >= count && res.body.items;
  }, `${count} events in the feed`);

const deliveries = async (org: TestOrg, filter: Record<string, unknown>) => {
  const res = await org.call('webhooks.listDeliveries', { filter });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.items as any[];
};

test('the secret is answered once, stored encrypted, and every delivery is signed with it', async () => {
  const org = await server.createOrg();
  const created = await endpoint(org, '/ok/signed', ['catalog.location.created']);
  assert.match(created.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  const read = await org.call('webhooks.getEndpoint', { id: created.id });
  assert.equal(read.status, 200);
  assert.ok(!JSON.stringify(read.body).includes(created.secret), 'getEndpoint never shows the secret');
  const listed = await org.call('webhooks.listEndpoints', {});
  assert.ok(!JSON.stringify(listed.body).includes(created.secret.slice(6)), 'listEndpoints never shows the secret');
  const [stored] = await server.owner.query<{ secret_encrypted: string }>(`select secret_encrypted from webhook_endpoints where id = $1`, [created.id]);
  assert.ok(stored.secret_encrypted.startsWith('v1.') && !stored.secret_encrypted.includes(created.secret.slice(6, 30)), 'the stored secret is ciphertext');

  const locationId = await makeLocation(org);
  await receiver.waitFor(() => receiver.on('/ok/signed').length === 1, 'the delivery');
  const [hit] = receiver.on('/ok/signed');
  assert.ok(verifiedBy(created.secret, hit.headers, hit.body), 'the signature verifies with an independent HMAC');
  assert.ok(!verifiedBy('whsec_' + Buffer.alloc(32).toString('base64'), hit.headers, hit.body), 'another secret does not verify');
  assert.ok(!verifiedBy(created.secret, hit.headers, hit.body.replace('}', ' }')), 'a changed body does not verify');
  const envelope = JSON.parse(hit.body);
  // The typed client's helper agrees, and refuses what the independent check refuses.
  assert.deepEqual(await verifyWebhook(created.secret, hit.headers as Record<string, string>, hit.body), envelope);
  await assert.rejects(verifyWebhook(created.secret, hit.headers as Record<string, string>, hit.body + ' '), WebhookVerificationError);
  await assert.rejects(
    verifyWebhook(created.secret, hit.headers as Record<string, string>, hit.body, { now: Date.now() + 3600_000 }),
    /tolerance/,
  );
  assert.deepEqual(Object.keys(envelope).sort(), ['createdAt', 'data', 'id', 'organizationId', 'type']);
  assert.equal(envelope.type, 'catalog.location.created');
  assert.equal(envelope.organizationId, org.id);
  assert.equal(envelope.data.location.id, locationId);
  assert.equal(hit.headers['service-event-id'], envelope.id);
  assert.match(String(hit.headers['service-timestamp']), /^\d{10}$/);
  assert.ok(Math.abs(Number(hit.headers['service-timestamp']) - Date.now() / 1000) < 300, 'the timestamp is unix seconds, now');

  // The same event is in the feed, and the delivery's attempt series is listed.
  const feed = await feedOf(org, { filter: { types: ['catalog.location.created'] } }, 1);
  assert.ok(feed.some((e: any) => e.id === envelope.id), 'the delivered event is in the feed');
  const [delivery] = await eventually(async () => {
    const list = await deliveries(org, { endpointId: created.id });
    return list[0]?.status === 'succeeded' && list;
  }, 'the delivery to be recorded');
  assert.equal(delivery.eventId, envelope.id);
  assert.equal(delivery.attempts.length, 1);
  assert.equal(delivery.attempts[0].statusCode, 200);
  assert.equal(delivery.attempts[0].responseBody, 'thanks');
  assert.equal(delivery.nextAttemptAt, null);
});

test('subscriptions: exact types, prefix wildcards, and empty for everything', async () => {
  const org = await server.createOrg();
  const exact = await endpoint(org, '/ok/exact', ['catalog.location.created']);
  const wildcard = await endpoint(org, '/ok/wild', ['catalog.*']);
  const everything = await endpoint(org, '/ok/all');
  const inventoryOnly = await endpoint(org, '/ok/inventory', ['inventory.*']);
  assert.deepEqual(everything.eventTypes, []);
  const locationId = await makeLocation(org);
  const updated = await org.call('catalog.location.updateLocation', { id: locationId, name: 'Renamed' });
  assert.equal(updated.status, 200);
  const [createdEvent, updatedEvent] = await feedOf(org, { filter: { types: ['catalog.location.*'] } }, 2);
  // Deliveries are created in the event's transaction, so who gets what is settled at commit.
  const to = async (eventId: string) => (await deliveries(org, { eventId })).map((d) => d.endpointId).sort();
  assert.deepEqual(await to(createdEvent.id), [exact.id, wildcard.id, everything.id].sort());
  assert.deepEqual(await to(updatedEvent.id), [wildcard.id, everything.id].sort());
  assert.ok(!(await to(createdEvent.id)).includes(inventoryOnly.id), 'inventory.* does not match catalog events');
  await receiver.waitFor(() => receiver.on('/ok/wild').length === 2 && receiver.on('/ok/all').length === 2 && receiver.on('/ok/exact').length === 1, 'the matching deliveries');
});

test('eventTypes must name published types or prefixes; other input is refused naming the field', async () => {
  const org = await server.createOrg();
  const snapshot = () => org.call('webhooks.listEndpoints', {}).then((r) => r.body);
  await assertRefusedWithout(snapshot, () => org.call('webhooks.createEndpoint', { url: receiver.url + '/ok', eventTypes: ['catalog.location.exploded'] }), 400, 'invalid_input', 'eventTypes[0]');
  await assertRefusedWithout(snapshot, () => org.call('webhooks.createEndpoint', { url: receiver.url + '/ok', eventTypes: ['nothing.*'] }), 400, 'invalid_input', 'eventTypes[0]');
  await assertRefusedWithout(snapshot, () => org.call('webhooks.createEndpoint', { url: receiver.url + '/ok', eventTypes: ['catalog*'] }), 400, 'invalid_input', 'eventTypes[0]');
  await assertRefusedWithout(snapshot, () => org.call('webhooks.createEndpoint', { url: 'ftp://example.com/x' }), 400, 'webhook_url_refused', 'url');
  await assertRefusedWithout(snapshot, () => org.call('webhooks.createEndpoint', { url: receiver.url, secret: 'mine' }), 400, 'invalid_input', 'secret');
  const { id } = await endpoint(org, '/ok');
  assertProblem(await org.call('webhooks.rotateSecret', { id, overlapMinutes: -1 }), 400, 'invalid_input', 'overlapMinutes');
  assertProblem(await org.call('webhooks.updateEndpoint', { id, status: 'paused' }), 400, 'invalid_input', 'status');
  assertProblem(await org.call('webhooks.listEvents', { limit: 1001 }), 400, 'invalid_input', 'limit');
  assertProblem(await org.call('webhooks.listEvents', { cursor: 'bm90IGEgY3Vyc29y' }), 400, 'invalid_input', 'cursor');
  const types = await org.call('webhooks.listEventTypes', {}, { method: 'GET' });
  assert.equal(types.status, 200);
  const disabled = types.body.items.find((t: any) => t.type === 'webhooks.endpoint.disabled');
  assert.ok(disabled && disabled.payloadSchema.properties.reason, 'the catalog lists webhooks.endpoint.disabled with its payload schema');
  assert.ok(types.body.items.some((t: any) => t.type === 'catalog.location.created'), 'the catalog lists location events');
});

test('rotation: two signatures during the overlap, either verifies; 0 cuts over at once', async () => {
  const org = await server.createOrg();
  const created = await endpoint(org, '/ok/rotate', ['catalog.location.created']);
  const rotated = await org.call('webhooks.rotateSecret', { id: created.id, overlapMinutes: 60 });
  assert.equal(rotated.status, 200);
  assert.notEqual(rotated.body.secret, created.secret);
  assert.ok(rotated.body.previousSecretExpiresAt, 'the overlap end is shown');
  await makeLocation(org);
  await receiver.waitFor(() => receiver.on('/ok/rotate').length === 1, 'the delivery during the overlap');
  const during = receiver.on('/ok/rotate')[0];
  assert.equal(String(during.headers['service-signature']).split(' ').length, 2);
  assert.ok(verifiedBy(rotated.body.secret, during.headers, during.body), 'the new secret verifies');
  assert.ok(verifiedBy(created.secret, during.headers, during.body), 'the old secret verifies during the overlap');

  const cut = await org.call('webhooks.rotateSecret', { id: created.id, overlapMinutes: 0 });
  assert.equal(cut.body.previousSecretExpiresAt, null);
  await makeLocation(org);
  await receiver.waitFor(() => receiver.on('/ok/rotate').length === 2, 'the delivery after the cut-over');
  const afterCut = receiver.on('/ok/rotate')[1];
  assert.equal(String(afterCut.headers['service-signature']).split(' ').length, 1);
  assert.ok(verifiedBy(cut.body.secret, afterCut.headers, afterCut.body), 'the newest secret verifies');
  assert.ok(!verifiedBy(rotated.body.secret, afterCut.headers, afterCut.body), 'the replaced secret no longer verifies');
});

test('failures are retried on the schedule, recorded attempt by attempt; redeliver sends the same event id again', async () => {
  const org = await server.createOrg();
  const created = await endpoint(org, '/fail/2', ['catalog.location.created']);
  await makeLocation(org);
  await receiver.waitFor(() => receiver.on('/fail/2').length >= 3, 'two failures and a success');
  const [delivery] = await eventually(async () => {
    const list = await deliveries(org, { endpointId: created.id });
    return list[0]?.status === 'succeeded' && list;
  }, 'the delivery to succeed');
  assert.equal(delivery.attemptCount, 3);
  assert.deepEqual(delivery.attempts.map((a: any) => [a.attempt, a.statusCode, a.succeeded]), [[1, 500, false], [2, 500, false], [3, 200, true]]);
  assert.equal(delivery.attempts[0].responseBody.length, 1024, 'the first KB of the answer is kept');
  assert.equal(delivery.attempts[0].error, 'answered 500');
  const ids = new Set(receiver.on('/fail/2').map((r) => r.headers['service-event-id']));
  assert.equal(ids.size, 1, 'every attempt carries the same event id');
  const endpointAfter = await org.call('webhooks.getEndpoint', { id: created.id });
  assert.equal(endpointAfter.body.consecutiveFailures, 0, 'a success ends the failure run');

  const redelivered = await org.call('webhooks.redeliver', { id: delivery.id });
  assert.equal(redelivered.status, 200, JSON.stringify(redelivered.body));
  assert.equal(redelivered.body.status, 'pending');
  assert.equal(redelivered.body.eventId, delivery.eventId);
  await receiver.waitFor(() => receiver.on('/fail/2').length >= 4, 'the redelivery');
  assert.equal(receiver.on('/fail/2')[3].headers['service-event-id'], delivery.eventId);
  const again = await eventually(async () => {
    const list = await deliveries(org, { endpointId: created.id });
    return list[0]?.status === 'succeeded' && list[0].attemptCount === 4 && list[0];
  }, 'the redelivery to be recorded');
  assert.equal(again.attempts[3].succeeded, true);
});

test('the schedule is Svix’s by default', () => {
  assert.deepEqual(SVIX_RETRY_SCHEDULE_SECONDS, [0, 5, 300, 1800, 7200, 18000, 36000, 36000]);
});

test('a delivery that never succeeds ends failed after the schedule; redirects are failures, not followed', async () => {
  const org = await server.createOrg();
  const down = await endpoint(org, '/down', ['catalog.location.created']);
  const redirect = await endpoint(org, '/redirect', ['catalog.location.created']);
  await makeLocation(org);
  const [failed] = await eventually(async () => {
    const list = await deliveries(org, { endpointId: down.id });
    return list[0]?.status === 'failed' && list;
  }, 'the schedule to be spent');
  assert.equal(failed.attemptCount, 4, 'one attempt per step of the (fast) schedule');
  assert.equal(failed.nextAttemptAt, null);
  const stillActive = await org.call('webhooks.getEndpoint', { id: down.id });
  assert.equal(stillActive.body.status, 'active', 'failing for less than 5 days does not disable');
  assert.equal(stillActive.body.consecutiveFailures, 4);
  assert.ok(stillActive.body.failingSince, 'the failure run has a start');
  const [redirected] = await eventually(async () => {
    const list = await deliveries(org, { endpointId: redirect.id });
    return list[0]?.attempts.length > 0 && list;
  }, 'the redirect attempt');
  assert.equal(redirected.attempts[0].statusCode, 302);
  assert.match(redirected.attempts[0].error, /redirects are not followed/);
  assert.equal(receiver.received.filter((r) => r.path === '/ok' && r.headers['service-event-id'] === redirected.eventId).length, 0, 'the redirect target was never called');
});

test('disabling stops deliveries and emits webhooks.endpoint.disabled; re-enabling clears the count; deleted endpoints keep their history', async () => {
  const org = await server.createOrg();
  const watcher = await endpoint(org, '/ok/watcher', ['webhooks.*']);
  const target = await endpoint(org, '/ok/target', ['catalog.location.created']);
  await makeLocation(org);
  const [first] = await eventually(async () => {
    const list = await deliveries(org, { endpointId: target.id });
    return list[0]?.status === 'succeeded' && list;
  }, 'the first delivery');

  const disabled = await org.call('webhooks.updateEndpoint', { id: target.id, status: 'disabled', description: null });
  assert.equal(disabled.status, 200);
  assert.equal(disabled.body.status, 'disabled');
  assert.equal(disabled.body.disabledReason, 'manual');
  assert.equal(disabled.body.description, null);
  await receiver.waitFor(() => receiver.on('/ok/watcher').length === 1, 'the disabled event at the watcher');
  const notice = JSON.parse(receiver.on('/ok/watcher')[0].body);
  assert.equal(notice.type, 'webhooks.endpoint.disabled');
  assert.equal(notice.data.endpoint.id, target.id);
  assert.equal(notice.data.reason, 'manual');

  const locationWhileDisabled = await makeLocation(org);
  const feed = await feedOf(org, { filter: { types: ['catalog.location.created'] } }, 2);
  const eventWhileDisabled = feed.find((e: any) => e.data.location.id === locationWhileDisabled);
  assert.deepEqual(await deliveries(org, { eventId: eventWhileDisabled.id }), [], 'no delivery is queued to a disabled endpoint');
  const snapshot = async () => deliveries(org, { endpointId: target.id });
  await assertRefusedWithout(snapshot, () => org.call('webhooks.redeliver', { id: first.id }), 409, 'endpoint_not_active');

  const enabled = await org.call('webhooks.updateEndpoint', { id: target.id, status: 'active' });
  assert.equal(enabled.body.status, 'active');
  assert.equal(enabled.body.consecutiveFailures, 0);
  assert.equal(enabled.body.disabledReason, null);

  const deleted = await org.call('webhooks.deleteEndpoint', { id: target.id });
  assert.equal(deleted.status, 200);
  assert.ok(deleted.body.deletedAt, 'the answer carries the deletion time');
  assertProblem(await org.call('webhooks.getEndpoint', { id: target.id }), 404, 'not_found');
  assertProblem(await org.call('webhooks.deleteEndpoint', { id: target.id }), 404, 'not_found');
  assert.equal((await deliveries(org, { endpointId: target.id })).length, 1, 'the history stays readable');
  await makeLocation(org);
  assert.equal((await deliveries(org, { endpointId: target.id })).length, 1, 'no new delivery to a deleted endpoint');
  void watcher;
});

test('a slow endpoint does not hold up another endpoint’s deliveries', async () => {
  const org = await server.createOrg();
  await endpoint(org, '/hang/slow', ['catalog.location.created']);
  // Enough attempts to fill every slot of the worker, were one endpoint allowed to.
  for (let i = 0; i < DELIVERY_CONCURRENCY; i++) await makeLocation(org);
  await receiver.waitFor(() => receiver.on('/hang/slow').length >= SLOW_ENDPOINT_SLOTS, 'the slow endpoint to hold its share of attempts');
  await endpoint(org, '/ok/fast', ['catalog.location.updated']);
  const locationId = await makeLocation(org);
  await org.call('catalog.location.updateLocation', { id: locationId, name: 'Quick' });
  await receiver.waitFor(() => receiver.on('/ok/fast').length === 1, 'the fast endpoint’s delivery while the slow one hangs');
  // Counted open at once: attempts that time out are retried on the schedule, so arrivals add up over time.
  const held = receiver.mostOpenAtOnce('/hang/slow');
  assert.ok(held >= SLOW_ENDPOINT_SLOTS && held <= BUSY_ENDPOINT_SLOTS, `the slow endpoint never held more than its share of slots (${held} at once)`);
  receiver.releaseHung();
});

test('the feed serves every event once, in commit order, while events are written concurrently', async () => {
  const org = await server.createOrg();
  const seen: string[] = [];
  let cursor: string | undefined;
  let writing = true;
  const poll = async () => {
    const res = await org.call('webhooks.listEvents', { limit: 7, ...(cursor ? { cursor } : {}) });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    seen.push(...res.body.items.map((e: any) => e.id));
    cursor = res.body.nextCursor ?? cursor;
    return res.body.items.length;
  };
  const poller = (async () => {
    while (writing) await poll();
  })();
  await Promise.all(Array.from({ length: 8 }, async () => {
    for (let i = 0; i < 5; i++) await makeLocation(org);
  }));
  writing = false;
  await poller;
  // Until the feed has caught up with the last commit (it may lag behind transactions still open elsewhere).
  await eventually(async () => (await poll(), seen.length >= 40), 'the feed to catch up');
  const all = await server.owner.query<{ id: string }>(`select id from events where org_id = $1 order by txid, seq`, [org.id]);
  assert.equal(all.length, 40);
  assert.equal(new Set(seen).size, seen.length, 'no event was served twice');
  assert.deepEqual(seen, all.map((r) => r.id), 'every event was served, in commit order');
});

test('the feed orders by transaction id as a number: 99, 100, 1000, across powers of ten', async () => {
  const org = await server.createOrg();
  // Written by the owner with the transaction ids of long-finished transactions, in an order that neither
  // the sequence numbers nor a text sort of the ids would put right.
  for (const txid of ['1000', '99', '100']) {
    await server.owner.query(`insert into events (org_id, id, type, data, txid) values ($1, $2, 'catalog.location.created', $3, $4::xid8)`, [
      org.id,
      `evt_txid${txid}`,
      JSON.stringify({ txid }),
      txid,
    ]);
  }
  const first = await org.call('webhooks.listEvents', { limit: 1 });
  assert.deepEqual(first.body.items.map((e: any) => e.data.txid), ['99']);
  const rest = await org.call('webhooks.listEvents', { cursor: first.body.nextCursor });
  assert.deepEqual(rest.body.items.map((e: any) => e.data.txid), ['100', '1000'], 'resumed from the cursor, in numeric order');
});

test('an event committed after a later one is still served, after it (server mode)', { skip: server.kind !== 'postgres' && 'one connection: PGlite transactions never overlap' }, async () => {
  const org = await server.createOrg();
  const { writeEvent } = await import('../../events/emit.js');
  const jobs = server.app.jobs;
  let releaseEarly!: () => void;
  const early = new Promise<void>((resolve) => (releaseEarly = resolve));
  let earlyWritten!: () => void;
  const written = new Promise<void>((resolve) => (earlyWritten = resolve));
  // The early transaction starts writing first (takes its transaction id, as an operation's first write
  // does; its events are written just before its commit) and commits last.
  const earlyTx = server.app.databases.service.transaction(async (tx) => {
    await tx.query('select pg_current_xact_id()');
    await writeEvent(tx, org.id, 'catalog.location.created', { early: true });
    earlyWritten();
    await early;
  }, { orgId: org.id });
  await written;
  await makeLocation(org);
  const before = await org.call('webhooks.listEvents', {});
  assert.deepEqual(before.body.items, [], 'nothing is served while an older transaction is in flight');
  releaseEarly();
  await earlyTx;
  const afterCommit = await feedOf(org, {}, 2);
  assert.equal(afterCommit.length, 2);
  assert.deepEqual(afterCommit[0].data, { early: true });
});

test('events written together in one transaction are delivered once each and served in write order; a rolled-back transaction leaves no trace', async () => {
  const org = await server.createOrg();
  const created = await endpoint(org, '/ok/together', ['catalog.location.archived']);
  const { writeEvent } = await import('../../events/emit.js');
  const jobs = server.app.jobs;
  const service = server.app.databases.service;
  const written = await service.transaction(async (tx) => {
    const ids: string[] = [];
    for (let n = 0; n < 6; n++) ids.push((await writeEvent(tx, org.id, 'catalog.location.archived', { n })).id);
    // An event no endpoint of the organization takes: written, queues nothing.
    ids.push((await writeEvent(tx, org.id, 'catalog.location.created', { n: 6 })).id);
    return ids;
  }, { orgId: org.id });
  jobs.wake('webhookDelivery');
  await receiver.waitFor(() => receiver.on('/ok/together').length >= 6, 'the six deliveries');
  const arrived = receiver.on('/ok/together').map((r) => r.headers['service-event-id']);
  assert.deepEqual([...arrived].sort(), written.slice(0, 6).sort(), 'each subscribed event arrives, once');
  const feed = await feedOf(org, {}, 7);
  assert.deepEqual(feed.map((e: any) => e.id), written, 'the feed serves them in the order they were written');
  assert.deepEqual(feed.map((e: any) => e.data.n), [0, 1, 2, 3, 4, 5, 6]);
  const list = await deliveries(org, { endpointId: created.id });
  assert.equal(list.length, 6, 'one delivery per subscribed event');

  const rolledBack: string[] = [];
  await assert.rejects(
    service.transaction(async (tx) => {
      for (let n = 0; n < 3; n++) rolledBack.push((await writeEvent(tx, org.id, 'catalog.location.archived', { n })).id);
      throw new Error('the operation fails after emitting');
    }, { orgId: org.id }),
    /the operation fails after emitting/,
  );
  // The failed transaction never wrote its events; a later one's delivery arrives after anything it could have queued.
  const later = await service.transaction((tx) => writeEvent(tx, org.id, 'catalog.location.archived', { later: true }), { orgId: org.id });
  jobs.wake('webhookDelivery');
  await receiver.waitFor(() => receiver.on('/ok/together').some((r) => r.headers['service-event-id'] === later.id), 'the later delivery');
  const events = await server.owner.query<{ id: string }>(`select id from events where id = any($1::text[])`, [rolledBack]);
  assert.deepEqual(events, [], 'no event of the rolled-back transaction was stored');
  const queued = await server.owner.query<{ id: string }>(`select id from webhook_deliveries where event_id = any($1::text[])`, [rolledBack]);
  assert.deepEqual(queued, [], 'no delivery of the rolled-back transaction was stored');
  assert.ok(!receiver.on('/ok/together').some((r) => rolledBack.includes(String(r.headers['service-event-id']))), 'no rolled-back event was sent');
  assert.equal((await deliveries(org, { endpointId: created.id })).length, 7, 'the later event’s delivery only');
});
