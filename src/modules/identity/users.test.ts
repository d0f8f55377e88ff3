import { test } from 'node:test';
import { createHash, randomBytes } from 'node:crypto';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../testing/harness.js';
import { assertProblem } from '../../testing/problems.js';
import { makeLocation } from '../catalog/location/tenancy.cases.js';
import { addMembership, createUser, resetPassword } from './service.js';

let offsetMs = 0;
const clock = () => new Date(Date.now() + offsetMs);
// Windows named per run: with REDIS_URL the login throttles are shared by every server on that Redis (per address: 127.0.0.1).
const run = randomBytes(4).toString('hex');
const server = await startTestServer({
  clock,
  loginWindows: { account: [{ name: `account-${run}`, points: 1000, seconds: 900 }], address: [{ name: `address-${run}`, points: 1000, seconds: 900 }] },
});
const roastery = await server.createOrg('enterprise', 'Roastery');
const cafe = await server.createOrg('enterprise', 'Cafe');
const stranger = await server.createOrg('enterprise', 'Stranger');

const PASSWORD = 'correct horse battery staple';
let emails = 0;
const email = () => `user${++emails}.${Date.now()}@example.com`;

async function login(target: TestServer, body: Record<string, unknown>) {
  const res = await target.request('/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

async function sessionFor(role: 'viewer' | 'admin' = 'viewer', target = server, orgId = roastery.id) {
  const address = email();
  const { userId } = await createUser(target.owner, { email: address, orgId, role, password: PASSWORD });
  const res = await login(target, { email: address, password: PASSWORD });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return { userId, email: address, token: res.body.token as string, body: res.body };
}

const as = (token: string, org: string | undefined, operation: string, input: unknown = {}) =>
  server.call(token, operation, input, { headers: org ? { 'x-service-org': org } : {} });

test('login answers a session token, its expiry and the user’s organizations', async () => {
  const { userId, token, body, email: address } = await sessionFor('viewer');
  await addMembership(server.owner, { userId, orgId: cafe.id, role: 'admin' });
  assert.match(token, /^fcu_/);
  assert.equal(new Date(body.expiresAt).getTime() - Date.now() > 11 * 3600_000, true);
  assert.deepEqual(body.organizations, [{ id: roastery.id, name: 'Roastery', role: 'viewer' }]);
  const again = await login(server, { email: address.toUpperCase(), password: PASSWORD });
  assert.deepEqual(
    again.body.organizations.map((o: { id: string; role: string }) => [o.id, o.role]).sort(),
    [[roastery.id, 'viewer'], [cafe.id, 'admin']].sort(),
  );
  assert.equal(again.headers.get('cache-control'), 'no-store');
  const hashes = await server.owner.query<{ token_hash: string }>(`select token_hash from user_sessions where user_id = $1`, [userId]);
  assert.ok(hashes.some((h) => h.token_hash === createHash('sha256').update(token).digest('hex')), 'the session is stored as a SHA-256');
  assert.ok(!hashes.some((h) => h.token_hash === token), 'never the token itself');
  const [user] = await server.owner.query<{ password_hash: string }>(`select password_hash from users where id = $1`, [userId]);
  assert.match(user.password_hash, /^scrypt\$32768\$8\$1\$/);
});

test('a user credential must name one of its organizations and acts with that membership’s role', async () => {
  const { userId, token } = await sessionFor('viewer');
  await addMembership(server.owner, { userId, orgId: cafe.id, role: 'admin' });
  assertProblem(await as(token, undefined, 'catalog.location.listLocations'), 400, 'organization_required');
  const notMember = await as(token, stranger.id, 'catalog.location.listLocations');
  assertProblem(notMember, 404, 'organization_not_found');
  const nowhere = await as(token, 'org_0000000000nowhere00000000', 'catalog.location.listLocations');
  assert.equal(nowhere.status, 404);
  assert.equal(nowhere.body.detail.replace(/org_\w+/, '<org>'), notMember.body.detail.replace(/org_\w+/, '<org>'), 'no member and no organization answer alike');

  const create = { name: 'Bar', code: `B${emails}`, kind: 'cafe' };
  assertProblem(await as(token, roastery.id, 'catalog.location.createLocation', create), 403, 'permission_denied');
  assert.equal((await as(token, roastery.id, 'catalog.location.listLocations')).status, 200);
  const made = await as(token, cafe.id, 'catalog.location.createLocation', create);
  assert.equal(made.status, 200, 'an admin membership writes');
  const visible = await cafe.call('catalog.location.getLocation', { id: made.body.id });
  assert.equal(visible.status, 200, 'it acted in the organization it named');
});

test('a user sees only the organization it acts in', async () => {
  const { userId, token } = await sessionFor('viewer');
  await addMembership(server.owner, { userId, orgId: cafe.id, role: 'viewer' });
  const cafeSite = await makeLocation(cafe);
  assertProblem(await as(token, roastery.id, 'catalog.location.getLocation', { id: cafeSite }), 404, 'not_found');
  assert.equal((await as(token, cafe.id, 'catalog.location.getLocation', { id: cafeSite })).status, 200);
});

test('logout ends the session at once; sessions expire after 12 hours by the service clock', async () => {
  const first = await sessionFor();
  const logout = await server.request('/api/auth/logout', { method: 'POST', headers: { authorization: `Bearer ${first.token}` } });
  assert.equal(logout.status, 204);
  assertProblem(await as(first.token, roastery.id, 'catalog.location.listLocations'), 401, 'unauthenticated');
  const doc = await (await server.request('/openapi.json')).json();
  assert.ok(doc.paths['/api/auth/logout'].post.responses['204'], 'logout is documented in /docs');
  const again = await server.request('/api/auth/logout', { method: 'POST', headers: { authorization: `Bearer ${first.token}` } });
  assert.equal(again.status, 401);

  const second = await sessionFor();
  offsetMs += 12 * 3600_000 + 1000;
  try {
    assertProblem(await as(second.token, roastery.id, 'catalog.location.listLocations'), 401, 'unauthenticated');
  } finally {
    offsetMs -= 12 * 3600_000 + 1000;
  }
});

test('wrong passwords are refused alike; malformed logins are 400 naming the field', async () => {
  const { email: address } = await sessionFor();
  const wrong = await login(server, { email: address, password: 'not the password at all' });
  assertProblem(wrong, 401, 'unauthenticated');
  const unknown = await login(server, { email: 'nobody@example.com', password: 'not the password at all' });
  assert.equal(unknown.body.detail, wrong.body.detail, 'an unknown email answers as a wrong password');
  assertProblem(await login(server, { email: address }), 400, 'invalid_input', 'password');
  assertProblem(await login(server, { email: address, password: PASSWORD, remember: true }), 400, 'invalid_input', 'remember');
});

test('one-time login links and password resets', async () => {
  const address = email();
  const { userId, loginToken } = await createUser(server.owner, { email: address, orgId: roastery.id, role: 'viewer' });
  assert.match(loginToken ?? '', /^fcl_/);
  assertProblem(await login(server, { email: address, password: PASSWORD }), 401, 'unauthenticated');
  const first = await login(server, { loginToken });
  assert.equal(first.status, 200, JSON.stringify(first.body));
  assertProblem(await login(server, { loginToken }), 401, 'unauthenticated');
  await resetPassword(server.owner, { userId, password: PASSWORD });
  assert.equal((await login(server, { email: address, password: PASSWORD })).status, 200);
  const { loginToken: link } = await resetPassword(server.owner, { userId });
  assertProblem(await login(server, { email: address, password: PASSWORD }), 401, 'unauthenticated');
  assert.equal((await login(server, { loginToken: link })).status, 200);
  await assert.rejects(createUser(server.owner, { email: address.toUpperCase(), orgId: cafe.id, role: 'viewer' }), /exists already/);
  await assert.rejects(createUser(server.owner, { email: email(), orgId: cafe.id, role: 'viewer', password: 'short' }), /12 to 1024/);
});

test('login is slowed per account and per address', async () => {
  const limited = await startTestServer({
    clock,
    loginWindows: { account: [{ name: `account-small-${run}`, points: 3, seconds: 900 }], address: [{ name: `address-small-${run}`, points: 6, seconds: 900 }] },
  });
  const org = await limited.createOrg();
  const a = email();
  const b = email();
  await createUser(limited.owner, { email: a, orgId: org.id, role: 'viewer', password: PASSWORD });
  await createUser(limited.owner, { email: b, orgId: org.id, role: 'viewer', password: PASSWORD });
  for (let i = 0; i < 3; i++) assertProblem(await login(limited, { email: a, password: 'wrong password here' }), 401, 'unauthenticated');
  const throttled = await login(limited, { email: a, password: PASSWORD });
  assertProblem(throttled, 429, 'rate_limited');
  assert.ok(Number(throttled.headers.get('retry-after')) > 0, 'Retry-After says how long');
  assert.equal((await login(limited, { email: b, password: PASSWORD })).status, 200, 'another account is not slowed by it');
  assert.equal((await login(limited, { email: b, password: PASSWORD })).status, 200);
  // Six attempts from this address so far: the address budget is spent, whichever account is tried.
  assertProblem(await login(limited, { email: email(), password: PASSWORD }), 429, 'rate_limited');
});

test('rate limits count per user, whichever session and organization it uses', async () => {
  const limited = await startTestServer({ clock, rateWindows: [{ name: 'burst', points: 3, seconds: 60 }] });
  const one = await limited.createOrg();
  const two = await limited.createOrg();
  const { userId, token } = await sessionFor('viewer', limited, one.id);
  await addMembership(limited.owner, { userId, orgId: two.id, role: 'viewer' });
  const address = (await limited.owner.query<{ email: string }>(`select email from users where id = $1`, [userId]))[0].email;
  const second = (await login(limited, { email: address, password: PASSWORD })).body.token;
  const call = (t: string, org: string) => limited.call(t, 'catalog.location.listLocations', {}, { headers: { 'x-service-org': org } });
  assert.equal((await call(token, one.id)).status, 200);
  assert.equal((await call(second, two.id)).status, 200);
  assert.equal((await call(token, two.id)).status, 200);
  assertProblem(await call(second, one.id), 429, 'rate_limited');
  assert.equal((await limited.call(one.key, 'catalog.location.listLocations', {})).status, 200, 'the organization’s API key has its own budget');
});
