import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startTestServer } from '../src/testing/harness.js';
import { budgetWindows } from '../src/ratelimit/budgets.js';

// The service's own budget, under a window name of its own so runs sharing a Redis do not count each other's.
const [window] = budgetWindows('failed_auth');
const server = await startTestServer({ failedAuthRateWindows: [{ ...window, name: `failed_auth_${randomBytes(4).toString('hex')}` }] });
const org = await server.createOrg();

const list = (key: string) => server.request('/rpc/v1/catalog.location.listLocations', { headers: { authorization: `Bearer ${key}` } });

test('an address that keeps failing to authenticate is answered 429 on every surface until the window passes', async () => {
  assert.equal(window.points, 30, 'the README says 30 answers of 401 a minute');
  assert.equal(window.seconds, 60);
  const answers = [];
  for (let i = 0; i <= window.points; i++) answers.push(await list(`fc_live_unknown${i}`));
  assert.deepEqual(
    answers.map((a) => a.status),
    [...Array(window.points).fill(401), 429],
    'exactly the budget of failures is answered 401; the failure past it is 429',
  );
  const refused = answers.at(-1)!;
  assert.equal(refused.headers.get('www-authenticate'), null, 'the 429 does not ask for a credential');
  assert.equal((await refused.json()).code, 'rate_limited');
  assert.ok(Number(refused.headers.get('retry-after')) > 0, 'the 429 says when to retry');

  const blocked = await list(`fc_live_unknown_again`);
  assert.equal(blocked.status, 429, 'the block holds without looking the credential up');
  assert.match(blocked.headers.get('content-type') ?? '', /application\/problem\+json/);
  const problem = await blocked.json();
  assert.equal(problem.code, 'rate_limited');
  assert.match(problem.detail, /failed authentications/);
  assert.ok(Number(blocked.headers.get('retry-after')) > 0, 'Retry-After says when to come back');

  // The block is the address's: a valid key sent from it waits too, and so does another surface.
  assert.equal((await list(org.key)).status, 429, 'a valid key from the blocked address');
  assert.equal((await server.request('/ingest/v1/machines/m_x/telemetry', { method: 'POST', headers: { authorization: 'Bearer x' } })).status, 429);
});
