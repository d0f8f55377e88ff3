// The migrator on the database the suite runs on (PostgreSQL when DATABASE_URL is set, PGlite otherwise),
// each test against its own empty database and its own folder of migrations.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PgliteDatabase, PostgresDatabase, type Database } from './client.js';
import { loadMigrations, loadRepeatables, migrate, migrationNameProblem, migrationsFingerprint, migrationsDir } from './migrate.js';
import { withDatabase } from '../testing/template.js';

/** An empty database for `work`, dropped afterwards. */
async function withEmptyDatabase(work: (db: Database) => Promise<void>): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    const db = await PgliteDatabase.open({});
    try {
      return await work(db);
    } finally {
      await db.close();
    }
  }
  const name = `fc_migrate_test_${randomBytes(4).toString('hex')}`;
  const admin = PostgresDatabase.open(url, 1);
  await admin.query(`create database ${name}`);
  const db = PostgresDatabase.open(withDatabase(url, name), 1);
  try {
    await work(db);
  } finally {
    await db.close();
    await admin.query(`drop database if exists ${name}`);
    await admin.close();
  }
}

/** A folder of migrations: name → text, `repeatable/…` names in its repeatable folder. */
function migrationsFolder(files: Record<string, string>): { dir: string; write: (name: string, sql: string) => void; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'fc-migrations-')) + '/';
  mkdirSync(join(dir, 'repeatable'));
  const write = (name: string, sql: string) => writeFileSync(join(dir, name), sql);
  for (const [name, sql] of Object.entries(files)) write(name, sql);
  return { dir, write, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

const answer = async (db: Database) => (await db.query<{ n: number }>(`select firstcrack_test_answer() as n`))[0].n;

test('a repeatable migration is applied after the versioned ones, once, and again whenever its text changes', async () => {
  const folder = migrationsFolder({
    '0001_numbers.sql': `create table numbers (n int not null);`,
    'repeatable/test_answer.sql': `create or replace function firstcrack_test_answer() returns int language sql as $$ select count(*)::int from numbers $$;`,
  });
  try {
    await withEmptyDatabase(async (db) => {
      assert.deepEqual(await migrate(db, folder.dir), ['0001_numbers', 'repeatable/test_answer'], 'first run: the versioned file, then the repeatable');
      assert.equal(await answer(db), 0, 'the function exists (it reads the table the versioned migration made)');
      assert.deepEqual(await migrate(db, folder.dir), [], 'unchanged: nothing is applied again');

      const changed = `create or replace function firstcrack_test_answer() returns int language sql as $$ select 42 $$;`;
      folder.write('repeatable/test_answer.sql', changed);
      folder.write('202611250500_numbers_seed.sql', `insert into numbers values (1), (2);`);
      assert.deepEqual(await migrate(db, folder.dir), ['202611250500_numbers_seed', 'repeatable/test_answer'], 'the new versioned file, then the changed repeatable');
      assert.equal(await answer(db), 42, 'the current text is in force');
      const [stored] = await db.query<{ sha256: string }>(`select sha256 from schema_repeatables where name = 'test_answer'`);
      assert.equal(stored.sha256, createHash('sha256').update(changed).digest('hex'), 'the applied text’s hash is recorded');
      assert.deepEqual(await migrate(db, folder.dir), [], 'and not applied a third time');
    });
  } finally {
    folder.remove();
  }
});

test('a failing repeatable rolls back the whole run, versioned migrations included', async () => {
  const folder = migrationsFolder({
    '0001_numbers.sql': `create table numbers (n int not null);`,
    'repeatable/test_answer.sql': `create or replace function firstcrack_test_answer() returns int language sql as $$ select 1 $$;`,
  });
  try {
    await withEmptyDatabase(async (db) => {
      await migrate(db, folder.dir);
      folder.write('0002_letters.sql', `create table letters (c text);`);
      folder.write('repeatable/test_answer.sql', `create or replace function firstcrack_test_answer() returns int language sql as $$ select * from no_such_table $$;`);
      await assert.rejects(migrate(db, folder.dir), /no_such_table/, 'the broken repeatable fails the run');
      const [letters] = await db.query<{ found: boolean }>(`select to_regclass('letters') is not null as found`);
      assert.equal(letters.found, false, 'the versioned migration of the failed run was rolled back');
      assert.equal(await answer(db), 1, 'the last good text of the repeatable stays in force');
      folder.write('repeatable/test_answer.sql', `create or replace function firstcrack_test_answer() returns int language sql as $$ select count(*)::int from letters $$;`);
      assert.deepEqual(await migrate(db, folder.dir), ['0002_letters', 'repeatable/test_answer'], 'fixed, both apply');
    });
  } finally {
    folder.remove();
  }
});

test('two versioned migrations with the same version are refused, whatever follows it', () => {
  const folder = migrationsFolder({
    '0001_platform.sql': 'select 1;',
    '202611250500_green_receipts.sql': 'select 1;',
    '202611250500_orders_returns.sql': 'select 1;',
  });
  try {
    assert.throws(
      () => loadMigrations(folder.dir),
      /202611250500_green_receipts\.sql and 202611250500_orders_returns\.sql share the version 202611250500/,
      'the clash names both files',
    );
    folder.remove();
    const ordered = migrationsFolder({ '202611250500_green_receipts.sql': '', '0016_trace.sql': '', '0002_catalog.sql': '' });
    try {
      assert.deepEqual(
        loadMigrations(ordered.dir).map((m) => m.version),
        ['0002_catalog', '0016_trace', '202611250500_green_receipts'],
        'the four-digit versions sort before the timestamped ones',
      );
      ordered.write('Notes.sql', '');
      assert.throws(() => loadMigrations(ordered.dir), /Notes\.sql: the name must be <YYYYMMDDHHMM>_<module>_<what>\.sql/, 'a file without a version is refused');
    } finally {
      ordered.remove();
    }
  } finally {
    folder.remove();
  }
});

test('new migrations follow one naming scheme: <YYYYMMDDHHMM>_<module>_<what>.sql, a real UTC minute', () => {
  assert.equal(migrationNameProblem('202611280650_platform_module_manifests.sql'), null);
  assert.equal(migrationNameProblem('0016_trace_per_direction.sql'), null, 'the first migrations keep their four-digit versions');
  assert.match(migrationNameProblem('0017_orders_returns.sql')!, /four-digit versions end at 0016/);
  assert.match(migrationNameProblem('202613011200_orders_returns.sql')!, /not a UTC minute/, 'month 13');
  assert.match(migrationNameProblem('202611281260_orders_returns.sql')!, /not a UTC minute/, 'minute 60');
  assert.match(migrationNameProblem('202611280650_returns.sql')!, /<YYYYMMDDHHMM>_<module>_<what>/, 'no module');
  assert.match(migrationNameProblem('20261128_orders_returns.sql')!, /<YYYYMMDDHHMM>_<module>_<what>/, 'a date without its minute');
  assert.match(migrationNameProblem('202611280650_Orders_returns.sql')!, /<YYYYMMDDHHMM>_<module>_<what>/, 'upper case');
  const misnamed = readdirSync(migrationsDir).filter((f) => f.endsWith('.sql') && migrationNameProblem(f) !== null);
  assert.deepEqual(misnamed, [], 'every migration in the repository follows the scheme');
});

test('the template fingerprint covers the repeatable migrations', () => {
  const folder = migrationsFolder({
    '0001_numbers.sql': `create table numbers (n int not null);`,
    'repeatable/test_answer.sql': `create or replace function firstcrack_test_answer() returns int language sql as $$ select 1 $$;`,
  });
  try {
    const before = migrationsFingerprint(folder.dir);
    assert.equal(migrationsFingerprint(folder.dir), before, 'the same files give the same fingerprint');
    folder.write('repeatable/test_answer.sql', `create or replace function firstcrack_test_answer() returns int language sql as $$ select 2 $$;`);
    assert.notEqual(migrationsFingerprint(folder.dir), before, 'a changed repeatable changes the fingerprint');
  } finally {
    folder.remove();
  }
  // The project's own: the functions that change over time have one current text each.
  const names = loadRepeatables().map((r) => r.name);
  for (const name of ['lineage_known', 'lineage_trace', 'platform_append_only']) assert.ok(names.includes(name), `repeatable ${name} is loaded (${names.join(', ')})`);
});

test('every SQL function the versioned migrations leave behind has its one current text in a repeatable migration', () => {
  // Created by a versioned migration and not dropped by a later one: the function still exists.
  const live = new Set<string>();
  for (const { sql } of loadMigrations()) {
    for (const [, verb, name] of sql.matchAll(/\b(create(?: or replace)?|drop) function (?:if exists )?(firstcrack_\w+)/gi)) {
      if (verb.toLowerCase() === 'drop') live.delete(name);
      else live.add(name);
    }
  }
  const homes = new Map<string, string[]>();
  for (const { name: file, sql } of loadRepeatables()) {
    for (const [, name] of sql.matchAll(/\bcreate (?:or replace )?function (firstcrack_\w+)/gi)) homes.set(name, [...(homes.get(name) ?? []), file]);
  }
  const homeless = [...live].filter((name) => !homes.has(name)).sort();
  assert.deepEqual(homeless, [], 'functions whose current text lives only in versioned migrations');
  const twice = [...homes].filter(([, files]) => files.length > 1).map(([name, files]) => `${name}: ${files.join(', ')}`);
  assert.deepEqual(twice, [], 'functions defined in more than one repeatable migration');
});
