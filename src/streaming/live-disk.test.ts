import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DiskLiveSessionStore } from './live-disk.js';
import type { LiveMessage } from './messages.js';
import { messagesOfRun } from './testing.js';

const orgId = 'org_disk';
const batchId = 'rb_disk';
const sample = (t: number) => ({ t, bt: 150, et: 220 });
/** A store of this test's points: samples as above, events with a type. */
const openStore = (root: string) => new DiskLiveSessionStore<ReturnType<typeof sample>, { type: string; t: number }>(root);

async function scratch(t: { after(fn: () => Promise<void>): void }) {
  const root = await mkdtemp(join(tmpdir(), 'fc-live-disk-'));
  t.after(() => rm(root, { recursive: true, force: true }));
  return root;
}

test('a new store on the same directory (a restart) has every acknowledged post, status and seq', async (t) => {
  const root = await scratch(t);
  const before = openStore(root);
  await before.open({ orgId, batchId, machineId: 'mch_a' });
  await before.append(orgId, batchId, 1, [sample(1000), sample(0)], [{ type: 'charge', t: 0 }]);
  await before.publishStatus(orgId, batchId, 'roasting');
  await before.append(orgId, batchId, 2, [sample(2000)], []);
  await before.close();

  const after = openStore(root);
  assert.deepEqual(await after.get(orgId, batchId), { orgId, batchId, machineId: 'mch_a' });
  assert.deepEqual(await after.readCurve(orgId, batchId), { samples: [sample(0), sample(1000), sample(2000)], events: [{ type: 'charge', t: 0 }] });
  assert.deepEqual(await after.append(orgId, batchId, 2, [sample(9000)], []), { duplicate: true, accepted: 0 });
  const seen: LiveMessage[] = [];
  const stop = await after.subscribe(orgId, batchId, 2, (run) => seen.push(...messagesOfRun(run)));
  await after.append(orgId, batchId, 3, [sample(3000)], []);
  stop();
  assert.deepEqual(
    seen.map((m) => [m.id, m.event]),
    [[3, 'roast_event'], [4, 'status'], [5, 'sample'], [6, 'sample']],
  );
  await after.close();
});

test('a torn last line (a crash mid-write) is cut off, and later posts survive the next restart', async (t) => {
  const root = await scratch(t);
  const first = openStore(root);
  await first.open({ orgId, batchId, machineId: 'mch_a' });
  await first.append(orgId, batchId, 1, [sample(0)], []);
  await first.close();
  const log = join(root, 'journal', '0000000001.log');
  await appendFile(log, `${orgId}/${batchId}\t{"seq":2,"samples":[{"t":1000,"b`); // never acknowledged

  const second = openStore(root);
  assert.deepEqual((await second.readCurve(orgId, batchId))!.samples, [sample(0)]);
  assert.deepEqual(await second.append(orgId, batchId, 2, [sample(1000)], []), { duplicate: false, accepted: 1 });
  await second.close();
  assert.equal((await readFile(log, 'utf8')).split('\n').filter(Boolean).length, 2);

  const third = openStore(root);
  assert.deepEqual((await third.readCurve(orgId, batchId))!.samples, [sample(0), sample(1000)]);
  await third.close();
});

test('an append queued behind a discard is refused, never written to a log that is gone', async (t) => {
  const root = await scratch(t);
  const store = openStore(root);
  await store.open({ orgId, batchId, machineId: 'mch_a' });
  await store.append(orgId, batchId, 1, [sample(0)], []);
  const discarding = store.discard(orgId, batchId);
  const late = assert.rejects(store.append(orgId, batchId, 2, [sample(1000)], []), /No live session/);
  await Promise.all([discarding, late]);
  assert.equal(await store.get(orgId, batchId), null);
  assert.equal(await store.readCurve(orgId, batchId), null);
  await store.close();
});

test('concurrent posts of many sessions share the journal, and each session gets back exactly its own, in order', async (t) => {
  const root = await scratch(t);
  const before = openStore(root);
  const batches = Array.from({ length: 20 }, (_, i) => `rb_many_${i}`);
  for (const id of batches) await before.open({ orgId, batchId: id, machineId: 'mch_a' });
  // Each session posts 10 times back to back while the others do the same: writes are grouped across sessions.
  await Promise.all(batches.map(async (id, i) => {
    for (let seq = 0; seq < 10; seq++) await before.append(orgId, id, seq, [sample(seq * 1000 + i)], []);
  }));
  await before.close();

  const after = openStore(root);
  for (const [i, id] of batches.entries()) {
    assert.deepEqual((await after.readCurve(orgId, id))!.samples.map((s) => s.t), Array.from({ length: 10 }, (_, seq) => seq * 1000 + i));
  }
  await after.close();
});

test('journal segments are deleted once every session with lines in them is discarded, also across a restart', async (t) => {
  const root = await scratch(t);
  const segments = () => readdir(join(root, 'journal'));
  const store = new DiskLiveSessionStore(root, { segmentBytes: 100 });
  for (const id of ['rb_seg_a', 'rb_seg_b']) await store.open({ orgId, batchId: id, machineId: 'mch_a' });
  // Each post is larger than a segment: every write after the first begins a new one.
  for (let seq = 0; seq < 3; seq++) {
    await store.append(orgId, 'rb_seg_a', seq, [sample(seq), sample(seq + 1), sample(seq + 2)], []);
    await store.append(orgId, 'rb_seg_b', seq, [sample(seq), sample(seq + 1), sample(seq + 2)], []);
  }
  assert.equal((await segments()).length, 6);
  await store.discard(orgId, 'rb_seg_a');
  // b's segments stay, and the one being written: a's three are gone.
  assert.equal((await segments()).length, 3);
  await store.close();

  const restarted = new DiskLiveSessionStore(root, { segmentBytes: 100 });
  assert.equal((await restarted.readCurve(orgId, 'rb_seg_b'))!.samples.length, 9);
  await restarted.discard(orgId, 'rb_seg_b');
  assert.deepEqual(await segments(), ['0000000006.log'], 'only the segment being written is left');
  await restarted.close();

  // A session discarded while the process was down (its directory removed) frees its segments at the next start.
  const third = new DiskLiveSessionStore(root, { segmentBytes: 100 });
  await third.open({ orgId, batchId: 'rb_seg_c', machineId: 'mch_a' });
  for (let seq = 0; seq < 3; seq++) await third.append(orgId, 'rb_seg_c', seq, [sample(seq), sample(seq + 1), sample(seq + 2)], []);
  await third.close();
  // The segment left full at the restart (b's last, no longer needed) was not written to again: the first write
  // began a new one and the full one went.
  assert.deepEqual(await segments(), ['0000000007.log', '0000000008.log', '0000000009.log']);
  await rm(join(root, orgId, 'rb_seg_c'), { recursive: true });
  const fourth = new DiskLiveSessionStore(root, { segmentBytes: 100 });
  assert.equal(await fourth.get(orgId, 'rb_seg_c'), null);
  assert.equal((await segments()).length, 1);
  await fourth.close();
});
