import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createPublicKey, randomBytes, verify as verifySignature } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, importPKCS8 } from 'jose';
import { startTestServer, type TestOrg, type TestServer } from '../../testing/harness.js';
import { assertProblem, assertRefusedWithout } from '../../testing/problems.js';
import { configuredKeyEncryption } from '../../auth/key-encryption.js';
import { identityOf } from './module.js';
import { newId } from '../../lib/ids.js';
import { machineWithToken, watchStream } from '../production/roast/telemetry/testing.js';
import { makeLocation } from '../catalog/location/tenancy.cases.js';
import { makeOAuthClient } from './tenancy.cases.js';
import { ACCESS_TOKEN_SECONDS, JWT_CLOCK_SKEW_SECONDS } from './authority.js';

// Server mode signs with the key from the environment; the embedded mode keeps one in the data directory.
process.env.FIRSTCRACK_SECRET_KEY ??= randomBytes(32).toString('base64');

let offsetMs = 0;
const clock = () => new Date(Date.now() + offsetMs);
const dataDir = mkdtempSync(join(tmpdir(), 'fc-identity-'));
const server = await startTestServer({ clock, config: { dataDir } });
const org = await server.createOrg('enterprise', 'Token roastery');
const other = await server.createOrg('enterprise', 'Other roastery');

interface TokenAnswer {
  status: number;
  body: any;
  headers: Headers;
}

async function tokenRequest(form: Record<string, string>, init: { basic?: [string, string]; contentType?: string; raw?: string } = {}): Promise<TokenAnswer> {
  const headers: Record<string, string> = { 'content-type': init.contentType ?? 'application/x-www-form-urlencoded' };
  if (init.basic) headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(init.basic[0])}:${encodeURIComponent(init.basic[1])}`).toString('base64')}`;
  const res = await server.request('/api/auth/oauth2/token', { method: 'POST', headers, body: init.raw ?? new URLSearchParams(form).toString() });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

async function introspect(client: { clientId: string; clientSecret: string }, token: string): Promise<TokenAnswer> {
  const res = await server.request('/api/auth/oauth2/introspect', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}` },
    body: new URLSearchParams({ token }).toString(),
  });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

async function accessToken(client: { clientId: string; clientSecret: string }, form: Record<string, string> = {}): Promise<string> {
  const res = await tokenRequest({ grant_type: 'client_credentials', ...form }, { basic: [client.clientId, client.clientSecret] });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.access_token;
}

const jwtFor = (client: { clientId: string; clientSecret: string }, form: Record<string, string> = {}) => accessToken(client, { resource: server.url, ...form });

function assertOAuthError(res: TokenAnswer, status: number, error: string): void {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.body.error, error, JSON.stringify(res.body));
  assert.equal(typeof res.body.error_description, 'string', 'RFC 6749 §5.2 error_description');
  assert.equal(res.headers.get('cache-control'), 'no-store');
  if (status === 401) assert.match(res.headers.get('www-authenticate') ?? '', /^Basic /);
}

const decodePart = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
const listLocations = (token: string, headers: Record<string, string> = {}) => server.call(token, 'catalog.location.listLocations', {}, { headers });
const clientCount = async (o: TestOrg) => (await server.owner.query<{ n: number }>(`select count(*)::int as n from oauth_clients where org_id = $1`, [o.id]))[0].n;

test('admins create, list and revoke OAuth clients; the secret is shown once and stored hashed', async () => {
  const created = await org.call('webhooks.createOAuthClient', { role: 'roaster', scopes: ['inventory.*'], label: 'ERP' });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  assert.match(created.body.clientSecret, /^fccs_/);
  const [row] = await server.owner.query<{ secret_hash: string }>(`select secret_hash from oauth_clients where id = $1`, [created.body.clientId]);
  assert.equal(row.secret_hash, createHash('sha256').update(created.body.clientSecret).digest('hex'));
  const listed = await org.call('webhooks.listOAuthClients', {});
  const mine = listed.body.items.find((c: { clientId: string }) => c.clientId === created.body.clientId);
  assert.deepEqual(mine.scopes, ['inventory.*']);
  assert.ok(!JSON.stringify(listed.body).includes('fccs_'), 'the list never shows a secret');

  const revoked = await org.call('webhooks.revokeOAuthClient', { id: created.body.clientId });
  assert.equal(revoked.status, 200);
  assert.equal(typeof revoked.body.revokedAt, 'string');
  assertProblem(await org.call('webhooks.revokeOAuthClient', { id: created.body.clientId }), 409, 'oauth_client_revoked');
  const active = await org.call('webhooks.listOAuthClients', {});
  assert.ok(!active.body.items.some((c: { clientId: string }) => c.clientId === created.body.clientId), 'revoked clients are left out by default');
});

test('a client never holds more than the credential creating it, and bad scopes are refused', async () => {
  const viewer = await org.createKey('viewer');
  await assertRefusedWithout(() => clientCount(org), () => server.call(viewer, 'webhooks.createOAuthClient', { role: 'viewer' }), 403, 'permission_denied');
  const webhooksOnly = await org.createKey('admin', ['webhooks.*']);
  await assertRefusedWithout(() => clientCount(org), () => server.call(webhooksOnly, 'webhooks.createOAuthClient', { role: 'owner' }), 403, 'permission_denied');
  const narrow = await server.call(webhooksOnly, 'webhooks.createOAuthClient', { role: 'admin', scopes: ['webhooks.read'] });
  assert.equal(narrow.status, 200, JSON.stringify(narrow.body));
  await assertRefusedWithout(() => clientCount(org), () => org.call('webhooks.createOAuthClient', { role: 'viewer', scopes: ['nonsense.read'] }), 400, 'invalid_input', 'scopes');
  await assertRefusedWithout(() => clientCount(org), () => org.call('webhooks.createOAuthClient', { role: 'cafe', scopes: ['production.*'] }), 400, 'invalid_input', 'scopes');
  await assertRefusedWithout(() => clientCount(org), () => org.call('webhooks.createOAuthClient', { role: 'wizard' }), 400, 'invalid_input', 'role');
});

test('the token endpoint answers every RFC 6749 error as JSON with no-store', async () => {
  const client = await makeOAuthClient(org, 'viewer', ['catalog.*']);
  const basic: [string, string] = [client.clientId, client.clientSecret];
  assertOAuthError(await tokenRequest({ grant_type: 'client_credentials' }), 401, 'invalid_client');
  assertOAuthError(await tokenRequest({ grant_type: 'client_credentials' }, { basic: [client.clientId, 'fccs_wrong'] }), 401, 'invalid_client');
  assertOAuthError(await tokenRequest({ grant_type: 'client_credentials' }, { basic: ['ocl_unknown', client.clientSecret] }), 401, 'invalid_client');
  assertOAuthError(await tokenRequest({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: 'fccs_wrong' }), 401, 'invalid_client');
  assertOAuthError(await tokenRequest({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret }, { basic }), 400, 'invalid_request');
  assertOAuthError(await tokenRequest({}, { basic }), 400, 'invalid_request');
  assertOAuthError(await tokenRequest({}, { basic, raw: 'grant_type=client_credentials&grant_type=client_credentials' }), 400, 'invalid_request');
  assertOAuthError(await tokenRequest({}, { basic, contentType: 'application/json', raw: '{"grant_type":"client_credentials"}' }), 400, 'invalid_request');
  assertOAuthError(await tokenRequest({ grant_type: 'password', username: 'a', password: 'b' }, { basic }), 400, 'unsupported_grant_type');
  assertOAuthError(await tokenRequest({ grant_type: 'refresh_token', refresh_token: 'x' }, { basic }), 400, 'unsupported_grant_type');
  assertOAuthError(await tokenRequest({ grant_type: 'client_credentials', scope: 'nonsense.read' }, { basic }), 400, 'invalid_scope');
  assertOAuthError(await tokenRequest({ grant_type: 'client_credentials', scope: 'orders.read' }, { basic }), 400, 'invalid_scope');
  assertOAuthError(await tokenRequest({ grant_type: 'client_credentials', scope: '*' }, { basic }), 400, 'invalid_scope');
  assertOAuthError(await tokenRequest({ grant_type: 'client_credentials', resource: 'https://elsewhere.example' }, { basic }), 400, 'invalid_target');
  assertOAuthError(await tokenRequest({ grant_type: 'client_credentials', resource: `${server.url}/other` }, { basic }), 400, 'invalid_target');

  // client_secret_post works too, and a narrowing scope is granted as asked.
  const post = await tokenRequest({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret, scope: 'catalog.location.read' });
  assert.equal(post.status, 200, JSON.stringify(post.body));
  assert.equal(post.headers.get('cache-control'), 'no-store');
  assert.equal(post.body.token_type, 'Bearer');
  assert.equal(post.body.expires_in, 3600);
  assert.equal(post.body.scope, 'catalog.location.read');
  assert.ok(!('refresh_token' in post.body), 'no refresh tokens');
});

test('a JWT access token follows RFC 9068 and verifies with the published key (node:crypto, not jose)', async () => {
  const client = await makeOAuthClient(org, 'viewer');
  const res = await tokenRequest({ grant_type: 'client_credentials', resource: `${server.url}/` }, { basic: [client.clientId, client.clientSecret] });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const token: string = res.body.access_token;
  const [h, p, s] = token.split('.');
  const header = decodePart(h);
  const claims = decodePart(p);
  assert.equal(header.typ, 'at+jwt');
  assert.equal(header.alg, 'ES256');
  assert.equal(claims.iss, server.url);
  assert.equal(claims.aud, server.url);
  assert.equal(claims.sub, client.clientId);
  assert.equal(claims.client_id, client.clientId);
  assert.equal(claims.org, org.id);
  assert.equal(claims.scope, '*');
  assert.equal(claims.exp - claims.iat, 3600);
  assert.equal(typeof claims.jti, 'string');

  const metadata = await (await server.request('/.well-known/oauth-authorization-server')).json();
  assert.equal(metadata.issuer, server.url);
  assert.deepEqual(metadata.grant_types_supported, ['client_credentials']);
  assert.equal(metadata.token_endpoint, `${server.url}/api/auth/oauth2/token`);
  const jwks = await (await fetch(metadata.jwks_uri)).json();
  const jwk = jwks.keys.find((k: { kid: string }) => k.kid === header.kid);
  assert.ok(jwk, 'the signing key is published at the metadata’s jwks_uri');
  assert.ok(!('d' in jwk), 'only the public half is published');
  const publicKey = createPublicKey({ key: jwk, format: 'jwk' });
  const valid = verifySignature('sha256', Buffer.from(`${h}.${p}`), { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(s, 'base64url'));
  assert.equal(valid, true);
  const tampered = Buffer.from(JSON.stringify({ ...claims, org: other.id })).toString('base64url');
  assert.equal(verifySignature('sha256', Buffer.from(`${h}.${tampered}`), { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(s, 'base64url')), false);

  assert.equal((await listLocations(token)).status, 200);
  const forged = await listLocations(`${h}.${tampered}.${s}`);
  assertProblem(forged, 401, 'unauthenticated');
  assert.equal(forged.headers.get('www-authenticate'), 'Bearer realm="firstcrack", error="invalid_token"', 'RFC 6750 §3.1 invalid_token');
  const missing = await server.call(undefined, 'catalog.location.listLocations', {});
  assert.equal(missing.headers.get('www-authenticate'), 'Bearer realm="firstcrack"', 'RFC 6750 §3.1: no error code when no token was sent');
});

test('JWTs are refused with another audience, issuer, type, algorithm key, after expiry, issued in the future or living past an hour', async () => {
  const client = await makeOAuthClient(org, 'viewer');
  const good = await jwtFor(client);
  const header = decodePart(good.split('.')[0]);
  const claims = decodePart(good.split('.')[1]);
  // The service's own private key, read back as the service does: the checks beyond the signature are what is tested.
  const [row] = await server.owner.query<{ private_key_encrypted: string }>(`select private_key_encrypted from signing_keys where id = $1`, [header.kid]);
  const encryption = configuredKeyEncryption({ secretKey: process.env.FIRSTCRACK_SECRET_KEY, dataDir });
  const key = await importPKCS8(encryption.decrypt(row.private_key_encrypted), 'ES256');
  const forge = (changes: Record<string, unknown>, protectedHeader: Record<string, unknown> = header) =>
    new SignJWT({ ...claims, ...changes }).setProtectedHeader(protectedHeader as { alg: string }).sign(key);

  assert.equal((await listLocations(await forge({}))).status, 200, 'the forge itself is sound');
  assertProblem(await listLocations(await forge({ aud: 'https://elsewhere.example' })), 401, 'unauthenticated');
  assertProblem(await listLocations(await forge({ iss: 'https://elsewhere.example' })), 401, 'unauthenticated');
  assertProblem(await listLocations(await forge({}, { ...header, typ: 'JWT' })), 401, 'unauthenticated');
  assertProblem(await listLocations(await forge({ exp: Math.floor(Date.now() / 1000) - 10 })), 401, 'unauthenticated');
  assertProblem(await listLocations(await forge({}, { ...header, kid: 'kid_unknown' })), 401, 'unauthenticated');
  // Signed by the service's key but not as it issues tokens: issued in the future (past the clock skew allowed
  // between processes), or living longer than an access token does.
  const now = Math.floor(Date.now() / 1000);
  const skewed = now + JWT_CLOCK_SKEW_SECONDS - 5;
  assert.equal((await listLocations(await forge({ iat: skewed, exp: skewed + ACCESS_TOKEN_SECONDS }))).status, 200, 'within the clock skew');
  const ahead = now + JWT_CLOCK_SKEW_SECONDS + 60;
  assertProblem(await listLocations(await forge({ iat: ahead, exp: ahead + ACCESS_TOKEN_SECONDS })), 401, 'unauthenticated');
  assertProblem(await listLocations(await forge({ iat: now + 365 * 86400, exp: now + 365 * 86400 + 60 })), 401, 'unauthenticated');
  assertProblem(await listLocations(await forge({ iat: now, exp: now + ACCESS_TOKEN_SECONDS + 1 })), 401, 'unauthenticated');
  assertProblem(await listLocations(await forge({ iat: now, exp: now + 365 * 86400 })), 401, 'unauthenticated');
  assert.deepEqual((await introspect(client, await forge({ iat: now, exp: now + 365 * 86400 }))).body, { active: false }, 'introspection judges alike');
  // A key of one's own, named as the service's: the signature fails.
  const { generateKeyPair } = await import('jose');
  const stranger = await generateKeyPair('ES256');
  assertProblem(await listLocations(await new SignJWT(claims).setProtectedHeader(header).sign(stranger.privateKey)), 401, 'unauthenticated');
});

test('tokens expire after one hour by the service clock; introspection follows', async () => {
  const client = await makeOAuthClient(org, 'viewer');
  const jwt = await jwtFor(client);
  const opaque = await accessToken(client);
  assert.equal((await listLocations(jwt)).status, 200);
  assert.equal((await listLocations(opaque)).status, 200);
  offsetMs += 3601_000;
  try {
    assertProblem(await listLocations(jwt), 401, 'unauthenticated');
    assertProblem(await listLocations(opaque), 401, 'unauthenticated');
    assert.deepEqual((await introspect(client, jwt)).body, { active: false });
    assert.deepEqual((await introspect(client, opaque)).body, { active: false });
  } finally {
    offsetMs -= 3601_000;
  }
});

test('opaque tokens are stored hashed, introspected, and end at once when the client is revoked; JWTs run to expiry', async () => {
  const client = await makeOAuthClient(org, 'viewer', ['catalog.*']);
  const opaque = await accessToken(client);
  const jwt = await jwtFor(client);
  assert.match(opaque, /^fco_/);
  const stored = await server.owner.query(`select 1 from oauth_access_tokens where token_hash = $1`, [createHash('sha256').update(opaque).digest('hex')]);
  assert.equal(stored.length, 1);
  const seen = await introspect(client, opaque);
  assert.equal(seen.headers.get('cache-control'), 'no-store');
  assert.equal(seen.body.active, true);
  assert.equal(seen.body.client_id, client.clientId);
  assert.equal(seen.body.scope, 'catalog.*');
  assert.equal(seen.body.token_type, 'Bearer');
  assert.equal(seen.body.exp - seen.body.iat, 3600);
  const jwtSeen = await introspect(client, jwt);
  assert.equal(jwtSeen.body.active, true);
  assert.equal(jwtSeen.body.aud, server.url);

  const observer = await makeOAuthClient(org, 'viewer');
  assert.equal((await org.call('webhooks.revokeOAuthClient', { id: client.clientId })).status, 200);
  assertProblem(await listLocations(opaque), 401, 'unauthenticated');
  assert.deepEqual((await introspect(observer, opaque)).body, { active: false });
  assertOAuthError(await tokenRequest({ grant_type: 'client_credentials' }, { basic: [client.clientId, client.clientSecret] }), 401, 'invalid_client');
  // Stateless by design: a revoked client's JWT works until it expires (at most an hour).
  assert.equal((await listLocations(jwt)).status, 200);
});

test('introspection needs client authentication and shows nothing of another organization', async () => {
  const client = await makeOAuthClient(org, 'viewer');
  const stranger = await makeOAuthClient(other, 'viewer');
  const opaque = await accessToken(client);
  const res = await server.request('/api/auth/oauth2/introspect', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `token=${opaque}` });
  assertOAuthError({ status: res.status, body: await res.json(), headers: res.headers }, 401, 'invalid_client');
  const missing = await server.request('/api/auth/oauth2/introspect', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: client.clientId, client_secret: client.clientSecret }).toString(),
  });
  assertOAuthError({ status: missing.status, body: await missing.json(), headers: missing.headers }, 400, 'invalid_request');
  assert.deepEqual((await introspect(stranger, opaque)).body, { active: false });
  assert.deepEqual((await introspect(stranger, await jwtFor(client))).body, { active: false });
  assert.deepEqual((await introspect(client, 'fco_nothing')).body, { active: false });
  assert.deepEqual((await introspect(client, org.key)).body, { active: false });
});

test('rotating keys signs with the new key and keeps the old one published until its tokens have expired', async () => {
  const client = await makeOAuthClient(org, 'viewer');
  const before = await jwtFor(client);
  const oldKid = decodePart(before.split('.')[0]).kid;
  const { kid: newKid, retired } = await identityOf(server.app).rotateKeys();
  assert.ok(retired.includes(oldKid), 'the old key stops signing');
  const after = await jwtFor(client);
  assert.equal(decodePart(after.split('.')[0]).kid, newKid);
  const kids = async () => ((await (await server.request('/api/auth/oauth2/jwks')).json()).keys as { kid: string }[]).map((k) => k.kid);
  assert.deepEqual((await kids()).sort(), [oldKid, newKid].sort());
  assert.equal((await listLocations(before)).status, 200, 'a token signed before the rotation stays valid');
  assert.equal((await listLocations(after)).status, 200);
  offsetMs += (3600 + 301) * 1000;
  try {
    await identityOf(server.app).rotateKeys().then(() => undefined); // reloads the cache; a third key
    assert.ok(!(await kids()).includes(oldKid), 'the old key is unpublished once its tokens have expired');
  } finally {
    offsetMs -= (3600 + 301) * 1000;
  }
});

test('a machine credential is bound to its organization: X-Service-Org naming another is 403, never a switch', async () => {
  const client = await makeOAuthClient(org, 'viewer');
  for (const token of [await jwtFor(client), await accessToken(client), org.key]) {
    assertProblem(await listLocations(token, { 'x-service-org': other.id }), 403, 'organization_mismatch');
    assert.equal((await listLocations(token, { 'x-service-org': org.id })).status, 200);
    assert.equal((await listLocations(token)).status, 200);
  }
});

test('each token kind sees only its organization and only its scope', async () => {
  const theirs = await makeLocation(other);
  const mine = await makeLocation(org);
  const client = await makeOAuthClient(org, 'admin');
  for (const token of [await jwtFor(client, { scope: 'catalog.location.read' }), await accessToken(client, { scope: 'catalog.location.read' })]) {
    assertProblem(await server.call(token, 'catalog.location.getLocation', { id: theirs }), 404, 'not_found');
    assert.equal((await server.call(token, 'catalog.location.getLocation', { id: mine })).status, 200);
    const ids = (await listLocations(token)).body.items.map((l: { id: string }) => l.id);
    assert.ok(!ids.includes(theirs), 'another organization’s location is invisible');
    const refused = await server.call(token, 'catalog.location.createLocation', { name: 'X', code: 'X1', kind: 'warehouse' });
    assertProblem(refused, 403, 'permission_denied');
    assert.equal(refused.headers.get('www-authenticate'), 'Bearer realm="firstcrack", error="insufficient_scope", scope="catalog.location.write"');
  }
});

test('rate limits count per credential: every token of a client shares its budget', async () => {
  const limited = await startTestServer({ clock, config: { dataDir }, rateWindows: [{ name: 'burst', points: 4, seconds: 60 }] });
  const a = await limited.createOrg();
  const issue = async (c: { clientId: string; clientSecret: string }, form: Record<string, string> = {}) => {
    const res = await limited.request('/api/auth/oauth2/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${c.clientId}:${c.clientSecret}`).toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'client_credentials', ...form }).toString(),
    });
    return (await res.json()).access_token as string;
  };
  const make = async () => (await a.call('webhooks.createOAuthClient', { role: 'viewer' })).body as { clientId: string; clientSecret: string };
  const first = await make();
  const second = await make();
  const jwt = await issue(first, { resource: limited.url }); // 1
  const opaque = await issue(first); // 2
  assert.equal((await limited.call(jwt, 'catalog.location.listLocations', {})).status, 200); // 3
  assert.equal((await limited.call(opaque, 'catalog.location.listLocations', {})).status, 200); // 4
  const refused = await limited.call(opaque, 'catalog.location.listLocations', {});
  assertProblem(refused, 429, 'rate_limited');
  assert.ok(refused.headers.get('retry-after'), 'Retry-After on 429');
  assertProblem(await limited.call(jwt, 'catalog.location.listLocations', {}), 429, 'rate_limited');
  const fresh = await issue(second);
  assert.equal((await limited.call(fresh, 'catalog.location.listLocations', {})).status, 200, 'another client has its own budget');
});

test('access tokens get stream tickets too: a browser opens the stream with one, acting with the client’s permissions', async () => {
  const client = await makeOAuthClient(org, 'viewer');
  const { machineId } = await machineWithToken(org, `OA-${Date.now().toString(36)}`);
  const batchId = newId('rb');
  await server.app.services.liveSessions.open({ orgId: org.id, batchId, machineId });
  try {
    for (const token of [await jwtFor(client), await accessToken(client)]) {
      const res = await server.request(`/stream/v1/roast/${batchId}/tickets`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
      assert.equal(res.status, 201, await res.clone().text());
      const { ticket } = await res.json();
      const stream = await watchStream(`${server.url}/stream/v1/roast/${batchId}?ticket=${ticket}`);
      assert.equal(stream.status, 200, JSON.stringify(stream.problem));
      stream.close();
    }
  } finally {
    await server.app.services.liveSessions.discard(org.id, batchId);
  }
});
