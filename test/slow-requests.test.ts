import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { newId } from '../src/lib/ids.js';
import { RECEIVE_CHECK_INTERVAL_MS, RECEIVE_TIMEOUTS, type ReceiveTimeouts } from '../src/http/slow-clients.js';
import { dataOf, machineWithToken, postSamples, watchStream, type Watch } from '../src/modules/production/roast/telemetry/testing.js';
import { startTestServer } from '../src/testing/harness.js';

/**
 * Connections that send their headers or their body one byte every 2 s are answered 408 (a problem) and
 * closed once past the receive bounds, while other requests, telemetry posts and open streams go on. The
 * bounds are shortened here so a run takes seconds; the service's own are checked to be wired as documented.
 */

const BOUNDS: ReceiveTimeouts = { headersMs: 3000, requestMs: 5000 };
const TRICKLE_MS = 2000;
/** A loaded machine's allowance beyond the bound and Node's check interval. */
const SLACK_MS = 1000;

const streams: Watch[] = [];
const opened: [string, string][] = [];
after(async () => {
  for (const s of streams) s.close();
  for (const [orgId, batchId] of opened) await server.app.services.liveSessions.discard(orgId, batchId);
});
const server = await startTestServer({ receiveTimeouts: BOUNDS });
const org = await server.createOrg();
const { port, hostname } = new URL(server.url);

interface Slow {
  name: string;
  /** What the server sent back. */
  received(): string;
  /** Milliseconds from the request's first byte until the server closed the connection. */
  closed: Promise<number>;
}

/** Sends `head` at once, then `trickle` one byte every TRICKLE_MS (the first with the head). */
async function slowConnection(name: string, head: string, trickle: string): Promise<Slow> {
  const socket = connect(Number(port), hostname);
  socket.on('error', () => {}); // a reset after the answer is the server closing, which is what is measured
  await once(socket, 'connect');
  let received = '';
  socket.on('data', (chunk) => (received += chunk));
  let sent = 0;
  const start = performance.now();
  socket.write(head + trickle[sent++]);
  const timer = setInterval(() => {
    if (sent < trickle.length && socket.writable) socket.write(trickle[sent++]);
  }, TRICKLE_MS);
  const closed = new Promise<number>((resolve) =>
    socket.once('close', () => {
      clearInterval(timer);
      resolve(performance.now() - start);
    }),
  );
  return { name, received: () => received, closed };
}

const headers = (lines: Record<string, string>) => Object.entries(lines).map(([k, v]) => `${k}: ${v}\r\n`).join('');

test('slow headers and slow bodies are answered 408 and closed within the bounds; other requests, posts and streams go on', async (t) => {
  // A live batch with a watcher, opened before the slow connections and kept past every bound.
  const { machineId, token: bridge } = await machineWithToken(org, 'SLOW-1');
  const batchId = newId('rb');
  await server.app.services.liveSessions.open({ orgId: org.id, batchId, machineId });
  opened.push([org.id, batchId]);
  const stream = await watchStream(`${server.url}/stream/v1/roast/${batchId}`, { authorization: `Bearer ${org.key}` });
  streams.push(stream);
  assert.equal(stream.status, 200);

  const body = JSON.stringify({ page: { limit: 10 } }).padEnd(100, ' ');
  const post = JSON.stringify({ seq: 1, samples: [{ t: 0, bt: 150.5, et: 210 }] });
  const slow = await Promise.all([
    ...[1, 2, 3].map((i) =>
      slowConnection(`slow headers ${i}`, '', `POST /rpc/v1/catalog.location.listLocations HTTP/1.1\r\nHost: x\r\nX-Slow: ${'a'.repeat(50)}\r\n\r\n`),
    ),
    ...[1, 2].map((i) =>
      slowConnection(
        `slow body ${i}`,
        `POST /rpc/v1/catalog.location.listLocations HTTP/1.1\r\nHost: x\r\n` +
          headers({ Authorization: `Bearer ${org.key}`, 'Content-Type': 'application/json', 'Content-Length': String(body.length) }) +
          '\r\n',
        body,
      ),
    ),
    slowConnection(
      'slow telemetry post',
      `POST /ingest/v1/roast/${batchId}/samples HTTP/1.1\r\nHost: x\r\n` +
        headers({ Authorization: `Bearer ${bridge}`, 'Content-Type': 'application/json', 'Content-Length': String(post.length) }) +
        '\r\n',
      post,
    ),
  ]);

  // While they trickle: calls are answered at once, and a post reaches the watcher.
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    assert.equal((await server.call(org.key, 'catalog.location.listLocations')).status, 200);
    assert.ok(performance.now() - started < 1000, 'a call is answered at once beside the slow connections');
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  const posted = await postSamples(server.url, bridge, batchId, { seq: 2, samples: [{ t: 1000, bt: 151, et: 211 }] });
  assert.equal(posted.status, 202, JSON.stringify(posted.body));

  const closedAfter = await Promise.all(slow.map((s) => s.closed));
  t.diagnostic(slow.map((s, i) => `${s.name}: closed after ${closedAfter[i].toFixed(0)} ms`).join('; '));
  for (const [i, s] of slow.entries()) {
    const bound = s.name.startsWith('slow headers') ? BOUNDS.headersMs : BOUNDS.requestMs;
    const took = closedAfter[i];
    assert.ok(took >= bound - 100, `${s.name}: closed ${took.toFixed(0)} ms after its first byte, not before its bound (${bound} ms)`);
    assert.ok(took <= bound + RECEIVE_CHECK_INTERVAL_MS + SLACK_MS, `${s.name}: closed ${took.toFixed(0)} ms after its first byte (bound ${bound} + ${RECEIVE_CHECK_INTERVAL_MS} ms)`);
    const answer = s.received();
    assert.match(answer, /^HTTP\/1\.1 408 Request Timeout\r\n/, `${s.name}: answered 408`);
    assert.match(answer, /\r\nContent-Type: application\/problem\+json\r\n/i);
    assert.match(answer, /\r\nConnection: close\r\n/i);
    const problem = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
    assert.equal(problem.status, 408);
    assert.equal(problem.code, 'request_timeout');
    assert.match(problem.detail, /within 3 s.*within 5 s/);
  }

  // The slow post stored nothing; the stream, open longer than every bound, still delivers.
  assert.equal(stream.ended, false, 'a stream is a response, not a request: no receive bound ends it');
  const after = await postSamples(server.url, bridge, batchId, { seq: 3, samples: [{ t: 2000, bt: 152, et: 212 }] });
  assert.equal(after.status, 202);
  await stream.until((w) => dataOf(w, 'sample').length === 2);
  assert.deepEqual(
    dataOf(stream, 'sample').map((d) => d.t),
    [1000, 2000],
    'the stream got both posts and nothing of the slow one',
  );
  assert.equal((await server.call(org.key, 'catalog.location.listLocations')).status, 200, 'the service still answers');
});

test('the service’s own bounds are wired as the README states: headers 10 s, whole request 60 s, checked every second', async () => {
  assert.deepEqual(RECEIVE_TIMEOUTS, { headersMs: 10_000, requestMs: 60_000 });
  assert.equal(RECEIVE_CHECK_INTERVAL_MS, 1000);
  const plain = await startTestServer();
  const node = plain.app.server.server;
  assert.equal(node.headersTimeout, RECEIVE_TIMEOUTS.headersMs);
  assert.equal(node.requestTimeout, RECEIVE_TIMEOUTS.requestMs);
  const configured = server.app.server.server;
  assert.deepEqual([configured.headersTimeout, configured.requestTimeout], [BOUNDS.headersMs, BOUNDS.requestMs]);
});
