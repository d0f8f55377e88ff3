import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import type { Database } from './client.js';

/**
 * The SQL migrations, plain files; the same files serve PGlite and PostgreSQL. Two kinds:
 *  - versioned, `migrations/<version>_<what>.sql`: applied once each, in name order, never edited after they
 *    ship. New ones are named `<YYYYMMDDHHMM>_<module>_<what>.sql` (UTC), so modules adding migrations on
 *    parallel branches do not collide; the first ones carry a four-digit version and sort first. Two files
 *    with the same version are refused, as the order between them would be an accident.
 *  - repeatable, `migrations/repeatable/<module>_<what>.sql`: SQL functions (and triggers, policies) that change
 *    over time, one current text each, written to be re-run (`create or replace`). Applied after the
 *    versioned migrations, in name order, whenever the text differs from the one last applied.
 */
export const migrationsDir = fileURLToPath(new URL('../../migrations/', import.meta.url));

export interface Migration {
  version: string;
  sql: string;
}

export interface Repeatable {
  name: string;
  sql: string;
  hash: string;
}

const VERSIONED_NAME = /^(\d+)_[a-z0-9][a-z0-9_]*\.sql$/;
/** The name every new versioned migration takes: a UTC minute, then its module and what it does. */
const NEW_NAME = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})_[a-z0-9]+_[a-z0-9][a-z0-9_]*\.sql$/;
/** The last of the first migrations, which carry a four-digit version; none is added after it. */
const LAST_FOUR_DIGIT_VERSION = '0016';
/** Shipped before the scheme was checked, named after their module alone; never renamed, as they are applied already. */
const SHIPPED_WITHOUT_WHAT = new Set(['202611251301_webhooks.sql', '202611251501_cafe.sql', '202611251601_identity.sql']);

/** Why `file` does not follow the naming scheme of versioned migrations, or null when it does. */
export function migrationNameProblem(file: string): string | null {
  const version = VERSIONED_NAME.exec(file)?.[1];
  if (!version) return 'the name must be <YYYYMMDDHHMM>_<module>_<what>.sql in lower case';
  if (version.length === 4) return version <= LAST_FOUR_DIGIT_VERSION ? null : `four-digit versions end at ${LAST_FOUR_DIGIT_VERSION}; name it <YYYYMMDDHHMM>_<module>_<what>.sql`;
  const parts = NEW_NAME.exec(file) ?? (SHIPPED_WITHOUT_WHAT.has(file) ? /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})_/.exec(file) : null);
  if (!parts) return 'the name must be <YYYYMMDDHHMM>_<module>_<what>.sql in lower case';
  const [year, month, day, hour, minute] = parts.slice(1, 6).map(Number);
  const at = new Date(Date.UTC(year, month - 1, day, hour, minute));
  const real = at.getUTCFullYear() === year && at.getUTCMonth() === month - 1 && at.getUTCDate() === day && at.getUTCHours() === hour && at.getUTCMinutes() === minute;
  return real ? null : `${version} is not a UTC minute (YYYYMMDDHHMM)`;
}
const REPEATABLE_NAME = /^[a-z0-9][a-z0-9_]*\.sql$/;

export function loadMigrations(dir = migrationsDir): Migration[] {
  const files = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.sql'))
    .map((entry) => entry.name)
    .sort();
  const byVersion = new Map<string, string>();
  for (const file of files) {
    const problem = migrationNameProblem(file);
    if (problem) throw new Error(`Migration ${file}: ${problem}`);
    const version = VERSIONED_NAME.exec(file)![1];
    const other = byVersion.get(version);
    if (other) throw new Error(`Migrations ${other} and ${file} share the version ${version}; rename the newer one`);
    byVersion.set(version, file);
  }
  return files.map((file) => ({ version: file.replace(/\.sql$/, ''), sql: readFileSync(dir + file, 'utf8') }));
}

export function loadRepeatables(dir = migrationsDir): Repeatable[] {
  const folder = dir + 'repeatable/';
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.sql'))
    .map((entry) => entry.name)
    .sort()
    .map((file) => {
      if (!REPEATABLE_NAME.test(file)) throw new Error(`Repeatable migration ${file}: the name must be <module>_<what>.sql in lower case`);
      const sql = readFileSync(folder + file, 'utf8');
      return { name: file.replace(/\.sql$/, ''), sql, hash: createHash('sha256').update(sql).digest('hex') };
    });
}

/**
 * A fingerprint of every migration's text, versioned and repeatable: a template database is reusable while
 * this is unchanged.
 */
export function migrationsFingerprint(dir = migrationsDir): string {
  const hash = createHash('sha256');
  for (const m of loadMigrations(dir)) hash.update(m.version).update('\0').update(m.sql).update('\0');
  for (const r of loadRepeatables(dir)) hash.update('repeatable/').update(r.name).update('\0').update(r.sql).update('\0');
  return hash.digest('hex').slice(0, 16);
}

/**
 * Applies the pending versioned migrations, then every repeatable one whose text changed, in one transaction
 * serialized across processes by an advisory lock, so several API processes starting at once apply each
 * exactly once. Answers what it applied (repeatables as `repeatable/<name>`).
 */
export async function migrate(db: Database, dir = migrationsDir): Promise<string[]> {
  const migrations = loadMigrations(dir);
  const repeatables = loadRepeatables(dir);
  return db.transaction(async (tx) => {
    await tx.query(`select pg_advisory_xact_lock(7710015)`);
    await tx.query(
      `create table if not exists schema_migrations (version text primary key, applied_at timestamptz not null default now())`,
    );
    await tx.query(
      `create table if not exists schema_repeatables (name text primary key, sha256 text not null, applied_at timestamptz not null default now())`,
    );
    const done = new Set((await tx.query<{ version: string }>(`select version from schema_migrations`)).map((r) => r.version));
    const applied: string[] = [];
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      await tx.exec(migration.sql);
      await tx.query(`insert into schema_migrations (version) values ($1)`, [migration.version]);
      applied.push(migration.version);
    }
    const current = new Map(
      (await tx.query<{ name: string; sha256: string }>(`select name, sha256 from schema_repeatables`)).map((r) => [r.name, r.sha256]),
    );
    for (const repeatable of repeatables) {
      if (current.get(repeatable.name) === repeatable.hash) continue;
      await tx.exec(repeatable.sql);
      await tx.query(
        `insert into schema_repeatables (name, sha256) values ($1, $2)
         on conflict (name) do update set sha256 = excluded.sha256, applied_at = now()`,
        [repeatable.name, repeatable.hash],
      );
      applied.push(`repeatable/${repeatable.name}`);
    }
    return applied;
  });
}
