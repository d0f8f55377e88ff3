import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';
import { PgliteDatabase, PostgresDatabase, type Database } from './client.js';
import { migrate } from './migrate.js';

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

export async function openDatabases(config: Config, options: { migrate?: boolean } = {}): Promise<Databases> {
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
    return {
      owner: db,
      service: db,
      close: async () => {
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
 * file holding the owner's pid keeps a CLI command (or a second server) out while a server runs, and is
 * taken over when its process is gone.
 */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, 'firstcrack.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = Number(readFileSync(path, 'utf8'));
      if (pid && pid !== process.pid && isAlive(pid)) {
        throw new DataDirInUseError(
          `The data directory ${dataDir} is in use by a running Firstcrack server (pid ${pid}). ` +
            `Stop that server first, or run this command against PostgreSQL with DATABASE_URL.`,
        );
      }
      rmSync(path, { force: true }); // stale: its process is gone
    }
  }
  throw new DataDirInUseError(`Could not lock the data directory ${dataDir}.`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
