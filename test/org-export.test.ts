import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer } from '../src/testing/harness.js';
import { MODULES } from '../src/modules/index.js';
import { FsBlobStore, blobDir } from '../src/blobs/fs.js';
import { exportOrganization, organizationTables } from '../src/jobs/organization-export.js';
import { buildChain } from '../src/modules/traceability/testing.js';

/** `firstcrack org export`: everything one organization owns, and nothing of another's. */

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
