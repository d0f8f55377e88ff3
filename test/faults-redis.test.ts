import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newId } from '../src/lib/ids.js';
import { startTestServer } from '../src/testing/harness.js';
import { startTcpProxy, targetOf } from '../src/testing/tcp-proxy.js';
import { machineWithToken, postSamples, watchStream } from '../src/modules/production/roast/telemetry/testing.js';
import { issueToken, makeMachine, makeSite, postShots, shot } from '../src/modules/cafe/testing.js';

/**
 * Redis going away and coming back (server mode): the service reaches Redis through a proxy this test
 * controls, which drops every connection and refuses new ones, then lets them through again. The shared
 * Redis itself is never touched.
 */

const BUDGET = 30;
const sample = (t: number) => ({ t, bt: 150 + t / 1000, et: 220 });

test('Redis goes away and comes back: rate limits counted per process, roast posts and new streams 503 for the bridge or watcher to retry, shots still taken, streams open through the outage or after it get every frame', async (t) => {
  if (!process.env.REDIS_URL || !process.env.DATABASE_URL) return t.skip('REDIS_URL is not set: Redis is a server-mode store (embedded keeps limits in memory and sessions on disk)');
  const proxy = await startTcpProxy(targetOf(process.env.REDIS_URL, 6379));
  t.after(() => proxy.close());
  const server = await startTestServer({
    config: { redisUrl: proxy.via(process.env.REDIS_URL) },
    rateWindows: [{ name: 'sustained', points: BUDGET, seconds: 3600 }],
  });
  const org = await server.createOrg('enterprise', 'Redis roastery');
  const live = server.app.services.liveSessions;
  const { machineId, token } = await machineWithToken(org, 'RR-1');
  const batchId = newId('rb');
  await live.open({ orgId: org.id, batchId, machineId });
  const siteId = await makeSite(org);
  const barMachine = await makeMachine(org, siteId);
  const barToken = await issueToken(org, barMachine);
  // Streams opened during and after the outage use a key of their own: its rate limit is not the one the
  // test spends below.
  const streamKey = await org.createKey('owner');

  const watcher = await watchStream(`${server.url}/stream/v1/roast/${batchId}`, { authorization: `Bearer ${org.key}` });
  assert.equal(watcher.status, 200);
  assert.equal((await postSamples(server.url, token, batchId, { seq: 0, samples: [sample(0), sample(1000)] })).status, 202);
  await watcher.until((w) => w.messages.length === 2);

  proxy.cut();
  // The roast post answers 503 with Retry-After: Redis holds the only copy of a live session, so the bridge keeps the post and sends it again.
  const refused = await postSamples(server.url, token, batchId, { seq: 1, samples: [sample(2000), sample(3000)] });
  assert.equal(refused.status, 503, JSON.stringify(refused.body));
  assert.equal(refused.body.code, 'live_store_unavailable');
  assert.ok(Number(refused.headers.get('retry-after')) > 0, 'Retry-After is a number of seconds');
  // The live bar's shots are stored in the database and keep being taken; the live bar itself is out of reach.
  const shots = await postShots(server.url, barToken, barMachine, { shots: [shot()] });
  assert.ok(shots.status >= 200 && shots.status < 300, `a shot is still taken: ${shots.status} ${shots.text}`);
  const bar = await org.call('cafe.getLiveBar', { siteId });
  assert.deepEqual([bar.status, bar.body.code], [503, 'live_store_unavailable']);
  // A stream asked for meanwhile answers 503 with Retry-After (the session is looked up in Redis itself): the
  // watcher tries again later, instead of a stream that opens and is then dropped.
  const refusedStream = await watchStream(`${server.url}/stream/v1/roast/${batchId}`, { authorization: `Bearer ${streamKey}`, 'last-event-id': '2' });
  assert.deepEqual([refusedStream.status, refusedStream.problem?.code], [503, 'live_store_unavailable']);
  assert.ok(Number(refusedStream.headers.get('retry-after')) > 0, 'Retry-After is a number of seconds');
  // Rate limits: this process counts on its own meanwhile (from the outage on: the live bar's call was the
  // first), and still refuses past the budget.
  const statuses: number[] = [];
  for (let i = 1; i <= BUDGET; i++) statuses.push((await org.call('catalog.location.listLocations', {})).status);
  assert.deepEqual(statuses.slice(0, BUDGET - 1), Array(BUDGET - 1).fill(200), 'requests within the budget are served');
  assert.equal(statuses[BUDGET - 1], 429, 'the budget is still enforced, per process');

  const restoredAt = Date.now();
  proxy.restore();
  // A stream opened right after Redis returns (tried again on 503, as told, until the service reaches Redis).
  let opened = refusedStream;
  while (opened.status === 503) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    opened = await watchStream(`${server.url}/stream/v1/roast/${batchId}`, { authorization: `Bearer ${streamKey}`, 'last-event-id': '2' });
  }
  assert.equal(opened.status, 200, JSON.stringify(opened.problem));
  // The bridge's resend: answered 503 until the store is reachable again, then stored once.
  let resent = refused;
  while (resent.status === 503) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    resent = await postSamples(server.url, token, batchId, { seq: 1, samples: [sample(2000), sample(3000)] });
  }
  assert.equal(resent.status, 202, JSON.stringify(resent.body));
  t.diagnostic(`roast posts stored again ${Date.now() - restoredAt} ms after Redis returned`);
  assert.equal((await postSamples(server.url, token, batchId, { seq: 2, samples: [sample(4000)] })).status, 202);
  // The stream that stayed connected through the outage and the one opened after it both get every frame
  // posted after recovery, once and in order (the service's subscription reads what it missed from the log
  // once it is back, and its reconnection waits at most about a second: src/streaming/live-redis.ts).
  const expected = [['3', 2000], ['4', 3000], ['5', 4000]];
  const received = (w: typeof watcher) => w.messages.slice(w === watcher ? 2 : 0).map((m) => [m.id, JSON.parse(m.data).t]);
  await watcher.until((w) => w.messages.length === 2 + expected.length, 20_000);
  await opened.until((w) => w.messages.length === expected.length, 20_000);
  assert.deepEqual(received(watcher), expected);
  assert.deepEqual(received(opened), expected);
  assert.equal((await postSamples(server.url, token, batchId, { seq: 3, samples: [sample(5000)] })).status, 202);
  expected.push(['6', 5000]);
  await watcher.until((w) => w.messages.length === 2 + expected.length);
  await opened.until((w) => w.messages.length === expected.length);
  assert.deepEqual(received(watcher), expected);
  assert.deepEqual(received(opened), expected);
  assert.deepEqual(watcher.messages.slice(0, 2).map((m) => m.id), ['1', '2']);
  // A watcher reconnecting with Last-Event-ID (as EventSource does) gets every message after it, once, in order.
  opened.close();
  const resumed = await watchStream(`${server.url}/stream/v1/roast/${batchId}`, { authorization: `Bearer ${streamKey}`, 'last-event-id': '4' });
  assert.equal(resumed.status, 200);
  await resumed.until((w) => w.messages.length === 2);
  assert.equal((await postSamples(server.url, token, batchId, { seq: 4, samples: [sample(6000)] })).status, 202);
  await resumed.until((w) => w.messages.length === 3);
  await watcher.until((w) => w.messages.length === 7);
  assert.deepEqual(resumed.messages.map((m) => [m.id, JSON.parse(m.data).t]), [['5', 4000], ['6', 5000], ['7', 6000]]);
  assert.deepEqual(watcher.messages.map((m) => m.id), ['1', '2', '3', '4', '5', '6', '7'], 'the stream that stayed connected has every message once');
  resumed.close();
  watcher.close();
  assert.deepEqual((await live.readCurve(org.id, batchId))!.samples.map((s) => s.t), [0, 1000, 2000, 3000, 4000, 5000, 6000], 'the session holds each sample once');
  // (Asked with the stream key: the owner key's budget was spent in this process's own counts above.)
  assert.equal((await server.call(streamKey, 'cafe.getLiveBar', { siteId })).status, 200, 'the live bar answers again');
  await live.discard(org.id, batchId);
});
