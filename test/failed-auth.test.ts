import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startTestServer } from '../src/testing/harness.js';

// A budget of 3 failed authentications per address, under a window name of its own so runs sharing a
// Redis do not count each other's.
const server = await startTestServer({ failedAuthRateWindows: [{ name: `failed_auth_${randomBytes(4).toString('hex')}`, points: 3, seconds: 60 }] });
const org = await server.createOrg();

const list = (key: string) => server.request('/rpc/v1/catalog.location.listLocations', { headers: { authorization: `Bearer ${key}` } });

test('an address that keeps failing to authenticate is answered 429 on every surface until the window passes', async () => {
  const statuses = [];
  for (let i = 0; i < 4; i++) statuses.push((await list(`fc_live_unknown${i}`)).status);
  assert.deepEqual(statuses, [401, 401, 401, 401], 'the budget is spent by failures, each still answered 401');

  const blocked = await list(`fc_live_unknown_again`);
  assert.equal(blocked.status, 429);
  const problem = await blocked.json();
  assert.equal(problem.code, 'rate_limited');
  assert.match(problem.detail, /failed authentications/);
  assert.ok(Number(blocked.headers.get('retry-after')) > 0, 'Retry-After says when to come back');

  // The block is the address's: a valid key sent from it waits too, and so does another surface.
  assert.equal((await list(org.key)).status, 429, 'a valid key from the blocked address');
  assert.equal((await server.request('/ingest/v1/machines/m_x/telemetry', { method: 'POST', headers: { authorization: 'Bearer x' } })).status, 429);
});
