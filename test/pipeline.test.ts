import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { startTestServer, type TestOrg, type TestServer } from '../src/testing/harness.js';
import { REGISTRY } from '../src/modules/index.js';

const { operations } = REGISTRY;
import { PLAN_TERMS } from '../src/auth/plans.js';
import { hashSecret } from '../src/auth/credentials.js';

const server: TestServer = await startTestServer();
const org: TestOrg = await server.createOrg();
const createInput = (code: string) => ({ name: `Warehouse ${code}`, code, kind: 'warehouse' });
const count = async (table: string, orgId = org.id) =>
  (await server.owner.query<{ n: number }>(`select count(*)::int as n from ${table} where org_id = $1`, [orgId]))[0].n;

test('POST runs an operation and answers the result object', async () => {
  const res = await org.call('catalog.location.createLocation', createInput('P1'));
  assert.equal(res.status, 200);
  assert.match(res.body.id, /^loc_[0-9a-z]{26}$/);
  assert.equal(res.body.code, 'P1');
  assert.match(res.headers.get('x-request-id')!, /^req_/);
});

test('GET with ?input answers with an ETag and 304 on If-None-Match', async () => {
  const { body: created } = await org.call('catalog.location.createLocation', createInput('G1'));
  const first = await org.call('catalog.location.getLocation', { id: created.id }, { method: 'GET' });
  assert.equal(first.status, 200);
  assert.deepEqual(first.body, created);
  const etag = first.headers.get('etag')!;
  assert.match(etag, /^"[\w-]+"$/);
  const again = await org.call('catalog.location.getLocation', { id: created.id }, { method: 'GET', headers: { 'if-none-match': etag } });
  assert.equal(again.status, 304);
  assert.equal(again.body, undefined);
  await org.call('catalog.location.updateLocation', { id: created.id, name: 'Renamed' });
  const changed = await org.call('catalog.location.getLocation', { id: created.id }, { method: 'GET', headers: { 'if-none-match': etag } });
  assert.equal(changed.status, 200);
  assert.notEqual(changed.headers.get('etag'), etag);
});

test('GET on a POST-only operation is 405 with Allow: POST', async () => {
  const res = await org.call('catalog.location.createLocation', createInput('X'), { method: 'GET' });
  assert.equal(res.status, 405);
  assert.equal(res.headers.get('allow'), 'POST');
  assert.equal(res.body.code, 'method_not_allowed');
  const put = await org.call('catalog.location.getLocation', { id: 'loc_x' }, { method: 'PUT' });
  assert.equal(put.status, 405);
  assert.equal(put.headers.get('allow'), 'GET, POST');
});

test('transport refusals: 415 not JSON, 413 over 1 MiB, 400 malformed JSON or not an object, 404 unknown operation', async () => {
  const post = (body: string, contentType = 'application/json') =>
    server.request('/rpc/v1/catalog.location.createLocation', { method: 'POST', headers: { authorization: `Bearer ${org.key}`, 'content-type': contentType }, body });
  const text = await post('name=x', 'text/plain');
  assert.equal(text.status, 415);
  assert.match(text.headers.get('content-type')!, /^application\/problem\+json/);
  assert.equal((await text.json()).code, 'unsupported_media_type');
  const huge = await post(JSON.stringify({ name: 'x'.repeat(1024 * 1024), code: 'BIG', kind: 'lab' }));
  assert.equal(huge.status, 413);
  assert.equal((await huge.json()).code, 'body_too_large');
  const malformed = await post('{"name": ');
  assert.equal(malformed.status, 400);
  assert.equal((await malformed.json()).code, 'malformed_json');
  const array = await post('[1,2]');
  assert.equal(array.status, 400);
  const badQuery = await server.request('/rpc/v1/catalog.location.listLocations?input=%7Bnope', { headers: { authorization: `Bearer ${org.key}` } });
  assert.equal(badQuery.status, 400);
  const unknown = await org.call('catalog.location.teleport', {});
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.code, 'unknown_operation');
  assert.equal(await count('locations'), (await org.call('catalog.location.listLocations', { page: { limit: 200 } })).body.items.length);
});

test('validation names every offending field with its path and rejects unknown fields', async () => {
  const before = await count('locations');
  const res = await org.call('catalog.location.createLocation', {
    name: '',
    code: 'ok',
    kind: 'spaceship',
    timezone: 'Mars/Olympus',
    address: { city: 'Addis', planet: 'Earth' },
    owner: 'me',
  });
  assert.equal(res.status, 400);
  assert.match(res.headers.get('content-type')!, /^application\/problem\+json/);
  assert.equal(res.body.code, 'invalid_input');
  assert.deepEqual(res.body.errors.map((e: { path: string }) => e.path).sort(), ['address.planet', 'kind', 'name', 'owner', 'timezone']);
  for (const key of ['type', 'title', 'status', 'detail']) assert.ok(key in res.body, key);
  const page = await org.call('catalog.location.listLocations', { page: { limit: 500, cursor: 'garbage' } });
  assert.deepEqual(page.body.errors.map((e: { path: string }) => e.path), ['page.limit', 'page.cursor']);
  const cursor = await org.call('catalog.location.listLocations', { page: { cursor: 'garbage' } });
  assert.deepEqual(cursor.body.errors, [{ path: 'page.cursor', message: 'not a cursor returned by this list' }]);
  const filter = await org.call('catalog.location.listLocations', { filter: { colour: 'brown' } });
  assert.deepEqual(filter.body.errors.map((e: { path: string }) => e.path), ['filter.colour']);
  assert.equal(await count('locations'), before);
});

test('authentication: missing, malformed, unknown and revoked credentials are 401 with WWW-Authenticate', async () => {
  for (const authorization of [undefined, 'Basic abc', 'Bearer fck_nope', 'Bearer ']) {
    const res = await server.request('/rpc/v1/catalog.location.listLocations', { method: 'POST', headers: authorization ? { authorization } : {} });
    assert.equal(res.status, 401, String(authorization));
    assert.match(res.headers.get('www-authenticate')!, /^Bearer/);
    assert.equal((await res.json()).code, 'unauthenticated');
  }
  const key = await org.createKey('viewer');
  assert.equal((await server.call(key, 'catalog.location.listLocations')).status, 200);
  const [row] = await server.owner.query<{ id: string }>(`select id from credentials where secret_hash = $1`, [hashSecret(key)]);
  await server.owner.query(`update credentials set revoked_at = now() where id = $1`, [row.id]);
  // Resolved credentials are cached for at most 2 s per process (a documented bound), then refused.
  await sleep(2100);
  assert.equal((await server.call(key, 'catalog.location.listLocations')).status, 401);
});

test('API keys are stored only as a hash', async () => {
  const key = await org.createKey('admin');
  const rows = await server.owner.query(`select * from credentials where org_id = $1`, [org.id]);
  assert.ok(!JSON.stringify(rows).includes(key.slice(4)), 'the key itself is not stored');
});

test('X-Service-Org naming another organization is 403 and never switches organization', async () => {
  const other = await server.createOrg();
  const res = await org.call('catalog.location.listLocations', {}, { headers: { 'x-service-org': other.id } });
  assert.equal(res.status, 403);
  assert.equal(res.body.code, 'organization_mismatch');
  const same = await org.call('catalog.location.listLocations', {}, { headers: { 'x-service-org': org.id } });
  assert.equal(same.status, 200);
});

test('permissions: a missing permission is 403 naming it; scopes narrow a role and never widen it', async () => {
  const viewer = await org.createKey('viewer');
  const denied = await server.call(viewer, 'catalog.location.createLocation', createInput('V1'));
  assert.equal(denied.status, 403);
  assert.equal(denied.body.code, 'permission_denied');
  assert.equal(denied.body.permission, 'catalog.location.write');

  const readOnly = await org.createKey('admin', ['catalog.location.read']);
  assert.equal((await server.call(readOnly, 'catalog.location.listLocations')).status, 200);
  assert.equal((await server.call(readOnly, 'catalog.location.createLocation', createInput('S1'))).status, 403);

  const catalog = await org.createKey('roaster', ['catalog.*']);
  assert.equal((await server.call(catalog, 'catalog.location.listLocations')).status, 200);
  // roaster lacks catalog.location.write; the scope cannot add it.
  assert.equal((await server.call(catalog, 'catalog.location.createLocation', createInput('S2'))).status, 403);

  const cafe = await org.createKey('cafe');
  assert.equal((await server.call(cafe, 'catalog.location.listLocations')).status, 200);
  assert.equal((await server.call(cafe, 'catalog.location.archiveLocation', { id: 'loc_x' })).status, 403);
});

test('plans: an operation whose module is not on the plan is 403 module_not_enabled', async (t) => {
  const free = await server.createOrg('free');
  const outside = operations.find((op) => !PLAN_TERMS.free.features.has(op.feature));
  if (!outside) return t.skip('every registered operation is on the free plan so far');
  const res = await free.call(outside.name, {});
  assert.equal(res.status, 403);
  assert.equal(res.body.code, 'module_not_enabled');
  assert.equal(res.body.module, outside.feature);
});

test('Idempotency-Key: a retry gets the first answer and changes nothing more; another body is 422', async () => {
  const before = await count('locations');
  const events = await count('events');
  const first = await org.call('catalog.location.createLocation', createInput('IDEM'), { idempotencyKey: 'create-idem-1' });
  const retry = await org.call('catalog.location.createLocation', createInput('IDEM'), { idempotencyKey: 'create-idem-1' });
  assert.equal(first.status, 200);
  assert.equal(retry.status, 200);
  assert.equal(retry.text, first.text, 'the replay is the first answer byte for byte');
  assert.equal(retry.headers.get('idempotent-replayed'), 'true');
  assert.equal(await count('locations'), before + 1);
  assert.equal(await count('events'), events + 1);
  const other = await org.call('catalog.location.createLocation', createInput('IDEM2'), { idempotencyKey: 'create-idem-1' });
  assert.equal(other.status, 422);
  assert.equal(other.body.code, 'idempotency_key_reused');
  // Keys belong to a credential: another key may use the same string.
  const admin = await org.createKey('admin');
  assert.equal((await server.call(admin, 'catalog.location.createLocation', createInput('IDEM3'), { idempotencyKey: 'create-idem-1' })).status, 200);
});

test('Idempotency-Key: concurrent retries create once and all get the same answer', async () => {
  const before = await count('locations');
  const answers = await Promise.all(
    Array.from({ length: 6 }, () => org.call('catalog.location.createLocation', createInput('RACE'), { idempotencyKey: 'race-1' })),
  );
  const ok = answers.filter((a) => a.status === 200);
  assert.ok(ok.length >= 1, `at least one retry succeeds: ${answers.map((a) => a.status)}`);
  for (const a of answers) assert.ok(a.status === 200 || (a.status === 409 && a.body.code === 'idempotency_key_in_flight'), `${a.status}`);
  assert.equal(new Set(ok.map((a) => a.body.id)).size, 1);
  assert.equal(await count('locations'), before + 1);
});

test('a refused call leaves no partial write and no event', async () => {
  const { body: loc } = await org.call('catalog.location.createLocation', createInput('NP1'));
  await org.call('catalog.location.archiveLocation', { id: loc.id });
  const events = await count('events');
  const res = await org.call('catalog.location.updateLocation', { id: loc.id, name: 'Revived' });
  assert.equal(res.status, 409);
  assert.equal(res.body.code, 'location_archived');
  const dup = await org.call('catalog.location.createLocation', createInput('NP1'));
  assert.equal(dup.status, 409);
  assert.equal(dup.body.code, 'duplicate');
  assert.deepEqual(dup.body.errors, [{ path: 'code', message: 'already used in this organization' }]);
  assert.equal(await count('events'), events);
  assert.equal((await org.call('catalog.location.getLocation', { id: loc.id })).body.name, 'Warehouse NP1');
});

test('every successful mutation writes one event with the envelope fields, in the same transaction', async () => {
  const { body: loc } = await org.call('catalog.location.createLocation', createInput('EV1'));
  const rows = await server.owner.query<{ id: string; type: string; data: { location: { id: string } }; created_at: Date }>(
    `select * from events where org_id = $1 and data -> 'location' ->> 'id' = $2 order by id`,
    [org.id, loc.id],
  );
  assert.equal(rows.length, 1);
  assert.equal(rows[0].type, 'catalog.location.created');
  assert.match(rows[0].id, /^evt_/);
  assert.equal(rows[0].data.location.id, loc.id);
});

test('health, readiness, OpenAPI and the reference page', async () => {
  assert.deepEqual(await (await server.request('/healthz')).json(), { status: 'ok' });
  assert.deepEqual(await (await server.request('/readyz')).json(), { status: 'ready', database: 'ok' });
  const doc = await (await server.request('/openapi.json')).json();
  assert.equal(doc.openapi, '3.1.0');
  for (const op of operations) {
    const path = doc.paths[`/rpc/v1/${op.name}`];
    assert.ok(path?.post, op.name);
    assert.equal(Boolean(path.get), op.get, `${op.name} GET`);
    // An object, or alternatives told apart by a field (generateReport's kinds).
    const input = path.post.requestBody.content['application/json'].schema;
    assert.ok(input.properties || input.oneOf, `${op.name} schema`);
    assert.ok(path.post.responses['400'] && path.post.responses['403'] && path.post.responses['429'], `${op.name} errors`);
  }
  assert.ok(doc.components.securitySchemes.apiKey, 'the document defines the apiKey security scheme');
  const docs = await server.request('/docs');
  assert.match(docs.headers.get('content-type')!, /text\/html/);
  const html = await docs.text();
  for (const op of operations) assert.ok(html.includes(op.name), op.name);
});

test('rate limit headers are on every answer', async () => {
  const ok = await org.call('catalog.location.listLocations');
  assert.match(ok.headers.get('ratelimit-policy')!, /"burst";q=\d+;w=10, "sustained";q=\d+;w=60/);
  assert.match(ok.headers.get('ratelimit')!, /^"(burst|sustained)";r=\d+;t=\d+$/);
  const notFound = await org.call('catalog.location.getLocation', { id: 'loc_missing' });
  assert.equal(notFound.status, 404);
  assert.ok(notFound.headers.get('ratelimit'), 'a 404 answer carries the ratelimit header too');
});

test('maintenance removes idempotency records older than 24 hours and keeps the rest', async () => {
  const { MAINTENANCE_TASKS } = await import('../src/jobs/maintenance.js');
  await org.call('catalog.location.createLocation', createInput('OLD1'), { idempotencyKey: 'old-1' });
  await org.call('catalog.location.createLocation', createInput('NEW1'), { idempotencyKey: 'new-1' });
  await server.owner.query(`update idempotency_records set created_at = now() - interval '25 hours' where key = 'old-1'`);
  const sweep = MAINTENANCE_TASKS.find((t) => t.name === 'expire-idempotency-records')!;
  await server.owner.query(sweep.sql);
  const keys = (await server.owner.query<{ key: string }>(`select key from idempotency_records where org_id = $1 and key in ('old-1', 'new-1')`, [org.id])).map((r) => r.key);
  assert.deepEqual(keys, ['new-1']);
  // An expired key may be used again for a new request.
  const reused = await org.call('catalog.location.createLocation', createInput('OLD2'), { idempotencyKey: 'old-1' });
  assert.equal(reused.status, 200);
  assert.equal(reused.body.code, 'OLD2');
});

test('append-only history refuses rewrites from every role, the owner included', async () => {
  await org.call('catalog.location.createLocation', createInput('AO1'));
  await assert.rejects(server.owner.query(`update events set type = 'forged' where org_id = $1`, [org.id]), /events is append-only/);
  await assert.rejects(server.owner.query(`delete from events where org_id = $1`, [org.id]), /events is append-only/);
  const guarded = (
    await server.owner.query<{ table: string }>(`select c.relname as table from pg_trigger t join pg_class c on c.oid = t.tgrelid where t.tgname = 'append_only'`)
  ).map((r) => r.table);
  for (const ledger of ['events', 'green_lot_ledger', 'roasted_lot_ledger', 'material_transactions', 'lineage_edges', 'certificates']) {
    assert.ok(guarded.includes(ledger), `${ledger} has no append-only trigger`);
  }
  // Every table the service role may write but not rewrite is refused to every role, the same way (bills of materials
  // excepted: retiring one stamps retired_at, which their own trigger guards).
  const revoked = await server.owner.query<{ table: string }>(
    `select c.relname as table from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = 'public' and c.relkind = 'r' and c.relname <> 'bills_of_materials'
       and has_table_privilege('firstcrack_app', c.oid, 'INSERT') and not has_table_privilege('firstcrack_app', c.oid, 'DELETE')`,
  );
  assert.ok(revoked.length >= 14, `only ${revoked.length} tables are revoked`);
  assert.deepEqual(revoked.map((r) => r.table).filter((table) => !guarded.includes(table)), []);
});
