import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { startTestServer } from '../src/testing/harness.js';
import { MODULES } from '../src/modules/index.js';
import { FsBlobStore, blobDir } from '../src/blobs/fs.js';
import { exportOrganization, organizationTables } from '../src/jobs/organization-export.js';
import { buildChain } from '../src/modules/traceability/testing.js';
import { assertProblem } from '../src/testing/problems.js';

/** `firstcrack org export` and identity.exportOrganization: everything one organization owns, and nothing of another's. */

const server = await startTestServer();
const work = mkdtempSync(join(tmpdir(), 'fc-export-'));
after(() => rmSync(work, { recursive: true, force: true }));
const leaving = await server.createOrg('enterprise', 'Leaving roastery');
const staying = await server.createOrg('enterprise', 'Staying roastery');
await buildChain(leaving);
await buildChain(staying);

async function countsOf(orgId: string, tables: string[]): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of tables) counts[table] = (await server.owner.query<{ n: number }>(`select count(*)::int as n from ${table} where org_id = $1`, [orgId]))[0].n;
  return counts;
}

test('the export holds every org-owned table of every manifest, only the organization’s rows, and its blobs', async () => {
  const tables = (await organizationTables(server.owner as any, MODULES)).map((t) => t.table);
  // Every manifest table with an org_id column is exported: a table a module adds cannot be left out.
  const withOrg = new Set(tables);
  for (const module of MODULES) {
    for (const table of module.tables) {
      const [{ n }] = await server.owner.query<{ n: number }>(
        `select count(*)::int as n from information_schema.columns c join information_schema.tables t using (table_schema, table_name)
         where c.table_schema = 'public' and c.table_name = $1 and c.column_name = 'org_id' and t.table_type = 'BASE TABLE'`,
        [table],
      );
      if (n > 0) assert.ok(withOrg.has(table), `${module.name}'s table ${table} is exported`);
    }
  }
  const stayingBefore = await countsOf(staying.id, tables);
  const file = join(work, 'leaving.tar.gz');
  const result = await exportOrganization(server.owner as any, MODULES, leaving.id, file, new FsBlobStore(blobDir(server.config.dataDir)));
  assert.deepEqual(await countsOf(staying.id, tables), stayingBefore, 'the other organization is untouched');

  const out = join(work, 'out');
  mkdirSync(out);
  execFileSync('tar', ['-xzf', file, '-C', out]);
  const expected = await countsOf(leaving.id, tables);
  assert.deepEqual(result.tables, expected);
  for (const table of tables) {
    const rows = JSON.parse(readFileSync(join(out, 'tables', `${table}.json`), 'utf8'));
    assert.equal(rows.length, expected[table], `${table}: every row`);
    assert.ok(rows.every((r: any) => r.org_id === leaving.id), `${table}: only the organization's rows`);
  }
  assert.ok(expected.green_lot_ledger > 0 && expected.lineage_edges > 0, 'the chain was exported');
  assert.equal(JSON.parse(readFileSync(join(out, 'organization.json'), 'utf8')).name, 'Leaving roastery');
  const keys = await server.owner.query<{ key: string; org: string }>(`select full_curve_key as key, org_id as org from roast_curves where full_curve_key is not null`);
  for (const { key, org } of keys) assert.equal(existsSync(join(out, 'blobs', key)), org === leaving.id, `blob ${key} exported only with its organization`);
});

/** What an extracted archive holds: every file's path and bytes. */
function filesOf(dir: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) files.set(relative(dir, join(entry.parentPath, entry.name)), readFileSync(join(entry.parentPath, entry.name)));
  }
  return files;
}

const jobsQueued = async () =>
  (await server.owner.query<{ n: number }>(`select count(*)::int as n from pgboss.job where name = 'organization-export'`))[0].n;
const exportsOf = async (orgId: string) =>
  (await server.owner.query<{ n: number }>(`select count(*)::int as n from organization_exports where org_id = $1`, [orgId]))[0].n;

async function finishedExport(org: { call: (op: string, input?: unknown) => Promise<{ status: number; body: any }> }, id: string): Promise<any> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const res = await org.call('identity.getOrganizationExport', { id });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    if (res.body.status === 'ready' || res.body.status === 'failed') return res.body;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`export ${id} did not finish`);
}

test('identity.exportOrganization: the archive an owner downloads holds what `firstcrack org export` writes, and nothing of another organization', async () => {
  // A blob of each organization beside the chain's curves, so the archive's blobs are more than one kind.
  await server.app.services.blobs.put(`imports/${leaving.id}/imp_x/source.csv`, 'lot,kg\nA,60\n', 'text/csv');
  await server.app.services.blobs.put(`imports/${staying.id}/imp_y/source.csv`, 'lot,kg\nB,70\n', 'text/csv');
  const tables = (await organizationTables(server.owner as any, MODULES)).map((t) => t.table);
  assert.ok(tables.includes('organization_exports'), 'the exports table is an organization table like any other');
  const stayingBefore = await countsOf(staying.id, tables);

  const queued = await leaving.call('identity.exportOrganization', {});
  assert.equal(queued.status, 200, JSON.stringify(queued.body));
  assert.equal(queued.body.status, 'queued');
  assert.equal(queued.body.download, null);
  const ready = await finishedExport(leaving, queued.body.id);
  assert.equal(ready.status, 'ready', JSON.stringify(ready));
  assert.ok(ready.download?.url && ready.sizeBytes > 0, JSON.stringify(ready));

  // Another organization cannot see it, nor download it through a link of its own making.
  assertProblem(await staying.call('identity.getOrganizationExport', { id: queued.body.id }), 404, 'not_found');
  assert.deepEqual(await countsOf(staying.id, tables), stayingBefore, 'the other organization is untouched');

  const downloaded = await server.request(ready.download.url);
  assert.equal(downloaded.status, 200, await downloaded.clone().text());
  assert.equal(downloaded.headers.get('content-type'), 'application/gzip');
  assert.match(downloaded.headers.get('content-disposition') ?? '', new RegExp(`${queued.body.id}\\.tar\\.gz`));
  const apiFile = join(work, 'api.tar.gz');
  writeFileSync(apiFile, Buffer.from(await downloaded.arrayBuffer()));
  assert.equal(readFileSync(apiFile).length, ready.sizeBytes);
  // A link naming another organization is refused (the signature covers it).
  const forged = ready.download.url.replace(`org=${leaving.id}`, `org=${staying.id}`);
  assert.equal((await server.request(forged)).status, 403);

  // The CLI's archive, written now by the same function `firstcrack org export` runs.
  const cliFile = join(work, 'cli.tar.gz');
  await exportOrganization(server.owner as any, MODULES, leaving.id, cliFile, server.app.services.blobs);
  const [apiDir, cliDir] = [join(work, 'api'), join(work, 'cli')];
  for (const [file, dir] of [[apiFile, apiDir], [cliFile, cliDir]]) {
    mkdirSync(dir);
    execFileSync('tar', ['-xzf', file, '-C', dir]);
  }
  const [api, cli] = [filesOf(apiDir), filesOf(cliDir)];
  assert.deepEqual([...api.keys()].sort(), [...cli.keys()].sort(), 'the same files');
  for (const table of tables) assert.ok(api.has(`tables/${table}.json`), `${table} is in the archive`);
  for (const [path, bytes] of api) {
    if (path === 'manifest.json') {
      const [a, c] = [JSON.parse(bytes.toString()), JSON.parse(cli.get(path)!.toString())];
      assert.deepEqual({ ...a, exportedAt: null }, { ...c, exportedAt: null }, 'the manifest, but for its time');
    } else if (path === 'tables/organization_exports.json') {
      // Its own row is `building` in the job's snapshot and `ready` by the CLI's: the same exports all the same.
      const ids = (b: Buffer) => JSON.parse(b.toString()).map((r: any) => r.id).sort();
      assert.deepEqual(ids(bytes), ids(cli.get(path)!));
      assert.deepEqual(JSON.parse(bytes.toString()).find((r: any) => r.id === queued.body.id)?.status, 'building');
    } else {
      assert.ok(bytes.equals(cli.get(path)!), `${path}: the same bytes`);
    }
    if (path.startsWith('tables/')) assert.ok(JSON.parse(bytes.toString()).every((r: any) => r.org_id === leaving.id), `${path}: only the organization's rows`);
  }
  const blobs = [...api.keys()].filter((p) => p.startsWith('blobs/'));
  assert.ok(blobs.includes(`blobs/imports/${leaving.id}/imp_x/source.csv`), 'its blobs are in the archive');
  assert.ok(blobs.some((p) => p.startsWith(`blobs/curves/${leaving.id}/`)), 'its full roast curves are in the archive');
  assert.ok(blobs.every((p) => p.split('/')[2] === leaving.id), 'only its own blobs');
  assert.ok(!blobs.some((p) => p.startsWith('blobs/organization-exports/')), 'no earlier export archive inside an export');
  assert.deepEqual(ready.contents.tables, JSON.parse(api.get('manifest.json')!.toString()).tables);
  assert.equal(ready.contents.blobs, blobs.length);
});

test('only an owner exports the organization or reads its exports: an admin, a viewer and a roaster are refused and nothing is queued', async () => {
  const queued = await leaving.call('identity.exportOrganization', {});
  assert.equal(queued.status, 200);
  const [exportsBefore, jobsBefore] = [await exportsOf(leaving.id), await jobsQueued()];
  for (const role of ['admin', 'viewer', 'roaster'] as const) {
    const key = await leaving.createKey(role);
    assertProblem(await server.call(key, 'identity.exportOrganization', {}), 403, 'permission_denied');
    assertProblem(await server.call(key, 'identity.getOrganizationExport', { id: queued.body.id }), 403, 'permission_denied');
  }
  assert.equal(await exportsOf(leaving.id), exportsBefore, 'no export recorded');
  assert.equal(await jobsQueued(), jobsBefore, 'no job queued');
  assertProblem(await leaving.call('identity.getOrganizationExport', { id: 'oex_doesnotexist' }), 404, 'not_found', 'id');
  await finishedExport(leaving, queued.body.id);
});

test('an export whose storage keeps failing is retried, then failed with a reason; a worker that died mid-build is taken up again', async () => {
  const { buildOrganizationExport } = await import('../src/modules/identity/export.js');
  const failing = { ...server.app.services.blobs, listOrganizationObjects: server.app.services.blobs.listOrganizationObjects.bind(server.app.services.blobs), get: server.app.services.blobs.get.bind(server.app.services.blobs), put: async () => { throw new Error('disk full'); } };
  const log = { info() {}, warn() {}, error() {} };
  const ctx = (retryCount: number, blobs: typeof server.app.services.blobs) => ({
    databases: server.app.databases, blobs, log, jobId: 'test', retryCount, signal: new AbortController().signal, config: server.config, jobs: server.app.services.jobs, modules: MODULES,
  });
  // Recorded as a queued export whose job has not run (inserted directly, so no worker races the test).
  const insert = async (id: string) =>
    server.owner.query(`insert into organization_exports (org_id, id, credential_id) values ($1, $2, 'key_test')`, [leaving.id, id]);
  await insert('oex_broken01');
  await assert.rejects(buildOrganizationExport(ctx(0, failing), { orgId: leaving.id, exportId: 'oex_broken01' }), /disk full/, 'a first failure is retried');
  assert.equal((await leaving.call('identity.getOrganizationExport', { id: 'oex_broken01' })).body.status, 'building');
  await buildOrganizationExport(ctx(2, failing), { orgId: leaving.id, exportId: 'oex_broken01' });
  const failed = (await leaving.call('identity.getOrganizationExport', { id: 'oex_broken01' })).body;
  assert.equal(failed.status, 'failed');
  assert.match(failed.failureReason, /disk full.*Ask for a new export/);
  assert.equal(failed.download, null);

  // Left `building` by an attempt that died, its lease run out: the job's retry builds it whole and it is ready once.
  await insert('oex_revived1');
  await server.owner.query(
    `update organization_exports set status = 'building', attempts = 1, started_at = now(), lease_token = 'dead-worker', lease_expires_at = now() - interval '1 second' where org_id = $1 and id = 'oex_revived1'`,
    [leaving.id],
  );
  await buildOrganizationExport(ctx(1, server.app.services.blobs), { orgId: leaving.id, exportId: 'oex_revived1' });
  const revived = (await leaving.call('identity.getOrganizationExport', { id: 'oex_revived1' })).body;
  assert.equal(revived.status, 'ready', JSON.stringify(revived));
  assert.ok(revived.download.url, 'the rebuilt export offers its link');
  // A job run again for a ready export changes nothing.
  await buildOrganizationExport(ctx(0, failing), { orgId: leaving.id, exportId: 'oex_revived1' });
  assert.equal((await leaving.call('identity.getOrganizationExport', { id: 'oex_revived1' })).body.completedAt, revived.completedAt);
});

test('an export whose worker died is queued again by the sweeper once its lease runs out and ends ready; after 3 attempts it fails; a live lease is left alone', async () => {
  const { sweepOrganizationExports, buildOrganizationExport, EXPORT_LEASE_SECONDS } = await import('../src/modules/identity/export.js');
  const repo = await import('../src/modules/identity/repository.js');
  const log = { info() {}, warn() {}, error() {} };
  const ctx = { databases: server.app.databases, blobs: server.app.services.blobs, log, jobId: 'test', retryCount: 0, signal: new AbortController().signal, config: server.config, jobs: server.app.services.jobs, modules: MODULES };
  // What a worker killed mid-build leaves: building under its lease, which then runs out (or still holds).
  const left = (id: string, attempts: number, lease: string) =>
    server.owner.query(
      `insert into organization_exports (org_id, id, credential_id, status, attempts, started_at, lease_token, lease_expires_at)
       values ($1, $2, 'key_test', 'building', $3, now(), 'dead-worker', now() + $4::interval)`,
      [leaving.id, id, attempts, lease],
    );
  await left('oex_died0001', 1, '-1 second');
  await left('oex_died0003', 3, '-1 second');
  await left('oex_alive001', 1, `${EXPORT_LEASE_SECONDS} seconds`);
  // A live lease is not taken by another attempt.
  await buildOrganizationExport(ctx, { orgId: leaving.id, exportId: 'oex_alive001' });
  assert.equal((await leaving.call('identity.getOrganizationExport', { id: 'oex_alive001' })).body.status, 'building', 'another attempt leaves a live lease alone');

  assert.deepEqual(await sweepOrganizationExports(ctx), { requeued: 1, failed: 1 });
  const again = await finishedExport(leaving, 'oex_died0001');
  assert.equal(again.status, 'ready', JSON.stringify(again));
  const [row] = await server.owner.query<{ attempts: number; lease_token: string | null }>(`select attempts, lease_token from organization_exports where org_id = $1 and id = 'oex_died0001'`, [leaving.id]);
  assert.deepEqual(row, { attempts: 2, lease_token: null });
  // The dead attempt, had it come back, could not mark it ready a second time.
  const late = await server.app.databases.service.transaction(
    (tx) => repo.markExportReady(tx, leaving.id, 'oex_died0001', 'dead-worker', { blobKey: 'x', sizeBytes: 1, contents: { tables: {}, blobs: 0 } }),
    { orgId: leaving.id },
  );
  assert.equal(late, false);
  const gaveUp = (await leaving.call('identity.getOrganizationExport', { id: 'oex_died0003' })).body;
  assert.equal(gaveUp.status, 'failed');
  assert.match(gaveUp.failureReason, /stopped 3 times.*Ask for a new export/);
  assert.equal((await leaving.call('identity.getOrganizationExport', { id: 'oex_alive001' })).body.status, 'building', 'the sweeper leaves a live lease alone');
  assert.deepEqual(await sweepOrganizationExports(ctx), { requeued: 0, failed: 0 }, 'nothing else is stalled');
  await server.owner.query(`update organization_exports set status = 'failed', failure_reason = 'test', lease_token = null where org_id = $1 and id = 'oex_alive001'`, [leaving.id]);
});
