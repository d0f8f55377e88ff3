import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import type { Database } from '../db/client.js';
import type { BlobStore } from '../blobs/store.js';
import { tenantTables } from '../db/tenant-tables.js';

const run = promisify(execFile);

/**
 * Everything an organization owns, as one archive: what `firstcrack org export` writes and what the
 * organization-export job (identity.exportOrganization) stores for download. One function for both, so the
 * archive a hosted customer downloads is the one an operator's CLI writes.
 */

/** Where the export job stores its archives: `organization-exports/<orgId>/<exportId>.tar.gz`. An export leaves these out (an archive never holds the previous ones). */
export const EXPORT_BLOB_KIND = 'organization-exports';

/** What the export needs of the modules: their names and the tables their manifests list. */
export type TableOwners = readonly { name: string; tables: readonly string[] }[];

/**
 * The tables an organization's rows live in (every table with an org_id column, src/db/tenant-tables.ts), each
 * with the module whose manifest lists it (`platform` for the platform's own).
 */
export async function organizationTables(db: Database, modules: TableOwners): Promise<{ table: string; module: string }[]> {
  const owners = new Map(modules.flatMap((m) => m.tables.map((t) => [t, m.name] as const)));
  return (await tenantTables(db)).map((table) => ({ table, module: owners.get(table) ?? 'platform' }));
}

export interface OrganizationExport {
  file: string;
  tables: Record<string, number>;
  blobs: number;
}

/**
 * Writes everything organization `orgId` owns to one .tar.gz: `organization.json` (its row), `tables/<table>.json`
 * (its rows of each table, a JSON array) and `blobs/` (every object the blob store holds for it under `<kind>/<orgId>/`:
 * roast curves, exports, imports, reports; not its earlier export archives), with `manifest.json` listing the tables and row counts. Read as the
 * tables' owner in one snapshot (server mode: REPEATABLE READ), so the tables agree with each other.
 */
export async function exportOrganization(
  db: Database,
  modules: TableOwners,
  orgId: string,
  file: string,
  blobs: BlobStore | null,
): Promise<OrganizationExport> {
  file = resolve(file);
  const staging = `${file}.${randomBytes(4).toString('hex')}.staging`;
  mkdirSync(join(staging, 'tables'), { recursive: true });
  try {
    const tables = await organizationTables(db, modules);
    const counts: Record<string, number> = {};
    await db.transaction(
      async (tx) => {
        const [org] = await tx.query(`select * from organizations where id = $1`, [orgId]);
        writeFileSync(join(staging, 'organization.json'), JSON.stringify(org, null, 2) + '\n');
        for (const { table } of tables) {
          const rows = await tx.query(`select * from ${table} where org_id = $1`, [orgId]);
          counts[table] = rows.length;
          writeFileSync(join(staging, 'tables', `${table}.json`), JSON.stringify(rows) + '\n');
        }
      },
      { snapshot: true },
    );
    let blobCount = 0;
    // Blobs are immutable once stored (a rewrite replaces a key whole), so reading them after the snapshot
    // misses at most an object stored meanwhile, never a half one.
    for (const key of blobs ? await blobs.listOrganizationObjects(orgId) : []) {
      if (key.startsWith(`${EXPORT_BLOB_KIND}/`)) continue;
      const body = await blobs!.get(key);
      if (!body) continue; // deleted since it was listed
      const target = join(staging, 'blobs', ...key.split('/'));
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, body);
      blobCount++;
    }
    writeFileSync(
      join(staging, 'manifest.json'),
      JSON.stringify({ organizationId: orgId, exportedAt: new Date().toISOString(), tables: counts, modules: Object.fromEntries(tables.map((t) => [t.table, t.module])), blobs: blobCount }, null, 2) + '\n',
    );
    await run('tar', ['-czf', `${file}.partial`, '-C', staging, '.']);
    await rename(`${file}.partial`, file);
    return { file, tables: counts, blobs: blobCount };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
