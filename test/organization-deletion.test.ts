import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer } from '../src/testing/harness.js';
import { assertProblem, assertRefusedWithout } from '../src/testing/problems.js';
import { MODULES } from '../src/modules/index.js';
import { blobDir } from '../src/blobs/fs.js';
import { tenantTables, tenantTablesInDeleteOrder } from '../src/db/tenant-tables.js';
import { purgeDueOrganizations } from '../src/jobs/organization-purge.js';
import { PLATFORM_JOBS } from '../src/jobs/catalog.js';
import { buildChain } from '../src/modules/traceability/testing.js';
import { makeMember } from '../src/modules/identity/tenancy.cases.js';

/**
 * Deleting an organization: owner only, a grace period that can be cancelled, then a purge that leaves nothing
 * of the organization in any table or the blob store and leaves every other organization's rows as they were.
 */

const server = await startTestServer();
const blobs = server.app.services.blobs;
const live = server.app.services.liveSessions;
const deps = { owner: server.owner, blobs, purgeOrganizationState: server.app.services.purgeOrganizationState };
const root = blobDir(server.config.dataDir);
const DAY = 24 * 3600 * 1000;

/** Tables without org_id: the platform's own (no organization's data) or per-user (purged through memberships). */
const NOT_TENANT_TABLES = ['link_signing_keys', 'organizations', 'purged_organizations', 'schema_migrations', 'schema_repeatables', 'signing_keys', 'user_sessions', 'users'];

async function orgWithData(name: string) {
  const org = await server.createOrg('enterprise', name);
  const chain = await buildChain(org);
  const issued = await org.call('traceability.issueCertificate', { roastedLotId: chain.secondRoast.roastedLotId });
  assert.equal(issued.status, 200, JSON.stringify(issued.body));
  await org.call('identity.createApiKey', { role: 'roaster', scopes: [] });
  await blobs.put(`reports/${org.id}/rpt_test.pdf`, 'a report', 'application/pdf');
  await blobs.put(`imports/${org.id}/imp_test.csv`, 'a,b', 'text/csv');
  // A batch in the drum: its live session (Redis in server mode, disk embedded).
  await live.open({ orgId: org.id, batchId: 'rb_in_the_drum', machineId: 'mch_test' });
  await live.append(org.id, 'rb_in_the_drum', 1, [{ t: 0, bt: 180, et: 220 } as any], []);
  return { org, chain, token: issued.body.token as string };
}

/** Per tenant table: how many rows the organization has, and a digest of them (so "untouched" means the same rows, not just as many). */
async function snapshotOf(orgId: string): Promise<Record<string, string>> {
  const state: Record<string, string> = {};
  for (const table of await tenantTables(server.owner)) {
    const [row] = await server.owner.query<{ n: number; digest: string | null }>(
      `select count(*)::int as n, md5(string_agg(t::text, '|' order by t::text)) as digest from ${table} t where org_id = $1`,
      [orgId],
    );
    state[table] = `${row.n}:${row.digest ?? ''}`;
  }
  const [org] = await server.owner.query(`select * from organizations where id = $1`, [orgId]);
  state.organizations = JSON.stringify(org ?? null);
  return state;
}

const blobFiles = (orgId: string) =>
  existsSync(root) ? readdirSync(root).flatMap((kind) => (existsSync(join(root, kind, orgId)) ? readdirSync(join(root, kind, orgId)).map((f) => `${kind}/${f}`) : [])) : [];

const leaving = await orgWithData('Leaving Roastery');
const staying = await orgWithData('Staying Roastery');
// One person only in the leaving organization, one in both.
const onlyHere = await makeMember(leaving.org, 'roaster');
const shared = await makeMember(leaving.org, 'viewer');
assert.equal((await staying.org.call('identity.addMember', { email: shared.email, role: 'viewer' })).status, 200);

test('every table holding an organization’s rows is purged: every manifest table with org_id, and no table without org_id but the known ones', async () => {
  const tables = new Set(await tenantTables(server.owner));
  const all = (await server.owner.query<{ t: string }>(`select table_name as t from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`)).map((r) => r.t);
  // A new table holds organization data under org_id (and is purged then), or is added here after deciding it holds none.
  assert.deepEqual(all.filter((t) => !tables.has(t)).sort(), NOT_TENANT_TABLES);
  for (const module of MODULES) for (const table of module.tables) if (all.includes(table) && !NOT_TENANT_TABLES.includes(table)) assert.ok(tables.has(table), `${module.name}'s ${table} is purged`);
  const order = await tenantTablesInDeleteOrder(server.owner);
  assert.deepEqual([...order].sort(), [...tables].sort(), 'the delete order covers every tenant table once');
  assert.ok(order.indexOf('green_lot_ledger') < order.indexOf('green_lots') && order.indexOf('certificates') < order.indexOf('roasted_lots'), 'referencing tables first');
  assert.ok(PLATFORM_JOBS['organization-purge'].schedule, 'the purge runs on a schedule');
});

test('only an owner schedules the deletion, confirming with the id or exact name; nothing is written otherwise', async () => {
  const snapshot = () => snapshotOf(leaving.org.id);
  const admin = await leaving.org.createKey('admin');
  const viewer = await leaving.org.createKey('viewer');
  await assertRefusedWithout(snapshot, () => server.call(admin, 'identity.scheduleOrganizationDeletion', { confirm: leaving.org.id }), 403, 'permission_denied');
  await assertRefusedWithout(snapshot, () => server.call(viewer, 'identity.scheduleOrganizationDeletion', { confirm: leaving.org.id }), 403, 'permission_denied');
  await assertRefusedWithout(snapshot, () => server.call(admin, 'identity.cancelOrganizationDeletion', {}), 403, 'permission_denied');
  await assertRefusedWithout(snapshot, () => leaving.org.call('identity.scheduleOrganizationDeletion', { confirm: 'leaving roastery' }), 400, 'invalid_input', 'confirm');
  await assertRefusedWithout(snapshot, () => leaving.org.call('identity.scheduleOrganizationDeletion', {}), 400, 'invalid_input', 'confirm');
  // Another organization's id: 404, like an id that exists nowhere; neither organization changes.
  const other = await snapshotOf(staying.org.id);
  await assertRefusedWithout(snapshot, () => leaving.org.call('identity.scheduleOrganizationDeletion', { confirm: staying.org.id }), 404, 'not_found', 'confirm');
  assert.deepEqual(await snapshotOf(staying.org.id), other);
});

test('schedule, then cancel during the grace period: a purge run long after finds nothing to purge and every row and blob is there', async () => {
  const before = { leaving: await snapshotOf(leaving.org.id), staying: await snapshotOf(staying.org.id), blobs: blobFiles(leaving.org.id) };
  assert.ok(before.blobs.length >= 3, `the organization has blobs: ${before.blobs}`);
  const scheduled = await leaving.org.call('identity.scheduleOrganizationDeletion', { confirm: 'Leaving Roastery' });
  assert.equal(scheduled.status, 200, JSON.stringify(scheduled.body));
  const { scheduledAt, purgeAfter } = scheduled.body.deletion;
  assert.equal(Date.parse(purgeAfter) - Date.parse(scheduledAt), 30 * DAY, 'the default grace period is 30 days');
  assert.deepEqual((await leaving.org.call('identity.getOrganization')).body.deletion, { scheduledAt, purgeAfter });
  assertProblem(await leaving.org.call('identity.scheduleOrganizationDeletion', { confirm: leaving.org.id }), 409, 'deletion_scheduled');
  // During the grace period the organization works on: its keys, its lists, its public pages.
  assert.equal((await leaving.org.call('inventory.green.listGreenLots', {})).status, 200);
  assert.equal((await server.request(`/c/${leaving.token}`)).status, 200);
  // A purge before the grace period ends takes nothing.
  assert.deepEqual(await purgeDueOrganizations(deps, new Date(Date.parse(purgeAfter) - 1000)), []);

  const cancelled = await leaving.org.call('identity.cancelOrganizationDeletion', {});
  assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
  assert.equal(cancelled.body.deletion, null);
  assert.equal((await leaving.org.call('identity.cancelOrganizationDeletion', {})).status, 200, 'cancelling again changes nothing');
  assert.deepEqual(await purgeDueOrganizations(deps, new Date(Date.now() + 365 * DAY)), []);
  assert.deepEqual(await snapshotOf(leaving.org.id), before.leaving, 'every row of the organization is still there');
  assert.deepEqual(await snapshotOf(staying.org.id), before.staying);
  assert.deepEqual(blobFiles(leaving.org.id), before.blobs);
  assert.ok(await live.get(leaving.org.id, 'rb_in_the_drum'), 'its live session is there');
});

test('after the grace period the purge leaves no row of the organization in any table and none of its blobs, and the other organization as it was', async () => {
  const stayingBefore = await snapshotOf(staying.org.id);
  const stayingBlobs = blobFiles(staying.org.id);
  const leavingBefore = await snapshotOf(leaving.org.id);
  const scheduled = await leaving.org.call('identity.scheduleOrganizationDeletion', { confirm: leaving.org.id });
  assert.equal(scheduled.status, 200, JSON.stringify(scheduled.body));
  const now = new Date(Date.parse(scheduled.body.deletion.purgeAfter) + 1000);

  const [result, ...others] = await purgeDueOrganizations(deps, now);
  assert.equal(others.length, 0, 'only the organization whose grace period ended is purged');
  assert.equal(result.orgId, leaving.org.id);
  assert.ok(result.blobsDeleted >= 3, `its blobs are deleted (${result.blobsDeleted})`);
  for (const table of await tenantTables(server.owner)) {
    const [{ n }] = await server.owner.query<{ n: number }>(`select count(*)::int as n from ${table} where org_id = $1`, [leaving.org.id]);
    assert.equal(n, 0, `${table} holds no row of the purged organization`);
    const had = Number(leavingBefore[table].split(':')[0]);
    if (had > 0) assert.ok((result.rowsDeleted[table] ?? 0) >= had, `${table}: its ${had} rows were deleted`);
  }
  assert.ok(result.rowsDeleted.green_lot_ledger > 0 && result.rowsDeleted.certificates > 0 && result.rowsDeleted.events > 0, 'ledgers, certificates and events too');
  assert.equal((await server.owner.query(`select 1 from organizations where id = $1`, [leaving.org.id])).length, 0);
  assert.deepEqual(blobFiles(leaving.org.id), [], 'its blobs are gone');
  assert.equal(result.liveItemsRemoved, 1);
  assert.equal(await live.get(leaving.org.id, 'rb_in_the_drum'), null, 'its live session is gone');
  assert.ok(await live.get(staying.org.id, 'rb_in_the_drum'), 'the other organization’s live session remains');
  const [record] = await server.owner.query<{ outside_purged_at: Date | null; rows_deleted: Record<string, number> }>(
    `select outside_purged_at, rows_deleted from purged_organizations where id = $1`,
    [leaving.org.id],
  );
  assert.ok(record.outside_purged_at, 'the record says its blobs were deleted too');
  // Its people: the user only here is gone with their sessions; the one also in the other organization remains.
  assert.equal((await server.owner.query(`select 1 from users where id = $1`, [onlyHere.userId])).length, 0);
  assert.equal((await server.owner.query(`select 1 from users where id = $1`, [shared.userId])).length, 1);

  // The other organization: every table's rows exactly as before, its blobs, its keys and pages working.
  assert.deepEqual(await snapshotOf(staying.org.id), stayingBefore);
  assert.deepEqual(blobFiles(staying.org.id), stayingBlobs);
  assert.equal((await staying.org.call('inventory.green.listGreenLots', {})).status, 200);
  assert.equal((await server.request(`/c/${staying.token}`)).status, 200);
  // The purged organization: its key is unknown, its public certificate page is 404 like one that never existed.
  assertProblem(await leaving.org.call('identity.getOrganization'), 401, 'unauthenticated');
  assert.equal((await server.request(`/c/${leaving.token}`)).status, 404);
  // A second run finds nothing left to do.
  assert.deepEqual(await purgeDueOrganizations(deps, now), []);
});
