import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import type { Database } from './client.js';

/** The SQL migrations, plain files applied in name order; the same files serve PGlite and PostgreSQL. */
export const migrationsDir = fileURLToPath(new URL('../../migrations/', import.meta.url));

export interface Migration {
  version: string;
  sql: string;
}

export function loadMigrations(dir = migrationsDir): Migration[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.sql'))
    .sort()
    .map((file) => ({ version: file.replace(/\.sql$/, ''), sql: readFileSync(dir + file, 'utf8') }));
}

/** A fingerprint of every migration's text: a template database is reusable while this is unchanged. */
export function migrationsFingerprint(migrations = loadMigrations()): string {
  const hash = createHash('sha256');
  for (const m of migrations) hash.update(m.version).update('\0').update(m.sql).update('\0');
  return hash.digest('hex').slice(0, 16);
}

/**
 * Applies the pending migrations in one transaction, serialized across processes by an advisory lock,
 * so several API processes starting at once apply each migration exactly once.
 */
export async function migrate(db: Database): Promise<string[]> {
  const migrations = loadMigrations();
  return db.transaction(async (tx) => {
    await tx.query(`select pg_advisory_xact_lock(7710015)`);
    await tx.query(
      `create table if not exists schema_migrations (version text primary key, applied_at timestamptz not null default now())`,
    );
    const done = new Set((await tx.query<{ version: string }>(`select version from schema_migrations`)).map((r) => r.version));
    const applied: string[] = [];
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      await tx.exec(migration.sql);
      await tx.query(`insert into schema_migrations (version) values ($1)`, [migration.version]);
      applied.push(migration.version);
    }
    return applied;
  });
}
