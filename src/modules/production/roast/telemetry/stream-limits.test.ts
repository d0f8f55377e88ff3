import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { hashSecret, revokeCredential } from '../../../../auth/credentials.js';
import { loadConfig } from '../../../../config.js';
import { newId } from '../../../../lib/ids.js';
import { startTestServer } from '../../../../testing/harness.js';
import { frameRun, type Frames } from '../../../../streaming/frames.js';
import { FanOut, MAX_STREAMS_PER_CREDENTIAL, MAX_STREAMS_PER_ORGANIZATION } from '../../../../streaming/fan-out.js';
import { SseParser, type SseMessage } from '../../../../streaming/sse-client.js';
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

const watch = async (batchId: string, key: string, lastEventId?: number) => {
  const stream = await watchStream(`${server.url}/stream/v1/roast/${batchId}`, {
    authorization: `Bearer ${key}`,
    ...(lastEventId === undefined ? {} : { 'last-event-id': String(lastEventId) }),
  });
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
  // The server sees the close when its socket's close event runs: asked until then (a busy machine takes a while).
  let reopened = await watch(batchId, first);
  for (const until = Date.now() + 10_000; reopened.status === 429 && Date.now() < until; ) reopened = await watch(batchId, first);
  assert.equal(reopened.status, 200, 'a place freed by a closed stream');
});

test('the caps an operator configures (FIRSTCRACK_STREAMS_PER_CREDENTIAL, _PER_ORGANIZATION) replace the defaults', async () => {
  const { streamCaps } = loadConfig({ FIRSTCRACK_STREAMS_PER_CREDENTIAL: '1', FIRSTCRACK_STREAMS_PER_ORGANIZATION: '2' });
  const configured = await startTestServer({ config: { streamCaps } });
  const org = await configured.createOrg();
  const { machineId } = await machineWithToken(org, 'CAPS-1');
  const batchId = newId('rb');
  const store = configured.app.services.liveSessions;
  await store.open({ orgId: org.id, batchId, machineId });
  const own: Watch[] = [];
  const open = async (key: string) => {
    const stream = await watchStream(`${configured.url}/stream/v1/roast/${batchId}`, { authorization: `Bearer ${key}` });
    own.push(stream);
    return stream;
  };
  try {
    const [first, second, third] = [await org.createKey('viewer'), await org.createKey('viewer'), await org.createKey('viewer')];
    assert.equal((await open(first)).status, 200);
    const perCredential = await open(first);
    assert.equal(perCredential.status, 429);
    assert.match(perCredential.problem.detail, /at most 1 per credential/);
    assert.equal((await open(second)).status, 200);
    const perOrganization = await open(third);
    assert.equal(perOrganization.status, 429);
    assert.match(perOrganization.problem.detail, /at most 2 per organization/);
  } finally {
    for (const s of own) s.close();
    await store.discard(org.id, batchId);
  }
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
    admit(this: { ended: boolean }) {
      return !this.ended;
    },
    send(frames: Frames) {
      if (!received.has(i)) received.set(i, []);
      received.get(i)!.push(JSON.parse(Buffer.concat(frames.chunks).toString().split('data: ')[1]).n);
      return frames.bytes;
    },
  }));
  // Two runs of ~100 kB for each of 12 watchers: ~2.4 MB, far more than one slice.
  for (const n of [1, 2]) {
    const run = frameRun([{ id: n, event: 'sample', data: { n, pad: 'x'.repeat(100_000) } as never }]);
    for (const recipient of recipients) fanOut.send(recipient, run);
  }
  assert.equal(received.size, 0, 'nothing is written in the turn that queued it');
  await nextTurn();
  const firstSlice = [...received.values()].reduce((sum, runs) => sum + runs.length, 0);
  assert.ok(firstSlice > 0 && firstSlice < 6, `one slice hands over a few runs, not all 24 (${firstSlice})`);
  for (let turn = 0; turn < 20; turn++) await nextTurn();
  for (let i = 1; i < 12; i++) assert.deepEqual(received.get(i), [1, 2], `watcher ${i} got both runs, in order`);
  assert.equal(received.get(0), undefined, 'a run is not queued for a watcher that does not admit it (ended, or cut off)');

  // Watchers behind a stalled socket only park what they are handed (no copy): a slice hands out a bounded
  // number of runs, not a bounded number of bytes.
  let parked = 0;
  const behind = { ended: false, admit: () => true, send: () => (parked++, 0) };
  const small = frameRun([{ id: 1, event: 'status', data: { state: 'roasting' } }]);
  for (let i = 0; i < 600; i++) fanOut.send(behind, small);
  await nextTurn();
  assert.equal(parked, 256, 'one slice hands 256 runs to watchers that are behind');
  for (let turn = 0; turn < 5; turn++) await nextTurn();
  assert.equal(parked, 600, 'and the rest in the next turns');
});

test('a fan-out that stays behind keeps every watcher’s runs in order as it lets go of those handed out', async () => {
  const fanOut = new FanOut();
  const received: number[] = [];
  const recipient = {
    ended: false,
    admit: () => true,
    send(frames: Frames) {
      received.push(Number(Buffer.concat(frames.chunks).toString().split('data: ')[1]));
      return frames.bytes;
    },
  };
  // More runs than the queue keeps once handed out, queued while it is being drained, as posts arriving faster than it hands them out.
  const runs = Array.from({ length: 12_000 }, (_, n) => frameRun([{ id: n + 1, event: 'sample', data: n as never }]));
  for (const run of runs.slice(0, 6_000)) fanOut.send(recipient, run);
  for (let turn = 0; turn < 20; turn++) await nextTurn();
  for (const run of runs.slice(6_000)) fanOut.send(recipient, run);
  for (let turn = 0; received.length < runs.length && turn < 200; turn++) await nextTurn();
  assert.equal(received.length, runs.length, 'every run was handed out');
  assert.ok(received.every((n, i) => n === i), 'in the order they were queued');
});

test('a watcher that stops reading is cut off with a last too_far_behind event, and resumes from the last id it received', async () => {
  const org = await server.createOrg();
  const batchId = await liveBatch(org, 'SLOW-1');
  const key = await org.createKey('viewer');
  // A raw connection that reads the response's head, then stops reading, as a stalled client does.
  const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
  const received: Buffer[] = [];
  socket.on('data', (chunk) => received.push(chunk));
  socket.write(`GET /stream/v1/roast/${batchId} HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${key}\r\n\r\n`);
  await once(socket, 'data');
  socket.pause();

  // ~12 MB of messages, in runs of ~2 MB: more than the 256 KiB backlog, and than the kernel's buffers of a
  // loopback connection (4 MB to send, some to receive).
  const note = 'x'.repeat(1000);
  const perPost = 2000;
  const posts = 6;
  for (let seq = 1; seq <= posts; seq++) {
    const samples = Array.from({ length: perPost }, (_, i) => ({ t: (seq * perPost + i) * 100, bt: 150, et: 220, note }) as never);
    await live.append(org.id, batchId, seq, samples, []);
  }
  // The fan-out hands the runs over in slices; the kernel takes what it can before the watcher falls behind.
  await new Promise((resolve) => setTimeout(resolve, 500));
  socket.resume();
  await once(socket, 'end');
  socket.destroy();

  const messages: SseMessage[] = [];
  new SseParser((message) => messages.push(message)).push(Buffer.concat(received).toString('utf8').split('\r\n\r\n').slice(1).join('\r\n\r\n'));
  const last = messages.at(-1)!;
  assert.equal(last.event, 'closed');
  assert.equal(JSON.parse(last.data).reason, 'too_far_behind');
  const ids = messages.slice(0, -1).map((m) => Number(m.id));
  assert.ok(ids.length > 0 && ids.length < posts * perPost, `some of the messages came before the cut (${ids.length})`);
  assert.deepEqual(ids, Array.from({ length: ids.length }, (_, i) => i + 1), 'what came did so in order, without a gap');

  const resumed = await watch(batchId, key, ids.length);
  await resumed.until((w) => w.messages.length > 0);
  assert.equal(Number(resumed.messages[0].id), ids.length + 1, 'a stream opened with Last-Event-ID resumes right after it');
  resumed.close();
});
