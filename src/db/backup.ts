import { execFile } from 'node:child_process';
import { closeSync, cpSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { Config } from '../config.js';
import type { PgliteDatabase, Queryable } from './client.js';
import { loadMigrations, migrate } from './migrate.js';
import { openDatabases } from './open.js';
import { PostgresDatabase } from './client.js';
import { linkTree, snapshotEmbedded, snapshotThroughServer } from './snapshot.js';
import { partialPath, removeStalePartials, removeStaleStaging, stagingName } from './leftovers.js';

/**
 * Backups and restores (README "Backups and restores").
 *
 * A backup is one gzip'd tar file: `manifest.json` (the format, the mode it was made in and the schema
 * version, i.e. every migration applied) and the data.
 *  - Embedded: a copy of the data directory (PGlite's `pgdata`, the live roast sessions' journal in `live`,
 *    the secret key) taken while every database statement and every other line of the process waits, so the
 *    copy is the state at one instant, as after a `kill -9` at that instant (PGlite replays its WAL when the
 *    copy is opened). Blobs are written once and renamed into place, so they are hard-linked (copied across
 *    file systems) after that instant: every blob a copied row names was stored before its row committed.
 *  - Server mode: `pg_dump --format=custom` (one snapshot of its own), and the blob directory when blobs are
 *    on the filesystem; blobs in S3 stay in the bucket (its versioning keeps them, README).
 * The running server owns the data directory (src/db/open.ts locks it), so `firstcrack backup` asks it for
 * the copy over a Unix socket in the data directory, which only the directory's owner can open.
 *
 * A backup killed at any point (README "A backup killed mid-way") leaves no file that looks complete: the tar
 * is written to a `.partial` named after its process, fsync'd, renamed onto the real name, and the rename
 * fsync'd with its folder. What a dead run left (that partial, its staging folder) carries its owner in its
 * name and is removed by the next backup, and staging folders also by the service at start (src/db/leftovers.ts).
 */

export const BACKUP_FORMAT = 1;

export interface BackupManifest {
  format: number;
  mode: 'embedded' | 'postgres';
  createdAt: string;
  /** The last versioned migration applied: the schema version the backup was made at. */
  schemaVersion: string;
  /** Every versioned migration applied, so a restore can tell a backup made by another (newer) build. */
  migrations: string[];
  /** `included`: under `blobs/`; `external`: in the S3 bucket, not in the file. */
  blobs: 'included' | 'external' | 'none';
}

export class BackupError extends Error {}

const run = promisify(execFile);

async function appliedMigrations(db: Queryable): Promise<string[]> {
  return (await db.query<{ version: string }>(`select version from schema_migrations order by version`)).map((r) => r.version);
}

/** Refuses a backup made at a schema this build does not know (a newer Firstcrack, or another branch's migrations). */
export function checkSchema(manifest: BackupManifest): void {
  if (manifest.format !== BACKUP_FORMAT) throw new BackupError(`The backup's format ${manifest.format} is not one this Firstcrack reads (${BACKUP_FORMAT}); restore it with a newer Firstcrack.`);
  const known = new Set(loadMigrations().map((m) => m.version));
  const unknown = manifest.migrations.filter((v) => !known.has(v));
  if (unknown.length > 0) {
    const latest = [...known].sort().at(-1);
    throw new BackupError(
      `The backup was made at schema version ${manifest.schemaVersion}, newer than this Firstcrack knows (${latest}; unknown migrations: ${unknown.join(', ')}). ` +
        `Restore it with the Firstcrack version that made it, or a newer one.`,
    );
  }
}

// ---------------------------------------------------------------------------------------------------
// The file.

/**
 * The file appears under its name only complete and on disk: until then it is `<file>.firstcrack-<pid>-….partial`
 * (which `pruneBackups` never counts), and a crash after the rename cannot leave the name pointing at a file
 * whose blocks were never written (the data is fsync'd before the rename, the folder's entry after it).
 */
async function tarCreate(file: string, dir: string): Promise<void> {
  const partial = partialPath(file);
  try {
    await run('tar', ['-czf', partial, '-C', dir, '.']);
    fsyncPath(partial);
    renameSync(partial, file);
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
  fsyncPath(dirname(file));
}

function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export async function readManifest(file: string): Promise<BackupManifest> {
  if (!existsSync(file)) throw new BackupError(`No file ${file}.`);
  try {
    const { stdout } = await run('tar', ['-xzOf', file, './manifest.json'], { maxBuffer: 1 << 20 });
    return JSON.parse(stdout) as BackupManifest;
  } catch {
    throw new BackupError(`${file} is not a Firstcrack backup (no manifest.json in a .tar.gz).`);
  }
}

export interface BackupResult {
  file: string;
  manifest: BackupManifest;
  /** Leftovers of dead backup runs removed before this one began (staging folders, partial files). */
  cleaned: string[];
  /** Embedded: how long statements waited for the copy; through: whether the running server made it. */
  pauseMs?: number;
  copiedAtInstantBytes?: number;
  throughServer?: boolean;
  bytes: number;
}

/**
 * Writes a backup of the configured service to `file`. Embedded, through the running server when one holds
 * the data directory, else by opening it (locked) without migrating; server mode, with pg_dump.
 */
export async function backup(config: Config, file: string, options: { now?: Date } = {}): Promise<BackupResult> {
  file = resolve(file);
  mkdirSync(config.dataDir, { recursive: true });
  const cleaned = [...removeStaleStaging(config.dataDir), ...removeStalePartials(dirname(file))];
  const staging = join(config.dataDir, stagingName());
  try {
    let manifest: BackupManifest;
    let pauseMs: number | undefined;
    let copiedAtInstantBytes: number | undefined;
    let throughServer: boolean | undefined;
    const createdAt = (options.now ?? new Date()).toISOString();
    if (config.databaseUrl) {
      mkdirSync(staging);
      const db = PostgresDatabase.open(config.databaseUrl, 1);
      let migrations: string[];
      try {
        migrations = await appliedMigrations(db);
      } finally {
        await db.close();
      }
      await pgDump(config.databaseUrl, join(staging, 'database.dump'));
      // After the dump: every blob a dumped row names was stored before the row committed.
      if (!config.s3) await linkTree(join(config.dataDir, 'blobs'), join(staging, 'blobs'));
      const blobs = config.s3 ? 'external' : 'included';
      manifest = { format: BACKUP_FORMAT, mode: 'postgres', createdAt, schemaVersion: migrations.at(-1) ?? '', migrations, blobs };
    } else {
      let result = await snapshotThroughServer(config.dataDir, staging);
      throughServer = result !== null;
      if (!result) {
        const dbs = await openDatabases(config, { migrate: false, control: false });
        try {
          result = await snapshotEmbedded(dbs.owner as PgliteDatabase, config.dataDir, staging);
        } finally {
          await dbs.close();
        }
      }
      pauseMs = result.pauseMs;
      copiedAtInstantBytes = result.copiedAtInstantBytes;
      manifest = {
        format: BACKUP_FORMAT,
        mode: 'embedded',
        createdAt,
        schemaVersion: result.migrations.at(-1) ?? '',
        migrations: result.migrations,
        blobs: config.s3 ? 'external' : 'included',
      };
    }
    writeFileSync(join(staging, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
    await tarCreate(file, staging);
    return { file, manifest, cleaned, pauseMs, copiedAtInstantBytes, throughServer, bytes: statSync(file).size };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

async function pgDump(url: string, out: string): Promise<void> {
  try {
    await run('pg_dump', ['--format=custom', '--no-owner', '--file', out, '--dbname', url], { maxBuffer: 16 << 20 });
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === 'ENOENT') throw new BackupError('pg_dump is not on the PATH: install the PostgreSQL client tools of the server\'s major version (Debian: postgresql-client).');
    throw new BackupError(`pg_dump failed: ${(e.stderr ?? e.message).trim()}`);
  }
}

export interface RestoreResult {
  manifest: BackupManifest;
  /** Migrations applied after the restore, bringing an older backup forward. */
  migrated: string[];
}

/**
 * Restores `file` into the configured data directory (embedded; it must be empty or absent) or database
 * (server mode; it must hold no tables), then migrates it forward. A backup of a newer schema is refused
 * before anything is written.
 */
export async function restore(config: Config, file: string): Promise<RestoreResult> {
  file = resolve(file);
  const manifest = await readManifest(file);
  checkSchema(manifest);
  const mode = config.databaseUrl ? 'postgres' : 'embedded';
  if (manifest.mode !== mode) {
    throw new BackupError(
      `The backup was made in ${manifest.mode === 'postgres' ? 'server mode (PostgreSQL)' : 'embedded mode'}; restore it with ${manifest.mode === 'postgres' ? 'DATABASE_URL set' : 'DATABASE_URL unset'}.`,
    );
  }
  if (mode === 'embedded') {
    const dir = config.dataDir;
    if (existsSync(dir) && readdirSync(dir).length > 0) throw new BackupError(`The data directory ${dir} is not empty: restore into an empty or new directory.`);
    mkdirSync(dir, { recursive: true });
    try {
      await run('tar', ['-xzf', file, '-C', dir]);
      rmSync(join(dir, 'manifest.json'), { force: true });
      const dbs = await openDatabases(config, { migrate: false, control: false });
      try {
        return { manifest, migrated: await migrate(dbs.owner) };
      } finally {
        await dbs.close();
      }
    } catch (error) {
      // Leave the directory as it was found: empty.
      for (const entry of readdirSync(dir)) rmSync(join(dir, entry), { recursive: true, force: true });
      throw error;
    }
  }
  const admin = PostgresDatabase.open(config.databaseUrl!, 1);
  try {
    const [{ count }] = await admin.query<{ count: number }>(`select count(*)::int as count from pg_tables where schemaname = 'public'`);
    if (count > 0) throw new BackupError('The database is not empty: restore into a new database (createdb), then point DATABASE_URL at it.');
    // The service role is the cluster's, not the database's: the dump's grants need it.
    await admin.exec(`do $$ begin if not exists (select 1 from pg_roles where rolname = 'firstcrack_app') then create role firstcrack_app login; end if; end $$`);
  } finally {
    await admin.close();
  }
  const staging = join(config.dataDir, stagingName());
  mkdirSync(staging, { recursive: true });
  try {
    await run('tar', ['-xzf', file, '-C', staging]);
    try {
      await run('pg_restore', ['--no-owner', '--exit-on-error', '--single-transaction', '--dbname', config.databaseUrl!, join(staging, 'database.dump')], { maxBuffer: 16 << 20 });
    } catch (error) {
      const e = error as NodeJS.ErrnoException & { stderr?: string };
      if (e.code === 'ENOENT') throw new BackupError('pg_restore is not on the PATH: install the PostgreSQL client tools (Debian: postgresql-client).');
      throw new BackupError(`pg_restore failed: ${(e.stderr ?? e.message).trim()}`);
    }
    if (manifest.blobs === 'included' && !config.s3 && existsSync(join(staging, 'blobs'))) {
      const target = join(config.dataDir, 'blobs');
      if (existsSync(target) && readdirSync(target).length > 0) throw new BackupError(`The blob directory ${target} is not empty; the database is restored, the blobs are not.`);
      cpSync(join(staging, 'blobs'), target, { recursive: true });
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  const dbs = await openDatabases(config, { migrate: false });
  try {
    return { manifest, migrated: await migrate(dbs.owner) };
  } finally {
    await dbs.close();
  }
}

/**
 * Keeps the newest `keep` backups named firstcrack-*.tar.gz in `dir`; answers the ones removed. A `.partial`
 * is not a backup: it is never counted among the `keep`, so it never pushes a good one out. Called only after
 * a backup completed, so a failed or killed run removes nothing.
 */
export function pruneBackups(dir: string, keep: number): string[] {
  const files = readdirSync(dir)
    .filter((name) => /^firstcrack-.*\.tar\.gz$/.test(name))
    .sort()
    .reverse();
  const removed = files.slice(keep);
  for (const name of removed) unlinkSync(join(dir, name));
  return removed;
}

/** The name a scheduled backup takes: sortable by time. */
export const scheduledBackupName = (at: Date) => `firstcrack-${at.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}Z$/, 'Z')}.tar.gz`;
