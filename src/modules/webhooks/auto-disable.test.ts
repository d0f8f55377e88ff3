import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../../testing/harness.js';
import { makeLocation } from '../catalog/location/tenancy.cases.js';
import { eventually, startReceiver } from './testing.js';

// The disable rule with its 5 days shortened to nothing: the first failed attempt has been failing "long enough".
const server = await startTestServer({
  config: { webhooks: { allowPrivateUrls: true, retryScheduleSeconds: [0, 0.2, 0.2], disableAfterMs: 0, timeoutMs: 3000 } },
});
const receiver = await startReceiver();
after(() => receiver.close());

test('an endpoint failing past the rule is disabled, a webhooks.endpoint.disabled event is written, and re-enabling recovers it', async () => {
  const org = await server.createOrg();
  const watcher = await org.call('webhooks.createEndpoint', { url: `${receiver.url}/ok/watcher`, eventTypes: ['webhooks.endpoint.disabled'] });
  const failing = await org.call('webhooks.createEndpoint', { url: `${receiver.url}/down`, eventTypes: ['catalog.location.created'] });
  assert.equal(failing.status, 200);
  await makeLocation(org);
  const disabled = await eventually(async () => {
    const res = await org.call('webhooks.getEndpoint', { id: failing.body.id });
    return res.body.status === 'disabled' && res.body;
  }, 'the endpoint to be disabled');
  assert.equal(disabled.disabledReason, 'failing');
  assert.equal(disabled.consecutiveFailures, 1);
  assert.ok(disabled.disabledAt, 'the disabling time is shown');

  // The event is in the feed and reaches the other endpoint subscribed to it.
  // (The feed may lag behind transactions still open elsewhere on a shared server.)
  const feed = { body: { items: await eventually(async () => {
    const res = await org.call('webhooks.listEvents', { filter: { types: ['webhooks.*'] } });
    return res.body.items.length > 0 && res.body.items;
  }, 'the event in the feed') } };
  assert.equal(feed.body.items.length, 1);
  assert.equal(feed.body.items[0].data.reason, 'failing');
  assert.equal(feed.body.items[0].data.endpoint.id, failing.body.id);
  await receiver.waitFor(() => receiver.on('/ok/watcher').length === 1, 'the watcher to hear of it');
  assert.equal(JSON.parse(receiver.on('/ok/watcher')[0].body).id, feed.body.items[0].id);

  // The retry that was scheduled is canceled with the endpoint.
  const [delivery] = await eventually(async () => {
    const res = await org.call('webhooks.listDeliveries', { filter: { endpointId: failing.body.id } });
    return res.body.items[0]?.status === 'canceled' && res.body.items;
  }, 'the pending retry to be canceled');
  assert.equal(delivery.attemptCount, 1);

  const enabled = await org.call('webhooks.updateEndpoint', { id: failing.body.id, status: 'active' });
  assert.equal(enabled.body.status, 'active');
  assert.equal(enabled.body.consecutiveFailures, 0);
  assert.equal(enabled.body.failingSince, null);
  void watcher;
});
