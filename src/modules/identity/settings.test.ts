import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startTestServer } from '../../testing/harness.js';
import { assertProblem, assertRefusedWithout } from '../../testing/problems.js';
import { machineWithToken, watchStream } from '../production/roast/telemetry/testing.js';
import { makeApiKey, makeMember } from './tenancy.cases.js';

// Windows named per run: with REDIS_URL the login throttles are shared by every server on that Redis.
const run = randomBytes(4).toString('hex');
const server = await startTestServer({
  loginWindows: { account: [{ name: `account-${run}`, points: 1000, seconds: 900 }], address: [{ name: `address-${run}`, points: 1000, seconds: 900 }] },
});
const org = await server.createOrg('enterprise', 'Settings Roastery');

/** Signs in with an invitation's one-time login token; answers the session token. */
async function signIn(loginToken: string | null): Promise<string> {
  assert.ok(loginToken, 'a new user is invited with a one-time login token');
  const res = await server.request('/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ loginToken }) });
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  return body.token as string;
}

const as = (token: string, orgId: string, operation: string, input: unknown = {}) => server.call(token, operation, input, { headers: { 'x-service-org': orgId } });
const keyCount = async (orgId: string) => (await server.owner.query<{ n: number }>(`select count(*)::int as n from credentials where org_id = $1`, [orgId]))[0].n;
const memberships = (orgId: string) => server.owner.query(`select user_id, role from memberships where org_id = $1 order by user_id`, [orgId]);

test('a key created in settings works at once with its role and scopes; its secret is answered once and never listed', async () => {
  const created = await org.call('identity.createApiKey', { role: 'roaster', scopes: ['production.*', 'catalog.location.read'], label: 'Floor tablet' });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  assert.match(created.body.apiKey, /^fck_/);
  assert.deepEqual([created.body.role, created.body.scopes, created.body.label, created.body.revokedAt], ['roaster', ['production.*', 'catalog.location.read'], 'Floor tablet', null]);

  const key = created.body.apiKey as string;
  assert.equal((await server.call(key, 'catalog.location.listLocations')).status, 200, 'the new key works at once');
  assertProblem(await server.call(key, 'inventory.green.listGreenLots'), 403, 'permission_denied');

  const listed = await org.call('identity.listApiKeys', { filter: { includeRevoked: true } });
  assert.equal(listed.status, 200);
  const row = listed.body.items.find((k: { id: string }) => k.id === created.body.id);
  assert.deepEqual(Object.keys(row).sort(), ['createdAt', 'id', 'label', 'revokedAt', 'role', 'scopes']);
  assert.ok(!listed.text!.includes(key) && !listed.text!.includes(key.slice(4)), 'the secret is never listed');
  const [stored] = await server.owner.query<{ secret_hash: string }>(`select secret_hash from credentials where id = $1`, [created.body.id]);
  assert.ok(stored.secret_hash !== key && !stored.secret_hash.includes(key.slice(4)), 'only a hash is stored');

  assertProblem(await org.call('identity.createApiKey', { role: 'roaster', scopes: ['coffee.*'] }), 400, 'invalid_input', 'scopes');
  assertProblem(await org.call('identity.createApiKey', { role: 'cafe', scopes: ['production.*'] }), 400, 'invalid_input', 'scopes');
});

test('only owners and admins manage settings; a key never holds more than its creator; only an owner makes owners', async () => {
  const viewer = await org.createKey('viewer');
  const roaster = await org.createKey('roaster');
  const admin = await org.createKey('admin');
  for (const [operation, input] of [
    ['identity.createApiKey', { role: 'viewer' }],
    ['identity.listApiKeys', {}],
    ['identity.listMembers', {}],
    ['identity.addMember', { email: 'someone@roastery.example', role: 'viewer' }],
    ['identity.renameOrganization', { name: 'Taken over' }],
    ['identity.getOrganization', {}],
  ] as const) {
    for (const key of [viewer, roaster]) {
      await assertRefusedWithout(() => Promise.all([keyCount(org.id), memberships(org.id)]), () => server.call(key, operation, input), 403, 'permission_denied');
    }
  }
  const admins = await server.call(admin, 'identity.createApiKey', { role: 'roaster' });
  assert.equal(admins.status, 200, 'an admin creates keys');
  await assertRefusedWithout(() => keyCount(org.id), () => server.call(admin, 'identity.createApiKey', { role: 'owner' }), 403, 'permission_denied');
  // An admin key narrowed to the settings cannot mint a key that reads the inventory.
  const narrowed = await org.createKey('admin', ['webhooks.*']);
  await assertRefusedWithout(() => keyCount(org.id), () => server.call(narrowed, 'identity.createApiKey', { role: 'viewer' }), 403, 'permission_denied');
  assert.equal((await server.call(narrowed, 'identity.createApiKey', { role: 'viewer', scopes: ['webhooks.read'] })).status, 200, 'within its own scopes it may');
  const ownerKey = await org.call('identity.createApiKey', { role: 'owner', label: 'second owner' });
  assert.equal(ownerKey.status, 200, 'an owner creates owner keys');
  await assertRefusedWithout(() => keyCount(org.id), () => server.call(admin, 'identity.revokeApiKey', { id: ownerKey.body.id }), 403, 'permission_denied');
  await assertRefusedWithout(() => memberships(org.id), () => server.call(admin, 'identity.addMember', { email: `boss.${run}@roastery.example`, role: 'owner' }), 403, 'permission_denied');
});

test('a key revoked in settings is refused at once and the stream open with it ends; revoking again is 409', async () => {
  const { machineId } = await machineWithToken(org, `RV${run}`);
  const batch = await org.call('production.roast.startRoastBatch', { batchNumber: `RV-${run}`, machineId, chargeWeightKg: '12' });
  assert.equal(batch.status, 200, JSON.stringify(batch.body));
  const { id, apiKey } = await makeApiKey(org, 'viewer');
  const streamUrl = `${server.url}/stream/v1/roast/${batch.body.id}`;
  const revokedStream = await watchStream(streamUrl, { authorization: `Bearer ${apiKey}` });
  const keptStream = await watchStream(streamUrl, { authorization: `Bearer ${org.key}` });
  assert.equal(revokedStream.status, 200, JSON.stringify(revokedStream.problem));
  assert.equal((await server.call(apiKey, 'catalog.location.listLocations')).status, 200, 'the key works (and is now cached)');

  const revoked = await org.call('identity.revokeApiKey', { id });
  assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
  assert.ok(revoked.body.revokedAt, 'answers the revoked key');
  assertProblem(await server.call(apiKey, 'catalog.location.listLocations'), 401, 'unauthenticated');
  await revokedStream.until((w) => w.ended, 15_000);
  assert.ok(revokedStream.messages.some((m) => m.event === 'closed'), 'the stream says why it ends');
  assert.equal(keptStream.ended, false, 'another credential’s stream stays open');
  keptStream.close();

  assertProblem(await org.call('identity.revokeApiKey', { id }), 409, 'api_key_revoked');
  assertProblem(await org.call('identity.revokeApiKey', { id: 'key_0000000000000000000000000' }), 404, 'not_found');
  const active = await org.call('identity.listApiKeys', {});
  assert.ok(!active.body.items.some((k: { id: string }) => k.id === id), 'revoked keys are left out unless asked for');
  await org.call('production.roast.abortRoastBatch', { id: batch.body.id, reason: 'test over' });
});

test('members: invited by email, signed in, their role changed and their membership removed; the organization keeps its last owner', async () => {
  const shop = await server.createOrg('free', 'Small Roastery');
  // The first owner is invited with the organization's owner key; a free plan manages its people too.
  const first = await makeMember(shop, 'owner');
  const ownerSession = await signIn(first.loginToken);
  assertProblem(await shop.call('identity.addMember', { email: first.email.toUpperCase(), role: 'viewer' }), 409, 'already_member', 'email');
  assertProblem(await shop.call('identity.addMember', { email: 'not an email', role: 'viewer' }), 400, 'invalid_input', 'email');

  // The owner revokes the bootstrap key; from then on the owner membership is the last owner.
  const keys = await as(ownerSession, shop.id, 'identity.listApiKeys');
  const bootstrap = keys.body.items.find((k: { role: string }) => k.role === 'owner');
  assert.equal((await as(ownerSession, shop.id, 'identity.revokeApiKey', { id: bootstrap.id })).status, 200);
  await assertRefusedWithout(() => memberships(shop.id), () => as(ownerSession, shop.id, 'identity.setMemberRole', { userId: first.userId, role: 'admin' }), 409, 'last_owner');
  await assertRefusedWithout(() => memberships(shop.id), () => as(ownerSession, shop.id, 'identity.removeMember', { userId: first.userId }), 409, 'last_owner');
  const lastKey = await as(ownerSession, shop.id, 'identity.createApiKey', { role: 'owner' });
  assert.equal((await as(ownerSession, shop.id, 'identity.revokeApiKey', { id: lastKey.body.id })).status, 200, 'an owner key goes while an owner membership stays');

  // A second member, invited as roaster, acts with that role, then with the one it is given.
  const second = await as(ownerSession, shop.id, 'identity.addMember', { email: `roaster.${run}@small.example`, role: 'roaster' });
  assert.equal(second.status, 200, JSON.stringify(second.body));
  assert.equal(second.body.hasPassword, false);
  const roasterSession = await signIn(second.body.loginToken);
  assertProblem(await as(roasterSession, shop.id, 'identity.listMembers'), 403, 'permission_denied');
  const promoted = await as(ownerSession, shop.id, 'identity.setMemberRole', { userId: second.body.userId, role: 'admin' });
  assert.equal(promoted.body.role, 'admin');
  const listed = await as(roasterSession, shop.id, 'identity.listMembers');
  assert.equal(listed.status, 200, 'the same session acts as admin at once');
  assert.deepEqual(listed.body.items.map((m: { email: string; role: string }) => m.role).sort(), ['admin', 'owner']);
  assertProblem(await as(roasterSession, shop.id, 'identity.setMemberRole', { userId: first.userId, role: 'viewer' }), 403, 'permission_denied');
  assertProblem(await as(roasterSession, shop.id, 'identity.removeMember', { userId: first.userId }), 403, 'permission_denied');

  // With a second owner, the first may step down.
  assert.equal((await as(ownerSession, shop.id, 'identity.setMemberRole', { userId: second.body.userId, role: 'owner' })).status, 200);
  assert.equal((await as(ownerSession, shop.id, 'identity.setMemberRole', { userId: first.userId, role: 'viewer' })).body.role, 'viewer');
  const removed = await as(roasterSession, shop.id, 'identity.removeMember', { userId: first.userId });
  assert.equal(removed.status, 200, JSON.stringify(removed.body));
  assertProblem(await as(ownerSession, shop.id, 'catalog.location.listLocations'), 404, 'organization_not_found');
  assertProblem(await as(roasterSession, shop.id, 'identity.removeMember', { userId: first.userId }), 404, 'not_found', 'userId');
});

test('the organization is renamed in settings', async () => {
  const renamed = await org.call('identity.renameOrganization', { name: '  Blue Hill Roasters  ' });
  assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
  assert.deepEqual([renamed.body.id, renamed.body.name, renamed.body.plan], [org.id, 'Blue Hill Roasters', 'enterprise']);
  assert.equal((await org.call('identity.getOrganization')).body.name, 'Blue Hill Roasters');
  assertProblem(await org.call('identity.renameOrganization', { name: '   ' }), 400, 'invalid_input', 'name');
  assertProblem(await org.call('identity.renameOrganization', { name: 'x'.repeat(201) }), 400, 'invalid_input', 'name');
});
