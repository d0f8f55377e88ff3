import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import type { Database } from '../db/client.js';
import type { ModuleManifest } from '../rpc/module.js';
import { tenantTables } from '../db/tenant-tables.js';

const run = promisify(execFile);

/**
 * The tables an organization's rows live in (every table with an org_id column, src/db/tenant-tables.ts), each
 * with the module whose manifest lists it (`platform` for the platform's own).
 */
export async function organizationTables(db: Database, modules: readonly ModuleManifest[]): Promise<{ table: string; module: string }[]> {
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
 * (its rows of each table, a JSON array) and `blobs/` (its roast curves, exports and reports,
 * as stored under `<kind>/<orgId>/`), with `manifest.json` listing the tables and row counts. Read as the
 * tables' owner in one snapshot (server mode: REPEATABLE READ), so the tables agree with each other.
 */
export async function exportOrganization(
  db: Database,
  modules: readonly ModuleManifest[],
  orgId: string,
  file: string,
  blobRoot: string | null,
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
    let blobs = 0;
    if (blobRoot && existsSync(blobRoot)) {
      for (const kind of readdirSync(blobRoot)) {
        const mine = join(blobRoot, kind, orgId);
        if (!existsSync(mine)) continue;
        cpSync(mine, join(staging, 'blobs', kind, orgId), { recursive: true, filter: (source) => !source.endsWith('.partial') });
        blobs += readdirSync(join(staging, 'blobs', kind, orgId), { recursive: true }).length;
      }
    }
    writeFileSync(
      join(staging, 'manifest.json'),
      JSON.stringify({ organizationId: orgId, exportedAt: new Date().toISOString(), tables: counts, modules: Object.fromEntries(tables.map((t) => [t.table, t.module])), blobs }, null, 2) + '\n',
    );
    await run('tar', ['-czf', `${file}.partial`, '-C', staging, '.']);
    await rename(`${file}.partial`, file);
    return { file, tables: counts, blobs };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
