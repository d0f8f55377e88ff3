import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { startTestServer, type TestOrg, type TestServer } from '../src/testing/harness.js';
import { backup, restore, readManifest, BackupError } from '../src/db/backup.js';
import { loadMigrations } from '../src/db/migrate.js';
import { PostgresDatabase } from '../src/db/client.js';
import { FsBlobStore, blobDir } from '../src/blobs/fs.js';
import { buildChain } from '../src/modules/traceability/testing.js';
import { importLot } from '../src/modules/inventory/green/testing.js';
import { ledgerInvariantViolations } from '../src/modules/inventory/green/invariants.js';
import { bridgeToken, makeRoaster, postCurve, roastedLedgerViolations, startBatch, syntheticRoast } from '../src/modules/production/roast/testing.js';
import { withDatabase } from '../src/testing/template.js';

/**
 * `firstcrack backup` while the service takes writes, and `firstcrack restore` into a fresh data directory
 * (embedded) or database (server mode): what was acknowledged before the backup began is all there, every
 * figure still adds up, lineage and certificates resolve, and the public certificate page answers the same.
 */

const work = mkdtempSync(join(tmpdir(), 'fc-backup-'));
after(() => rmSync(work, { recursive: true, force: true }));
const embedded = !process.env.DATABASE_URL;

const source: TestServer = await startTestServer({ onDisk: embedded ? join(work, 'source') : undefined });
const org: TestOrg = await source.createOrg('enterprise', 'Backup Rösterei');
const bystander: TestOrg = await source.createOrg('enterprise', 'Other roastery');
const chain = await buildChain(org);
const certificate = (
  await org.call('traceability.issueCertificate', {
    roastedLotId: chain.firstRoast.roastedLotId,
    orderLineId: chain.nordShipment.lineId,
    fulfillmentId: chain.nordShipment.fulfillmentId,
  })
).body;
const pageBefore = await (await source.request(certificate.publicPath)).text();

/** Writes of several kinds, as fast as they are answered, until stopped; each acknowledged one is noted with its moment. */
async function writeLoad(stop: AbortSignal) {
  const acknowledged: { kind: string; id: string; at: number }[] = [];
  const parent = await importLot(org, { weightKg: '5000' });
  const worker = async (n: number) => {
    for (let i = 0; !stop.aborted; i++) {
      const which = (n + i) % 3;
      if (which === 0) {
        const lot = await importLot(org, { weightKg: '12.5' });
        acknowledged.push({ kind: 'green_lots', id: lot.id, at: performance.now() });
      } else if (which === 1) {
        const res = await org.call('catalog.location.createLocation', { name: `Shelf ${n}-${i}`, code: `S${n}-${i}-${randomBytes(2).toString('hex')}`, kind: 'warehouse' });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        acknowledged.push({ kind: 'locations', id: res.body.id, at: performance.now() });
      } else {
        const res = await org.call('inventory.green.splitGreenLot', { id: parent.id, weightKg: '0.1', newLotCode: `SPL-${n}-${i}-${randomBytes(2).toString('hex')}` });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        acknowledged.push({ kind: 'green_lots', id: res.body.child.id, at: performance.now() });
      }
    }
  };
  return { acknowledged, done: Promise.all([0, 1, 2].map(worker)) };
}

test('a backup taken under a mixed write load restores with every acknowledged write, balanced ledgers, lineage and certificates', async () => {
  // Embedded, a live roast session is part of the backup: its samples are in the data directory's journal.
  let live: { batchId: string; samples: number } | undefined;
  if (embedded) {
    const machine = await makeRoaster(org);
    const token = await bridgeToken(org, machine.id);
    const batch = await startBatch(org, { machineId: machine.id });
    const curve = syntheticRoast({ hz: 1 });
    await postCurve(source, token, batch.id, curve);
    live = { batchId: batch.id, samples: curve.samples.length };
  }

  const stop = new AbortController();
  const load = await writeLoad(stop.signal);
  load.done.catch(() => {}); // awaited below; a failure there fails the test
  // Let the load run a little before and during the backup.
  while (load.acknowledged.length < 10) await new Promise((resolve) => setImmediate(resolve));
  const backupStarted = performance.now();
  const file = join(work, 'backup.tar.gz');
  const made = await backup(source.config, file);
  console.log(`backup: ${Math.round(performance.now() - backupStarted)} ms, statements paused ${made.pauseMs?.toFixed(1) ?? '-'} ms (${made.copiedAtInstantBytes ?? '-'} bytes copied then), ${made.bytes} bytes, ${load.acknowledged.length} writes so far`);
  stop.abort();
  await load.done;
  const before = load.acknowledged.filter((w) => w.at < backupStarted);
  assert.ok(before.length >= 10, `writes acknowledged before the backup: ${before.length}`);
  assert.ok(load.acknowledged.length > before.length || made.bytes > 0, 'the load ran while the backup was made');

  const manifest = await readManifest(file);
  assert.equal(manifest.mode, embedded ? 'embedded' : 'postgres');
  assert.equal(manifest.schemaVersion, loadMigrations().at(-1)!.version);
  if (embedded) assert.equal(made.throughServer, true, 'the running server made the copy over its control socket');

  // Restore into a fresh data directory (and, in server mode, a new empty database).
  const restoredDir = join(work, 'restored');
  let restoredUrl: string | undefined;
  let dropRestored = async () => {};
  if (!embedded) {
    const name = `fc_test_restore_${randomBytes(5).toString('hex')}`;
    const admin = PostgresDatabase.open(process.env.DATABASE_URL!, 1);
    await admin.query(`create database ${name}`);
    restoredUrl = withDatabase(process.env.DATABASE_URL!, name);
    dropRestored = async () => {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.close();
    };
  }
  after(() => dropRestored());
  const restoreConfig = { ...source.config, dataDir: restoredDir, ...(restoredUrl ? { databaseUrl: restoredUrl } : {}) };
  const restored = await restore(restoreConfig, file);
  assert.deepEqual(restored.migrated, [], 'a backup of the current schema needs no migration');

  const target = await startTestServer({
    onDisk: embedded ? restoredDir : undefined,
    databaseUrl: restoredUrl,
    config: { secretKey: source.config.secretKey, ...(embedded ? {} : { dataDir: restoredDir }) },
  });
  const db = target.owner;

  for (const write of before) {
    const [row] = await db.query<{ n: number }>(`select count(*)::int as n from ${write.kind} where org_id = $1 and id = $2`, [org.id, write.id]);
    assert.equal(row.n, 1, `acknowledged before the backup, missing after the restore: ${write.kind} ${write.id}`);
  }
  assert.deepEqual(await ledgerInvariantViolations(db), [], 'every green balance equals the sum of its ledger rows');
  assert.deepEqual(await roastedLedgerViolations(db, org.id), [], 'every roasted balance equals the sum of its ledger rows');

  const [dangling] = await db.query<{ n: number }>(
    `select count(*)::int as n from lineage_edges e
     where not exists (select 1 from green_lots g where g.id in (e.from_id, e.to_id))
       and not exists (select 1 from roasted_lots r where r.id in (e.from_id, e.to_id))
       and not exists (select 1 from roast_batches b where b.id in (e.from_id, e.to_id))`,
  );
  assert.equal(dangling.n, 0, 'every lineage edge names a stored lot or batch');
  const traceBefore = await org.call('traceability.traceBackward', { kind: 'order_line', id: chain.suedShipment.lineId });
  const trace = await target.call(org.key, 'traceability.traceBackward', { kind: 'order_line', id: chain.suedShipment.lineId });
  assert.equal(trace.status, 200, JSON.stringify(trace.body));
  assert.deepEqual(trace.body, traceBefore.body, 'the lineage of a shipped line resolves as before');

  const page = await target.request(certificate.publicPath);
  assert.equal(page.status, 200);
  assert.equal(await page.text(), pageBefore, 'the public certificate page answers as before');
  const issued = await target.call(org.key, 'traceability.listCertificates', { filter: { roastedLotId: chain.firstRoast.roastedLotId } }, { method: 'GET' });
  assert.deepEqual(issued.body.items.map((c: any) => c.id), [certificate.id]);

  // Every stored roast curve's full-fidelity blob came along.
  const keys = await db.query<{ key: string }>(`select full_curve_key as key from roast_curves where full_curve_key is not null`);
  assert.ok(keys.length > 0, 'the chain stored curves');
  const blobs = new FsBlobStore(blobDir(restoredDir));
  for (const { key } of keys) assert.ok((await blobs.get(key)) !== null, `blob ${key} restored`);

  // The other organization's data came along untouched, and both answer with their keys.
  assert.equal((await target.call(bystander.key, 'catalog.location.listLocations', {})).status, 200);

  if (live) {
    const completed = await target.call(org.key, 'production.roast.completeRoastBatch', { id: live.batchId, dropWeightKg: '8.5' });
    assert.equal(completed.status, 200, JSON.stringify(completed.body));
    const [curve] = await db.query<{ n: number }>(`select full_sample_count::int as n from roast_curves where batch_id = $1`, [live.batchId]);
    assert.equal(curve.n, live.samples, 'the live session’s samples were in the backup');
  }
});

test('a restore refuses a backup of a newer schema, and a target that is not empty, writing nothing', async () => {
  const file = join(work, 'backup.tar.gz');
  const newer = join(work, 'newer.tar.gz');
  // The same backup with a migration this build does not know added to its manifest.
  const { execFileSync } = await import('node:child_process');
  const { readFileSync, writeFileSync, mkdirSync, readdirSync } = await import('node:fs');
  const unpacked = join(work, 'unpacked');
  mkdirSync(unpacked);
  execFileSync('tar', ['-xzf', file, '-C', unpacked, './manifest.json']);
  const manifest = JSON.parse(readFileSync(join(unpacked, 'manifest.json'), 'utf8'));
  manifest.migrations.push('209912312359_future_thing');
  manifest.schemaVersion = '209912312359_future_thing';
  writeFileSync(join(unpacked, 'manifest.json'), JSON.stringify(manifest));
  execFileSync('tar', ['-czf', newer, '-C', unpacked, './manifest.json']);
  const empty = join(work, 'empty');
  await assert.rejects(restore({ ...source.config, dataDir: empty }, newer), (error: Error) => {
    assert.ok(error instanceof BackupError, 'a BackupError');
    assert.match(error.message, /newer than this Firstcrack knows/);
    assert.match(error.message, /209912312359_future_thing/);
    return true;
  });
  assert.throws(() => readdirSync(empty), 'nothing was written');
  if (embedded) {
    const used = join(work, 'used');
    mkdirSync(used);
    writeFileSync(join(used, 'notes.txt'), 'keep me');
    await assert.rejects(restore({ ...source.config, dataDir: used }, file), /is not empty/);
    assert.deepEqual(readdirSync(used), ['notes.txt']);
  } else {
    await assert.rejects(restore(source.config, file), /database is not empty/);
  }
});
