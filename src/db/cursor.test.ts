// inChunks on the database the suite runs on (PostgreSQL when DATABASE_URL is set, PGlite otherwise).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PgliteDatabase, PostgresDatabase, type Database } from './client.js';
import { inChunks } from './cursor.js';

async function withDatabase(work: (db: Database) => Promise<void>): Promise<void> {
  const db = process.env.DATABASE_URL ? PostgresDatabase.open(process.env.DATABASE_URL, 1) : await PgliteDatabase.open({});
  try {
    await work(db);
  } finally {
    await db.close();
  }
}

const series = `select g from generate_series(1, $1::int) g where g % $2::int <> 0 order by g`;

test('a query’s rows arrive in order, at most `rows` at a time, bound parameters and all', () =>
  withDatabase(async (db) => {
    const chunks = await db.transaction(async (tx) => {
      const seen: number[][] = [];
      for await (const chunk of inChunks<{ g: number }>(tx, series, [10, 5], 3)) seen.push(chunk.map((r) => Number(r.g)));
      return seen;
    });
    assert.deepEqual(chunks, [[1, 2, 3], [4, 6, 7], [8, 9]]);
    const exact = await db.transaction(async (tx) => {
      const sizes: number[] = [];
      for await (const chunk of inChunks(tx, series, [6, 7], 3)) sizes.push(chunk.length);
      return sizes;
    });
    assert.deepEqual(exact, [3, 3], 'a last full chunk is followed by no empty one');
  }));

test('a caller that stops early closes the cursor, and the transaction goes on', () =>
  withDatabase(async (db) => {
    const open = await db.transaction(async (tx) => {
      for await (const chunk of inChunks(tx, series, [100, 1000], 10)) {
        assert.equal(chunk.length, 10, 'a full first chunk');
        break;
      }
      return (await tx.query<{ n: number }>(`select count(*)::int as n from pg_cursors where name like 'chunked\_%'`))[0].n;
    });
    assert.equal(open, 0, 'no cursor left open');
  }));
