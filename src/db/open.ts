import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';
import { PgliteDatabase, PostgresDatabase, type Database } from './client.js';
import { migrate } from './migrate.js';
import { startControlServer } from './snapshot.js';
import { describeProcess, holderRuns } from './owner.js';
import { removeStaleStaging } from './leftovers.js';

/**
 * The two connections a process needs. `owner` owns the tables: it applies migrations and does
 * cross-organization work (creating organizations, keys). `service` is what requests run on: in server
 * mode it logs in as firstcrack_app, which row-level security confines to one organization per
 * transaction. Embedded, both are the one in-process PGlite.
 */
export interface Databases {
  owner: Database;
  service: Database;
  close(): Promise<void>;
}

export class DataDirInUseError extends Error {}

/**
 * `control` (default true), embedded: listen on the data directory's control socket while it is held, so
 * `firstcrack backup` can ask this process for a consistent copy (src/db/backup.ts).
 */
export async function openDatabases(config: Config, options: { migrate?: boolean; control?: boolean } = {}): Promise<Databases> {
  // A backup killed mid-way leaves its staging copy in the data directory; only dead runs' (src/db/leftovers.ts).
  removeStaleStaging(config.dataDir);
  if (config.databaseUrl) {
    const owner = PostgresDatabase.open(config.databaseUrl, 2);
    try {
      if (options.migrate !== false) await migrate(owner);
    } catch (error) {
      await owner.close();
      throw error;
    }
    const service = PostgresDatabase.open(config.databaseAppUrl!, config.databasePoolSize);
    return { owner, service, close: async () => void (await Promise.all([owner.close(), service.close()])) };
  }
  const releaseLock = lockDataDir(config.dataDir);
  try {
    const db = await PgliteDatabase.open({ dataDir: join(config.dataDir, 'pgdata') });
    if (options.migrate !== false) await migrate(db);
    const control = options.control === false ? null : await startControlServer(db, config.dataDir);
    return {
      owner: db,
      service: db,
      close: async () => {
        await control?.close();
        await db.close();
        releaseLock();
      },
    };
  } catch (error) {
    releaseLock();
    throw error;
  }
}

/**
 * PGlite is one process's database: a second process opening the same files would corrupt them. A lock
 * file names the owner process (its pid, and on Linux its start time) and keeps a CLI command or a second
 * server out while that process runs. It is taken over at once when that process is gone: exited, killed
 * and not yet reaped (a zombie holds no files), or its pid reused by another process.
 */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, 'firstcrack.lock');
  const mine = describeProcess(process.pid);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, mine);
      closeSync(fd);
      return () => {
        // Only our own lock: a process that took over a lock we lost must keep it.
        if (readLock(path) === mine) rmSync(path, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const held = readLock(path);
      if (held === null) continue; // released between the open and the read
      const pid = Number(held.split(' ')[0]);
      if (pid && pid !== process.pid && holderRuns(held)) {
        throw new DataDirInUseError(
          `The data directory ${dataDir} is in use by a running Firstcrack server (pid ${pid}). ` +
            `Stop that server first, or run this command against PostgreSQL with DATABASE_URL.`,
        );
      }
      // Stale. Removed only if it still names the same process, so a lock another starter took over meanwhile stays.
      if (readLock(path) === held) rmSync(path, { force: true });
    }
  }
  throw new DataDirInUseError(`Could not lock the data directory ${dataDir}.`);
}

function readLock(path: string): string | null {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
