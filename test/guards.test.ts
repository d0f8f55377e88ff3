import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../src/testing/harness.js';
import { machineWithToken } from '../src/modules/production/roast/telemetry/testing.js';

// The guard chain (src/http/guards.ts) as the surfaces compose it: authenticate → limit → grant, all before a
// body is read, each surface with its own credentials and budget.
const server = await startTestServer({
  rateWindows: [
    { name: 'burst', points: 1000, seconds: 10 },
    { name: 'sustained', points: 1000, seconds: 60 },
  ],
});
const org = await server.createOrg();

const post = (path: string, key: string, body: string) =>
  server.request(path, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body });

test('/rpc/v1/: the grant step runs before the body is read, so a caller without the permission learns nothing from it', async () => {
  const viewer = await org.createKey('viewer');
  const refused = await post('/rpc/v1/catalog.location.createLocation', viewer, '{"name": ');
  assert.equal(refused.status, 403);
  const problem = await refused.json();
  assert.deepEqual([problem.code, problem.permission], ['permission_denied', 'catalog.location.write']);
  assert.match(refused.headers.get('ratelimit')!, /^"burst";r=\d+;t=\d+$/, 'the limit step counted it before the grant refused it');
  // Granted, the same body is read and refused for its form.
  assert.equal((await (await post('/rpc/v1/catalog.location.createLocation', org.key, '{"name": ')).json()).code, 'malformed_json');
});

test('each surface takes its own kind of credential and counts it in its own budget', async () => {
  const { token: bridge } = await machineWithToken(org, `GUARD-${Date.now()}`);
  // A bridge token is refused on the API, an API key on ingest: authentication refuses before anything is counted.
  const onApi = await post('/rpc/v1/catalog.location.listLocations', bridge, '{}');
  assert.deepEqual([onApi.status, (await onApi.json()).code], [403, 'bridge_token_not_allowed']);
  assert.equal(onApi.headers.get('ratelimit'), null, 'a refused credential is not counted');
  const onIngest = await post('/ingest/v1/roast/rb_00000000000000000000000000/samples', org.key, '{}');
  assert.deepEqual([onIngest.status, (await onIngest.json()).code], [403, 'bridge_token_required']);
  // The bridge on ingest draws on the ingest budget (its policy), not the API's.
  const ingest = await post('/ingest/v1/roast/rb_00000000000000000000000000/samples', bridge, '{}');
  assert.equal(ingest.status, 404);
  assert.equal(ingest.headers.get('ratelimit-policy'), '"burst";q=300;w=10, "sustained";q=1200;w=60');
  // A ticket request is an API request: the API's budget, and the grant of production.roast.read.
  const tickets = await post('/stream/v1/roast/rb_00000000000000000000000000/tickets', org.key, '{}');
  assert.equal(tickets.status, 404);
  assert.equal(tickets.headers.get('ratelimit-policy'), '"burst";q=1000;w=10, "sustained";q=1000;w=60');
  const customerService = await org.createKey('viewer', ['orders.*']);
  const denied = await post('/stream/v1/roast/rb_00000000000000000000000000/tickets', customerService, '{}');
  assert.deepEqual([denied.status, (await denied.json()).permission], [403, 'production.roast.read']);
  // The public pages take no credential and count the client address, with the same headers.
  const page = await server.request('/c/AAAAAAAAAAAAAAAAAAAAAA');
  assert.equal(page.status, 404);
  assert.equal(page.headers.get('ratelimit-policy'), '"burst";q=60;w=10, "sustained";q=300;w=60');
  assert.match(page.headers.get('content-security-policy')!, /default-src 'none'/);
});
