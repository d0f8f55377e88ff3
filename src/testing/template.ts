import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PgliteDatabase, PostgresDatabase } from '../db/client.js';
import { migrate, migrationsFingerprint } from '../db/migrate.js';

/**
 * Tests clone a migrated template instead of migrating per test file: on PostgreSQL a template
 * database (CREATE DATABASE … TEMPLATE), on PGlite a dump of a migrated data directory. Both are keyed
 * by a fingerprint of the migrations, so a changed migration makes a fresh template.
 */
export async function preparePostgresTemplate(databaseUrl: string): Promise<string> {
  const name = `fc_tpl_${migrationsFingerprint()}`;
  const admin = PostgresDatabase.open(databaseUrl, 1);
  try {
    const [exists] = await admin.query(`select 1 from pg_database where datname = $1`, [name]);
    if (!exists) {
      const building = `${name}_building_${process.pid}`;
      await admin.query(`drop database if exists ${building}`);
      await admin.query(`create database ${building}`);
      const db = PostgresDatabase.open(withDatabase(databaseUrl, building), 1);
      try {
        await migrate(db);
      } finally {
        await db.close();
      }
      try {
        await admin.query(`alter database ${building} rename to ${name}`);
      } catch {
        await admin.query(`drop database if exists ${building}`); // another run finished first
      }
    }
    return name;
  } finally {
    await admin.close();
  }
}

export async function preparePgliteTemplate(): Promise<string> {
  const dir = join(tmpdir(), 'firstcrack-test');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `template-${migrationsFingerprint()}.tar`);
  if (!existsSync(path)) {
    const db = await PgliteDatabase.open({});
    await migrate(db);
    const dump = await db.pglite.dumpDataDir('none');
    await db.close();
    const partial = `${path}.${process.pid}`;
    writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    renameSync(partial, path);
  }
  return path;
}

export async function openPgliteFromTemplate(path: string): Promise<PgliteDatabase> {
  return PgliteDatabase.open({ loadDataDir: new Blob([readFileSync(path)]) });
}

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}
