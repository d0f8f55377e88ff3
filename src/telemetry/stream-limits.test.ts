import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { hashSecret, revokeCredential } from '../auth/credentials.js';
import { newId } from '../lib/ids.js';
import { startTestServer } from '../testing/harness.js';
import { FanOut, MAX_STREAMS_PER_CREDENTIAL, MAX_STREAMS_PER_ORGANIZATION } from './http.js';
import { dataOf, machineWithToken, watchStream, type Watch } from './testing.js';

// Registered before the server starts, so it runs before the server's own teardown closes the session store.
const opened: [string, string][] = [];
const streams: Watch[] = [];
after(async () => {
  for (const s of streams) s.close();
  for (const [orgId, batchId] of opened) await live.discard(orgId, batchId);
});
const server = await startTestServer();
const live = server.app.services.liveSessions;

async function liveBatch(org: Awaited<ReturnType<typeof server.createOrg>>, code: string): Promise<string> {
  const { machineId } = await machineWithToken(org, code);
  const batchId = newId('rb');
  await live.open({ orgId: org.id, batchId, machineId });
  opened.push([org.id, batchId]);
  return batchId;
}

const watch = async (batchId: string, key: string) => {
  const stream = await watchStream(`${server.url}/stream/v1/roast/${batchId}`, { authorization: `Bearer ${key}` });
  streams.push(stream);
  return stream;
};

test('open streams are capped per credential and per organization with 429 too_many_streams', async () => {
  const org = await server.createOrg();
  const batchId = await liveBatch(org, 'CAP-1');
  const first = await org.createKey('viewer');
  for (let i = 0; i < MAX_STREAMS_PER_CREDENTIAL; i++) assert.equal((await watch(batchId, first)).status, 200);
  const refused = await watch(batchId, first);
  assert.equal(refused.status, 429);
  assert.equal(refused.problem.code, 'too_many_streams');
  assert.match(refused.problem.detail, new RegExp(`${MAX_STREAMS_PER_CREDENTIAL} per credential`));

  // Other credentials of the organization fill it up to its own cap; another organization is not affected.
  let open = MAX_STREAMS_PER_CREDENTIAL;
  while (open < MAX_STREAMS_PER_ORGANIZATION) {
    const key = await org.createKey('viewer');
    for (let i = 0; i < MAX_STREAMS_PER_CREDENTIAL && open < MAX_STREAMS_PER_ORGANIZATION; i++, open++) assert.equal((await watch(batchId, key)).status, 200);
  }
  const orgFull = await watch(batchId, await org.createKey('viewer'));
  assert.equal(orgFull.status, 429);
  assert.match(orgFull.problem.detail, new RegExp(`${MAX_STREAMS_PER_ORGANIZATION} per organization`));
  const other = await server.createOrg();
  assert.equal((await watch(await liveBatch(other, 'CAP-2'), other.key)).status, 200, 'another organization still opens streams');

  // A closed stream frees its place.
  for (const s of streams.splice(0)) s.close();
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal((await watch(batchId, first)).status, 200, 'a place freed by a closed stream');
});

test('revoking a key ends its open streams with a closed event, and its requests are refused within 2 s', async () => {
  const org = await server.createOrg();
  const batchId = await liveBatch(org, 'REV-1');
  const key = await org.createKey('viewer');
  const kept = await watch(batchId, org.key);
  const stream = await watch(batchId, key);
  assert.equal(stream.status, 200);
  const [{ id }] = await server.owner.query<{ id: string }>(`select id from credentials where secret_hash = $1`, [hashSecret(key)]);
  assert.ok(await revokeCredential(server.owner, id), 'the key was live');

  await stream.until((s) => s.ended, 6000);
  assert.deepEqual(
    dataOf(stream, 'closed').map((d) => d.reason),
    ['credential_revoked'],
    'the last event says why the stream ended',
  );
  assert.equal(kept.ended, false, 'another credential’s stream stays open');
  await new Promise((resolve) => setTimeout(resolve, 2100));
  const after = await server.call(key, 'catalog.location.listLocations');
  assert.equal(after.status, 401, 'the revoked key is refused once the 2 s credential cache has passed');
});

test('the fan-out hands runs to watchers a slice at a time, each watcher in order', async () => {
  const fanOut = new FanOut();
  const received = new Map<number, number[]>();
  const recipients = Array.from({ length: 12 }, (_, i) => ({
    ended: i === 0,
    send(frames: Buffer) {
      if (!received.has(i)) received.set(i, []);
      received.get(i)!.push(JSON.parse(frames.toString().split('data: ')[1]).n);
    },
  }));
  // Two runs of ~100 kB for each of 12 watchers: ~2.4 MB, far more than one slice.
  const run = (n: number) => [{ id: n, event: 'sample', data: { n, pad: 'x'.repeat(100_000) } }] as never;
  for (const n of [1, 2]) {
    const messages = run(n);
    for (const recipient of recipients) fanOut.send(recipient, messages);
  }
  assert.equal(received.size, 0, 'nothing is written in the turn that queued it');
  await nextTurn();
  const firstSlice = [...received.values()].reduce((sum, runs) => sum + runs.length, 0);
  assert.ok(firstSlice > 0 && firstSlice < 6, `one slice hands over a few runs, not all 24 (${firstSlice})`);
  for (let turn = 0; turn < 20; turn++) await nextTurn();
  for (let i = 1; i < 12; i++) assert.deepEqual(received.get(i), [1, 2], `watcher ${i} got both runs, in order`);
  assert.deepEqual(received.get(0), [1, 2], 'an ended watcher is handed its runs too (it drops them); they do not count against the slice');
});
