import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { startTestServer } from '../src/testing/harness.js';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openRateLimiterFactory } from '../src/ratelimit/limiter.js';
import { API_WINDOWS } from '../src/ratelimit/budgets.js';

// Small windows with the production shape (a short burst window inside a longer sustained one), so the
// test can cross both without waiting a minute.
const windows = [
  { name: 'burst', points: 5, seconds: 3 },
  { name: 'sustained', points: 8, seconds: 60 },
];

test('the specification’s budget is the default: 60 per 10 s and 300 per 60 s, checked together', () => {
  assert.deepEqual(API_WINDOWS, [
    { name: 'burst', points: 60, seconds: 10 },
    { name: 'sustained', points: 300, seconds: 60 },
  ]);
});

test('both windows are enforced per credential with 429, Retry-After and a problem body', async () => {
  const server = await startTestServer({ rateWindows: windows });
  const org = await server.createOrg();
  const call = () => org.call('catalog.location.listLocations');

  for (let i = 0; i < 5; i++) {
    const res = await call();
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('ratelimit-policy'), '"burst";q=5;w=3, "sustained";q=8;w=60');
    assert.match(res.headers.get('ratelimit')!, new RegExp(`^"burst";r=${4 - i};t=[1-3]$`));
  }
  const burst = await call();
  assert.equal(burst.status, 429);
  assert.equal(burst.body.code, 'rate_limited');
  assert.match(burst.headers.get('content-type')!, /problem\+json/);
  assert.match(burst.headers.get('retry-after')!, /^[1-3]$/);

  // Another credential has its own budget.
  const other = await org.createKey('viewer');
  assert.equal((await server.call(other, 'catalog.location.listLocations')).status, 200);

  await sleep(3100); // the burst window resets; the sustained one has 8 − 5 = 3 left (the refusal drew nothing)
  assert.equal((await call()).status, 200);
  assert.equal((await call()).status, 200);
  const last = await call();
  assert.equal(last.status, 200);
  assert.match(last.headers.get('ratelimit')!, /^"sustained";r=0;t=\d+$/);
  const sustained = await call();
  assert.equal(sustained.status, 429);
  assert.ok(Number(sustained.headers.get('retry-after')) > 50, 'waits for the sustained window');
});

test('with Redis, several API processes share one budget', async (t) => {
  const config = loadConfig();
  if (!config.redisUrl) return t.skip('REDIS_URL is not set');
  const server = await startTestServer({ rateWindows: windows });
  const second = await createApp({ ...server.app.services.config, logLevel: 'silent' }, { modules: server.app.registry.modules, databases: server.app.databases, rateWindows: windows });
  const secondUrl = await second.server.listen({ port: 0, host: '127.0.0.1' });
  t.after(() => second.close());
  const org = await server.createOrg();
  const callVia = async (url: string) =>
    (await fetch(`${url}/rpc/v1/catalog.location.listLocations`, { method: 'POST', headers: { authorization: `Bearer ${org.key}` } })).status;
  const statuses = [];
  for (let i = 0; i < 6; i++) statuses.push(await callVia(i % 2 ? secondUrl : server.url));
  assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429]);
});

test('draws made together are counted exactly, key by key, in one budget shared through Redis; with Redis away, each process counts alone', async (t) => {
  const config = loadConfig();
  if (!config.redisUrl) return t.skip('REDIS_URL is not set');
  // A prefix of this run's own, so no earlier run's counts are met.
  const keyPrefix = `firstcrack:rl-test-${randomBytes(4).toString('hex')}`;
  const [first, second] = await Promise.all([1, 2].map(() => openRateLimiterFactory({ redisUrl: config.redisUrl, keyPrefix })));
  t.after(() => Promise.all([first.close(), second.close()]));
  const budget = [
    { name: 'burst', points: 4, seconds: 30 },
    { name: 'sustained', points: 6, seconds: 60 },
  ];
  const limiters = [first.limiter('api', budget), second.limiter('api', budget)];
  // Ten draws per key in the same task (one script call per process), alternating between the two processes: four pass, the rest are refused.
  const decisions = await Promise.all(['a', 'b', 'c'].flatMap((key) => Array.from({ length: 10 }, (_, i) => limiters[i % 2].consume(key))));
  for (let k = 0; k < 3; k++) {
    const mine = decisions.slice(k * 10, k * 10 + 10);
    assert.equal(mine.filter((d) => d.allowed).length, 4, 'the burst window lets four through per key');
    assert.deepEqual(mine.map((d) => d.headers.RateLimit.match(/r=(\d+)/)![1]).sort(), ['0', '0', '0', '0', '0', '0', '0', '1', '2', '3']);
    assert.ok(mine.filter((d) => !d.allowed).every((d) => Number(d.headers['Retry-After']) > 25), 'a refusal waits for the burst window');
  }
  // A draw of several points counts them all: 5 more on a fresh key leaves the sustained window 1.
  const heavy = await limiters[0].consume('d', 5);
  assert.equal(heavy.allowed, false, '5 points exceed the burst window of 4');
  assert.equal(heavy.headers.RateLimit.split(';')[0], '"burst"');

  // Redis away: each process answers from its own counts instead of failing the request.
  await first.close();
  const alone = await Promise.all(Array.from({ length: 5 }, () => limiters[0].consume('a')));
  assert.deepEqual(alone.map((d) => d.allowed), [true, true, true, true, false], 'this process’s own burst window of 4');
  assert.equal((await limiters[1].consume('a')).allowed, false, 'the other process still counts in Redis');
});

test('a leased budget (the machine channels) lets exactly the budget through, draws most requests ahead in one Redis call, and is never looser across processes', async (t) => {
  const config = loadConfig();
  if (!config.redisUrl) return t.skip('REDIS_URL is not set');
  const keyPrefix = `firstcrack:rl-test-${randomBytes(4).toString('hex')}`;
  const [first, second] = await Promise.all([1, 2].map(() => openRateLimiterFactory({ redisUrl: config.redisUrl, keyPrefix })));
  const redis = new Redis(config.redisUrl!);
  t.after(() => Promise.all([first.close(), second.close(), redis.quit()]));
  // Leases of up to 5% of the smallest window: 10 points here.
  const budget = [
    { name: 'burst', points: 200, seconds: 30 },
    { name: 'sustained', points: 400, seconds: 60 },
  ];
  const [one, other] = [first.limiter('ingest', budget, { leased: true }), second.limiter('ingest', budget, { leased: true })];
  const drawnInRedis = async (key: string) => Number(await redis.get(`${keyPrefix}-ingest:burst:${key}`));

  // A key's first request draws its own point only, as an unleased budget does.
  assert.equal((await one.consume('quiet')).allowed, true);
  assert.equal(await drawnInRedis('quiet'), 1);

  // One process, one request at a time: exactly 200 pass, each answer counting only what was spent.
  const decisions = [];
  for (let i = 0; i < 201; i++) decisions.push(await one.consume('busy'));
  assert.deepEqual(decisions.map((d) => d.allowed), [...Array(200).fill(true), false]);
  assert.deepEqual(decisions.slice(0, 5).map((d) => d.headers.RateLimit), [199, 198, 197, 196, 195].map((r) => `"burst";r=${r};t=30`));
  assert.equal(decisions[200].headers.RateLimit.split(';')[1], 'r=0');
  assert.ok(Number(decisions[200].headers['Retry-After']) > 25, 'a refusal waits for the burst window');
  // Leases of 1, 2, 4, 8, then 10 (the last one granted 5 of its 10): 23 Redis calls for the 200 requests
  // that passed; the refused one's draw of 10 was taken from no window.
  assert.equal(await drawnInRedis('busy'), 205);

  // Two processes on one key: together never more than the budget, and at most a lease each less.
  const both = [];
  for (let i = 0; i < 220; i++) both.push(await (i % 2 ? other : one).consume('shared'));
  const allowed = both.filter((d) => d.allowed).length;
  assert.ok(allowed <= 200 && allowed >= 200 - 2 * 10, `${allowed} of a budget of 200 let through across two processes`);
});

test('the certificate pages’ budget comes from the one factory: shared by every process through Redis, per process without', async (t) => {
  const server = await startTestServer();
  const publicPageRateWindows = [{ name: 'burst', points: 3, seconds: 60 }];
  // Two processes on one database: each with its own data directory, as on two hosts.
  const dataDirs = [1, 2].map(() => mkdtempSync(join(tmpdir(), 'fc-test-')));
  const config = { ...server.app.services.config, logLevel: 'silent' };
  const [first, second] = await Promise.all(dataDirs.map((dataDir) => createApp({ ...config, dataDir }, { modules: server.app.registry.modules, databases: server.app.databases, publicPageRateWindows })));
  t.after(async () => {
    await Promise.all([first.close(), second.close()]);
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  });
  // An address of this run's own, so that no other test (nor an earlier run) has counted it in Redis.
  const remoteAddress = `2001:db8::${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}`;
  const statuses = [];
  for (const app of [first, second, first, second, first, first]) {
    statuses.push((await app.server.inject({ method: 'GET', url: '/c/AAAAAAAAAAAAAAAAAAAAAA', remoteAddress })).statusCode);
  }
  if (config.redisUrl) assert.deepEqual(statuses, [404, 404, 404, 429, 429, 429], 'one budget in Redis, whichever process answers');
  else assert.deepEqual(statuses, [404, 404, 404, 404, 404, 429], 'each process counts its own in memory');
  const limited = await first.server.inject({ method: 'GET', url: '/c/AAAAAAAAAAAAAAAAAAAAAA', remoteAddress });
  assert.equal(limited.statusCode, 429);
  assert.match(limited.headers['content-type'] as string, /^text\/html/);
  assert.ok(Number(limited.headers['retry-after']) > 0, 'a 429 says when to retry');
  assert.equal(limited.headers['ratelimit-policy'], '"burst";q=3;w=60');
});

test('heavy requests draw more points: a large page, a trace, a large input; the answer says what it cost', async () => {
  const server = await startTestServer({ rateWindows: [{ name: `burst_${randomBytes(3).toString('hex')}`, points: 12, seconds: 60 }] });
  const org = await server.createOrg();
  const remaining = (res: { headers: Headers }) => Number(/r=(\d+)/.exec(res.headers.get('ratelimit')!)![1]);

  const cheap = await org.call('catalog.location.listLocations', { page: { limit: 50 } });
  assert.equal(cheap.status, 200);
  assert.equal(cheap.headers.get('ratelimit-cost'), null, 'a cheap call states no cost');
  assert.equal(remaining(cheap), 11);

  const page = await org.call('catalog.location.listLocations', { page: { limit: 200 } });
  assert.equal(page.status, 200, JSON.stringify(page.body));
  assert.equal(page.headers.get('ratelimit-cost'), '2');
  assert.equal(remaining(page), 9, 'a 200-item page costs 2 points');

  const trace = await org.call('traceability.traceBackward', { kind: 'green_lot', id: 'gl_missing' });
  assert.equal(trace.headers.get('ratelimit-cost'), '5');
  assert.equal(remaining(trace), 4, 'a trace costs 5 points, whatever it answers');

  // 260 kB of input costs 9 points (1 per 32 KiB), more than the 4 left: it is refused on its declared size,
  // before its body is even parsed (malformed JSON is not what it is refused for), naming its cost.
  const big = await fetch(`${server.url}/rpc/v1/catalog.location.createLocation`, {
    method: 'POST',
    headers: { authorization: `Bearer ${org.key}`, 'content-type': 'application/json' },
    body: `{"name": "${'x'.repeat(260 * 1024)}", not json`,
  });
  const bigBody = await big.json();
  assert.equal(big.status, 429, JSON.stringify(bigBody).slice(0, 300));
  assert.equal(bigBody.cost, 9);
  assert.equal(big.headers.get('ratelimit-cost'), '9');
  assert.ok(Number(big.headers.get('retry-after')) > 0, 'Retry-After is set');
});

test('a POST asking for a large page draws the rest of its cost once its body is read', async () => {
  const server = await startTestServer({ rateWindows: [{ name: `burst_${randomBytes(3).toString('hex')}`, points: 3, seconds: 60 }] });
  const org = await server.createOrg();
  const first = await org.call('catalog.location.listLocations', { page: { limit: 200 } });
  assert.equal(first.status, 200);
  assert.equal(first.headers.get('ratelimit-cost'), '2');
  assert.match(first.headers.get('ratelimit')!, /r=1;/);
  const second = await org.call('catalog.location.listLocations', { page: { limit: 200 } });
  assert.equal(second.status, 429, 'admission takes the last point; the one its page costs beyond it is refused');
  assert.equal(second.body.cost, 2);
});

test('heavy calls take turns in their lane from reading the body to answering; cheap calls never wait; a caller gone frees its turn', async (t) => {
  // Registered before the server's own teardown, so it runs first also when an assertion fails: the server
  // would not close while requests wait for their bodies.
  const holders: Socket[] = [];
  t.after(() => holders.forEach((socket) => socket.destroy()));
  const server = await startTestServer();
  const org = await server.createOrg();
  const target = new URL(server.url);
  // Heavy before its body is read (100 kB declared: 4 points), sending none of it: each holds a turn, or
  // waits for one. More of them than the lane has turns (1 on PGlite, 2 or more on PostgreSQL).
  for (let i = 0; i < 4; i++) {
    const socket = connect(Number(target.port), target.hostname);
    socket.on('error', () => {});
    socket.write(
      `POST /rpc/v1/catalog.location.createLocation HTTP/1.1\r\nHost: ${target.host}\r\nAuthorization: Bearer ${org.key}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${100 * 1024}\r\n\r\n{"name":`,
    );
    holders.push(socket);
  }
  await sleep(200);
  const cheap = await org.call('catalog.location.listLocations', {});
  assert.equal(cheap.status, 200, 'a cheap call does not wait for the lane');

  let traced: Awaited<ReturnType<typeof org.call>> | undefined;
  const trace = org.call('traceability.traceBackward', { kind: 'green_lot', id: 'gl_missing' }, { method: 'GET' }).then((r) => (traced = r));
  await sleep(300);
  assert.equal(traced, undefined, 'a trace (heavy) waits while every turn is held');
  for (const socket of holders) socket.destroy();
  const answer = await trace;
  assert.equal(answer.status, 404, 'the callers gone (those waiting too), the trace gets its turn');
  assert.equal(answer.headers.get('ratelimit-cost'), '5');
});

/** The status line and body of a raw HTTP exchange: the request is written as given, the answer read until the server ends it. */
async function rawExchange(url: string, head: string): Promise<{ status: number; text: string }> {
  const target = new URL(url);
  const socket = connect(Number(target.port), target.hostname);
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.write(head.replace('{host}', target.host));
  // The answer comes before the announced body: read what arrives, then leave.
  for (let i = 0; i < 50 && !/\r\n\r\n[\s\S]*\}/.test(Buffer.concat(chunks).toString('latin1')); i++) await sleep(20);
  socket.destroy();
  const text = Buffer.concat(chunks).toString('utf8');
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text };
}

test('a request that can never fit the budget is a 400 or 413 naming why, never a 429; a refusal takes nothing of what is left', async () => {
  const server = await startTestServer({ rateWindows: [{ name: `burst_${randomBytes(3).toString('hex')}`, points: 12, seconds: 60 }] });
  const org = await server.createOrg();
  const remaining = (res: { headers: Headers }) => Number(/r=(\d+)/.exec(res.headers.get('ratelimit')!)![1]);

  // A page size past the cap is invalid input, priced as one point, however large.
  const huge = await org.call('catalog.location.listLocations', { page: { limit: 10000 } });
  assert.equal(huge.status, 400, JSON.stringify(huge.body));
  assert.deepEqual(huge.body.errors, [{ path: 'page.limit', message: 'must be at most 200' }]);
  assert.equal(remaining(huge), 11);
  const viaGet = await org.call('catalog.location.listLocations', { page: { limit: 10000 } }, { method: 'GET' });
  assert.equal(viaGet.status, 400);
  assert.equal(remaining(viaGet), 10);

  // A body announced past 1 MiB is 413 before it is priced or read, at any size.
  for (const length of ['4194304', '1000000000000']) {
    const answer = await rawExchange(
      server.url,
      `POST /rpc/v1/catalog.location.createLocation HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer ${org.key}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n{"name":`,
    );
    assert.equal(answer.status, 413, `Content-Length ${length}: ${answer.text.slice(0, 300)}`);
    assert.match(answer.text, /"code":"body_too_large"/);
    assert.doesNotMatch(answer.text, /^ratelimit:/im, 'refused before any draw');
  }

  // Nothing was drawn for those. A trace (5 points) refused for want of points draws none either: the next
  // cheap call still has what was left.
  const trace = () => org.call('traceability.traceBackward', { kind: 'green_lot', id: 'gl_missing' });
  assert.equal(remaining(await trace()), 5);
  assert.equal(remaining(await org.call('catalog.location.listLocations')), 4);
  const refused = await trace();
  assert.equal(refused.status, 429);
  assert.equal(remaining(refused), 4, 'the refusal says what is left');
  const cheap = await org.call('catalog.location.listLocations');
  assert.equal(cheap.status, 200);
  assert.equal(remaining(cheap), 3, 'the refusal took nothing');

  // A budget whose window holds fewer points than a trace costs can never admit one: 413 naming its cost.
  const small = await startTestServer({ rateWindows: [{ name: `burst_${randomBytes(3).toString('hex')}`, points: 3, seconds: 60 }] });
  const smallOrg = await small.createOrg();
  const never = await smallOrg.call('traceability.traceBackward', { kind: 'green_lot', id: 'gl_missing' });
  assert.equal(never.status, 413, JSON.stringify(never.body));
  assert.equal(never.body.code, 'request_too_costly');
  assert.equal(never.body.cost, 5);
  assert.equal(never.headers.get('retry-after'), null);
  assert.equal(remaining(await smallOrg.call('catalog.location.listLocations')), 2, 'it drew nothing');
});
