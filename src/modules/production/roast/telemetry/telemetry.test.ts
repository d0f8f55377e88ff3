import { after, describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createApp, type AppOptions } from '../../../../app.js';
import { hashSecret } from '../../../../auth/credentials.js';
import { loadConfig } from '../../../../config.js';
import { newId } from '../../../../lib/ids.js';
import { GENEROUS_WINDOWS, startTestServer, type TestOrg } from '../../../../testing/harness.js';
import type { CurveSample } from './curve.js';
import { MAX_SESSION_MESSAGES } from '../../../../streaming/live.js';
import { MAX_SAMPLES_PER_POST } from './schemas.js';
import { RedisLiveSessionStore } from '../../../../streaming/live-redis.js';
import { DiskLiveSessionStore } from '../../../../streaming/live-disk.js';
import { dataOf, machineWithToken, postSamples, watchStream } from './testing.js';
import { INGEST_POINT_BYTES, OFF_THREAD_POST_BYTES } from './http.js';

/**
 * Every session a test opens, discarded at the end: with Redis the buffers would outlive the test otherwise.
 * Registered before the server starts, so it runs before the server's own teardown closes the store.
 */
const opened: [orgId: string, batchId: string][] = [];
after(async () => {
  for (const [orgId, batchId] of opened) await live.discard(orgId, batchId);
});

// A generous ingest budget: tests here post far more than a bridge would (the budget has tests of its own below).
const server = await startTestServer({ ingestRateWindows: GENEROUS_WINDOWS });
const org = await server.createOrg('enterprise', 'Telemetry roastery');
const other = await server.createOrg('enterprise', 'Other roastery');
const live = server.app.services.liveSessions;

let codes = 0;
const machine = (as: TestOrg = org) => machineWithToken(as, `TM-${++codes}`);

/** A live session opened the way startRoastBatch opens it, on `machineId`, through `store` (this server's by default). */
async function openSession(machineId: string, as: TestOrg = org, store = live): Promise<string> {
  const batchId = newId('rb');
  await store.open({ orgId: as.id, batchId, machineId });
  opened.push([as.id, batchId]);
  return batchId;
}

const sample = (t: number, bt: number | null = 150 + t / 1000, et: number | null = 220): CurveSample => ({ t, bt, et });
const post = (token: string | undefined, batchId: string, body: unknown) => postSamples(server.url, token, batchId, body);
const streamUrl = (batchId: string, query = '') => `${server.url}/stream/v1/roast/${batchId}${query}`;
const watch = (batchId: string, headers: Record<string, string> = {}, query = '', key = org.key) =>
  watchStream(streamUrl(batchId, query), { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers });

describe('ingest', () => {
  test('a post is stored and reaches a watcher at once: samples, then events, with increasing ids', async () => {
    const { machineId, token } = await machine();
    const batchId = await openSession(machineId);
    const watcher = await watch(batchId);
    assert.equal(watcher.status, 200);
    assert.match(watcher.headers.get('content-type')!, /^text\/event-stream/);
    const samples = [
      { t: -2000, bt: 190.5, et: 240, channels: { inlet: 260.1, burner: 65 } },
      { t: 0, bt: null, et: 238.2 },
      { t: 1000, bt: 185.25, et: null, channels: { airflow: null } },
    ];
    const res = await post(token, batchId, { seq: 0, samples, events: [{ type: 'charge', t: 0 }] });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    assert.deepEqual(res.body, { accepted: 3, seq: 0 });
    assert.match(res.headers.get('ratelimit-policy')!, /^"burst";q=\d+;w=10, "sustained";q=\d+;w=60$/, 'the ingest budget’s policy is on every answer');

    await watcher.until((w) => w.messages.length === 4);
    assert.deepEqual(watcher.messages.map((m) => [m.id, m.event]), [['1', 'sample'], ['2', 'sample'], ['3', 'sample'], ['4', 'roast_event']]);
    assert.deepEqual(dataOf(watcher, 'sample'), samples);
    assert.deepEqual(dataOf(watcher, 'roast_event'), [{ type: 'charge', t: 0 }]);
    assert.deepEqual(await live.readCurve(org.id, batchId), { samples, events: [{ type: 'charge', t: 0 }] });
    watcher.close();
  });

  test('a resent seq is acknowledged with 200 and stores nothing', async () => {
    const { machineId, token } = await machine();
    const batchId = await openSession(machineId);
    const body = { seq: 7, samples: [sample(1000), sample(2000)] };
    assert.equal((await post(token, batchId, body)).status, 202);
    const again = await post(token, batchId, { ...body, samples: [sample(3000)] });
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, { accepted: 0, seq: 7, duplicate: true });
    assert.deepEqual((await live.readCurve(org.id, batchId))!.samples.map((s) => s.t), [1000, 2000]);
    // No id was spent on the duplicate: the next post's messages follow on.
    assert.equal((await post(token, batchId, { seq: 8, samples: [sample(3000)] })).status, 202);
    const watcher = await watch(batchId);
    await watcher.until((w) => w.messages.length === 3);
    assert.deepEqual(watcher.messages.map((m) => m.id), ['1', '2', '3']);
    watcher.close();
  });

  test('samples arriving out of order are placed by time in the curve, and streamed as they arrive', async () => {
    const { machineId, token } = await machine();
    const batchId = await openSession(machineId);
    assert.equal((await post(token, batchId, { seq: 2, samples: [sample(3000), sample(4000)] })).status, 202);
    assert.equal((await post(token, batchId, { seq: 1, samples: [sample(1000), sample(2000)], events: [{ type: 'turning_point', t: 2500 }, { type: 'charge', t: 0 }] })).status, 202);
    const curve = (await live.readCurve(org.id, batchId))!;
    assert.deepEqual(curve.samples.map((s) => s.t), [1000, 2000, 3000, 4000]);
    assert.deepEqual(curve.events.map((e) => e.type), ['charge', 'turning_point']);
    const watcher = await watch(batchId);
    await watcher.until((w) => w.messages.length === 6);
    assert.deepEqual(dataOf(watcher, 'sample').map((s) => s.t), [3000, 4000, 1000, 2000]);
    watcher.close();
  });

  test('each invalid post is refused with 400 naming the path, and nothing of it is kept (not even its seq)', async () => {
    const { machineId, token } = await machine();
    const batchId = await openSession(machineId);
    assert.equal((await post(token, batchId, { seq: 0, samples: [sample(0)] })).status, 202);
    const good = [sample(1000), sample(2000)];
    const refusals: [string, unknown, string][] = [
      ['bean temperature above 700 °C', { seq: 1, samples: [...good, { t: 3000, bt: 701, et: 200 }] }, 'samples[2].bt'],
      ['environment temperature below −50 °C', { seq: 1, samples: [{ t: 3000, bt: 100, et: -50.5 }, ...good] }, 'samples[0].et'],
      ['a temperature as a string', { seq: 1, samples: [...good, { t: 3000, bt: '182.4', et: 200 }] }, 'samples[2].bt'],
      ['a missing temperature', { seq: 1, samples: [{ t: 3000, bt: 180 }] }, 'samples[0].et'],
      ['a fractional time', { seq: 1, samples: [{ t: 1500.5, bt: 180, et: 200 }] }, 'samples[0].t'],
      ['a non-numeric channel', { seq: 1, samples: [{ t: 3000, bt: 180, et: 200, channels: { inlet: 'hot' } }] }, 'samples[0].channels.inlet'],
      ['a channel name with a space', { seq: 1, samples: [{ t: 3000, bt: 180, et: 200, channels: { 'in let': 5 } }] }, 'samples[0].channels.in let'],
      ['33 channels', { seq: 1, samples: [{ t: 3000, bt: 180, et: 200, channels: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`c${i}`, i])) }] }, 'samples[0].channels'],
      ['channels as a list', { seq: 1, samples: [{ t: 3000, bt: 180, et: 200, channels: [1, 2] }] }, 'samples[0].channels'],
      ['an unknown sample field', { seq: 1, samples: [{ t: 3000, bt: 180, et: 200, humidity: 40 }] }, 'samples[0].humidity'],
      ['an unknown event type', { seq: 1, samples: good, events: [{ type: 'first_crack', t: 500000 }] }, 'events[0].type'],
      ['a negative seq', { seq: -1, samples: good }, 'seq'],
      ['no seq', { samples: good }, 'seq'],
      ['no samples', { seq: 1 }, 'samples'],
      ['more than 2,000 samples', { seq: 1, samples: Array.from({ length: 2001 }, (_, i) => sample(i)) }, 'samples'],
    ];
    for (const [what, body, path] of refusals) {
      const res = await post(token, batchId, body);
      assert.equal(res.status, 400, `${what}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, 'invalid_input', what);
      assert.ok(res.body.errors.some((e: { path: string }) => e.path === path), `${what}: ${JSON.stringify(res.body.errors)}`);
    }
    for (const text of ['{"seq": 1, "samples": [{"t": 0, "bt": NaN, "et": 200}]}', '{"seq": 1, "samples": [']) {
      const res = await post(token, batchId, text);
      assert.equal(res.status, 400);
      assert.equal(res.body.code, 'malformed_json');
    }
    assert.deepEqual((await live.readCurve(org.id, batchId))!.samples.map((s) => s.t), [0]);
    // seq 1 was never stored, so the bridge's corrected post is taken.
    const corrected = await post(token, batchId, { seq: 1, samples: good });
    assert.deepEqual([corrected.status, corrected.body], [202, { accepted: 2, seq: 1 }]);
  });

  test('a post too large to parse on the event loop gets the same verdicts from its worker thread', async () => {
    const { machineId, token } = await machine();
    const batchId = await openSession(machineId);
    const watcher = await watch(batchId);
    const samples = Array.from({ length: MAX_SAMPLES_PER_POST }, (_, i) => sample(i * 100));
    // Pretty-printed, so it is also stored as one line: its text is what the store keeps.
    const text = (body: unknown) => (typeof body === 'string' ? body : JSON.stringify(body, null, 1));
    const large = (body: unknown) => {
      assert.ok(Buffer.byteLength(text(body)) > OFF_THREAD_POST_BYTES, 'the post is over the off-thread size');
      return post(token, batchId, text(body));
    };
    const badSample = samples.map((s, i) => (i === 1500 ? { ...s, bt: 701 } : s));
    const refused = await large({ seq: 1, samples: badSample });
    assert.deepEqual([refused.status, refused.body.code, refused.body.errors.map((e: { path: string }) => e.path)], [400, 'invalid_input', ['samples[1500].bt']]);
    const malformed = await large(text({ seq: 1, samples }).slice(0, -2));
    assert.deepEqual([malformed.status, malformed.body.code], [400, 'malformed_json']);
    assert.match(malformed.body.detail, /^The body is not valid JSON: /);

    const accepted = await large({ seq: 1, samples, events: [{ type: 'charge', t: 0 }] });
    assert.deepEqual([accepted.status, accepted.body], [202, { accepted: MAX_SAMPLES_PER_POST, seq: 1 }]);
    const resent = await large({ seq: 1, samples, events: [{ type: 'charge', t: 0 }] });
    assert.deepEqual([resent.status, resent.body.duplicate], [200, true]);
    assert.deepEqual((await live.readCurve(org.id, batchId))!.samples, samples);
    await watcher.until((w) => w.messages.length === MAX_SAMPLES_PER_POST + 1);
    assert.deepEqual(dataOf(watcher, 'roast_event'), [{ type: 'charge', t: 0 }]);
    watcher.close();
  });

  test('only the bridge token of the batch’s own machine may post', async () => {
    const { machineId, token } = await machine();
    const batchId = await openSession(machineId);
    const body = { seq: 0, samples: [sample(0)] };

    const none = await post(undefined, batchId, body);
    assert.equal(none.status, 401);
    assert.equal(none.body.code, 'unauthenticated');
    assert.match(none.headers.get('www-authenticate')!, /^Bearer/);
    assert.equal((await post('fcb_not-a-real-token', batchId, body)).status, 401);

    const apiKey = await post(org.key, batchId, body);
    assert.equal(apiKey.status, 403);
    assert.equal(apiKey.body.code, 'bridge_token_required');

    const sibling = await machine();
    const wrong = await post(sibling.token, batchId, body);
    assert.equal(wrong.status, 403);
    assert.equal(wrong.body.code, 'wrong_machine');

    // Another organization's batch answers exactly like one that does not exist.
    const foreign = await machine(other);
    const foreignBatch = await openSession(foreign.machineId, other);
    const crossing = await post(token, foreignBatch, body);
    const missing = await post(token, newId('rb'), body);
    assert.equal(crossing.status, 404);
    assert.equal(missing.status, 404);
    assert.equal(crossing.body.code, 'not_found');
    assert.deepEqual({ ...crossing.body, detail: '' }, { ...missing.body, detail: '' });
    assert.equal((await post(token, 'not an id', body)).status, 404);

    // A bridge token names its organization too: another X-Service-Org is refused.
    const mismatch = await fetch(`${server.url}/ingest/v1/roast/${batchId}/samples`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-service-org': other.id },
      body: JSON.stringify(body),
    });
    assert.equal(mismatch.status, 403);

    // A bridge token is refused everywhere but /ingest/v1/.
    const rpc = await server.call(token, 'catalog.machine.listMachines', {});
    assert.deepEqual([rpc.status, rpc.body.code], [403, 'bridge_token_not_allowed']);
    const stream = await watch(batchId, {}, '', token);
    assert.deepEqual([stream.status, stream.problem.code], [403, 'bridge_token_not_allowed']);

    assert.equal((await live.readCurve(org.id, batchId))!.samples.length, 0, 'no refused post stored anything');
    assert.equal((await live.readCurve(other.id, foreignBatch))!.samples.length, 0);
  });

  test('a revoked bridge token (machine deactivated) is refused with 401', async () => {
    const { machineId, token } = await machine();
    const batchId = await openSession(machineId);
    assert.equal((await org.call('catalog.machine.updateMachine', { id: machineId, isActive: false })).status, 200);
    await sleep(2100); // the credential cache holds a resolved token for up to 2 s
    assert.equal((await post(token, batchId, { seq: 0, samples: [sample(0)] })).status, 401);
  });

  test('concurrent posts to one batch take distinct consecutive ids, each delivered once', async () => {
    const { machineId, token } = await machine();
    const batchId = await openSession(machineId);
    const watcher = await watch(batchId);
    const results = await Promise.all(Array.from({ length: 20 }, (_, seq) => post(token, batchId, { seq, samples: [sample(seq * 100), sample(seq * 100 + 50)] })));
    assert.ok(results.every((r) => r.status === 202), `every post is accepted: ${results.map((r) => r.status)}`);
    await watcher.until((w) => w.messages.length === 40);
    await sleep(100);
    assert.deepEqual(watcher.messages.map((m) => Number(m.id)), Array.from({ length: 40 }, (_, i) => i + 1));
    // Each post's two samples are adjacent: a post is stored as one unit.
    const ts = dataOf(watcher, 'sample').map((s) => s.t);
    for (let i = 0; i < 40; i += 2) assert.equal(ts[i + 1], ts[i] + 50);
    watcher.close();
  });

  test('a session takes at most MAX_SESSION_MESSAGES samples and events: the post that would pass it is 409 and stores nothing', async () => {
    const { machineId, token } = await machine();
    const batchId = await openSession(machineId);
    const full = Array.from({ length: MAX_SAMPLES_PER_POST }, (_, i) => sample(i * 100));
    const posts = MAX_SESSION_MESSAGES / MAX_SAMPLES_PER_POST;
    for (let seq = 0; seq < posts - 1; seq++) assert.equal((await post(token, batchId, { seq, samples: full })).status, 202, `post ${seq} fits`);
    // The last post that fits leaves room for one message less than it carries with an event added.
    const over = await post(token, batchId, { seq: posts - 1, samples: full, events: [{ type: 'charge', t: 0 }] });
    assert.equal(over.status, 409);
    const problem = over.body;
    assert.equal(problem.code, 'live_session_full');
    assert.equal(problem.limit, MAX_SESSION_MESSAGES);
    assert.equal((await live.readCurve(org.id, batchId))!.samples.length, MAX_SESSION_MESSAGES - MAX_SAMPLES_PER_POST, 'the refused post stored nothing');
    // Its seq was not taken: the same seq without the event fills the session exactly.
    assert.equal((await post(token, batchId, { seq: posts - 1, samples: full })).status, 202, 'a post that fits exactly is stored');
    assert.equal((await post(token, batchId, { seq: posts, samples: [sample(0)] })).status, 409, 'a full session takes nothing more');
    assert.equal((await live.readCurve(org.id, batchId))!.samples.length, MAX_SESSION_MESSAGES);
  });
});

describe('stream', () => {
  test('Last-Event-ID (header or ?lastEventId=) resumes with exactly the missed messages, then live ones', async () => {
    const { machineId, token } = await machine();
    const batchId = await openSession(machineId);
    for (let seq = 0; seq < 3; seq++) await post(token, batchId, { seq, samples: [sample(seq * 1000), sample(seq * 1000 + 500)] });
    const byHeader = await watch(batchId, { 'last-event-id': '4' });
    const byQuery = await watch(batchId, {}, '?lastEventId=2');
    await byHeader.until((w) => w.messages.length === 2);
    await byQuery.until((w) => w.messages.length === 4);
    await post(token, batchId, { seq: 3, samples: [sample(3000)] });
    await byHeader.until((w) => w.messages.length === 3);
    await byQuery.until((w) => w.messages.length === 5);
    await sleep(100);
    assert.deepEqual(byHeader.messages.map((m) => m.id), ['5', '6', '7']);
    assert.deepEqual(byQuery.messages.map((m) => m.id), ['3', '4', '5', '6', '7']);
    assert.deepEqual(dataOf(byHeader, 'sample').map((s) => s.t), [2000, 2500, 3000]);
    byHeader.close();
    byQuery.close();

    const invalid = await watch(batchId, { 'last-event-id': 'abc' });
    assert.deepEqual([invalid.status, invalid.problem.code], [400, 'invalid_last_event_id']);
  });

  test('every watcher receives every message; a completed status ends the stream', async () => {
    const { machineId, token } = await machine();
    const batchId = await openSession(machineId);
    const watchers = await Promise.all([watch(batchId), watch(batchId), watch(batchId)]);
    await post(token, batchId, { seq: 0, samples: [sample(0)], events: [{ type: 'drop', t: 600000 }] });
    await live.publishStatus(org.id, batchId, 'completed');
    for (const w of watchers) {
      await w.until((x) => x.ended);
      assert.deepEqual(w.messages.map((m) => [m.id, m.event]), [['1', 'sample'], ['2', 'roast_event'], ['3', 'status']]);
      assert.deepEqual(dataOf(w, 'status'), [{ state: 'completed' }]);
    }
  });

  test('watching needs production.roast.read in this organization; another organization’s batch is 404', async () => {
    const { machineId } = await machine();
    const batchId = await openSession(machineId);
    const anonymous = await watch(batchId, {}, '', '');
    assert.deepEqual([anonymous.status, anonymous.problem.code], [401, 'unauthenticated']);
    const sales = await watch(batchId, {}, '', await org.createKey('sales'));
    assert.deepEqual([sales.status, sales.problem.code, sales.problem.permission], [403, 'permission_denied', 'production.roast.read']);
    const viewer = await watch(batchId, {}, '', await org.createKey('viewer'));
    assert.equal(viewer.status, 200);
    viewer.close();
    const foreign = await watch(batchId, {}, '', other.key);
    const missing = await watch(newId('rb'), {}, '', other.key);
    assert.deepEqual([foreign.status, foreign.problem.code], [404, 'not_found']);
    assert.equal(missing.status, 404);
    assert.ok(foreign.headers.get('ratelimit'), 'a stream request draws on the API budget');
  });

  test('a heartbeat comment keeps an idle stream open; a session discarded without a status ends it', async (t) => {
    const config = { ...server.app.services.config, dataDir: mkdtempSync(join(tmpdir(), 'fc-telemetry-')), logLevel: 'silent' };
    const app = await createApp(config, { modules: server.app.registry.modules, databases: server.app.databases, streamHeartbeatMs: 100 });
    const url = await app.server.listen({ port: 0, host: '127.0.0.1' });
    t.after(async () => {
      await app.close();
      rmSync(config.dataDir, { recursive: true, force: true });
    });
    const { machineId } = await machine();
    const batchId = await openSession(machineId, org, app.services.liveSessions);
    const watcher = await watchStream(`${url}/stream/v1/roast/${batchId}`, { authorization: `Bearer ${org.key}` });
    await watcher.until((w) => w.comments.filter((c) => c === 'heartbeat').length >= 2);
    assert.equal(watcher.ended, false);
    await app.services.liveSessions.discard(org.id, batchId);
    await watcher.until((w) => w.ended);
  });
});

describe('stream tickets', () => {
  const issue = async (batchId: string, key = org.key) => {
    const res = await fetch(`${streamUrl(batchId)}/tickets`, { method: 'POST', headers: { authorization: `Bearer ${key}` } });
    return { status: res.status, body: (await res.json()) as any };
  };

  test('a ticket opens the stream once, for its batch only, within 60 s; only its hash is stored', async () => {
    const { machineId, token } = await machine();
    const batchId = await openSession(machineId);
    const otherBatch = await openSession(machineId);
    await post(token, batchId, { seq: 0, samples: [sample(0), sample(1000)] });

    const before = Date.now();
    const issued = await issue(batchId);
    assert.equal(issued.status, 201, JSON.stringify(issued.body));
    assert.match(issued.body.ticket, /^fcs_/);
    const lifetime = Date.parse(issued.body.expiresAt) - before;
    assert.ok(lifetime > 55_000 && lifetime < 65_000, `expires in ${lifetime} ms`);
    const [row] = await server.owner.query<Record<string, unknown>>(`select * from stream_tickets where secret_hash = $1`, [hashSecret(issued.body.ticket)]);
    assert.equal(row.org_id, org.id);
    assert.equal(row.batch_id, batchId);
    assert.ok(!JSON.stringify(row).includes(issued.body.ticket), 'the ticket itself is not stored');

    const wrongBatch = await watch(otherBatch, {}, `?ticket=${issued.body.ticket}`, '');
    assert.deepEqual([wrongBatch.status, wrongBatch.problem.code], [401, 'unauthenticated']);

    const first = await watch(batchId, {}, `?ticket=${issued.body.ticket}&lastEventId=1`, '');
    assert.equal(first.status, 200, 'a refusal for another batch did not spend the ticket');
    await first.until((w) => w.messages.length === 1);
    assert.equal(first.messages[0].id, '2');
    first.close();

    const again = await watch(batchId, {}, `?ticket=${issued.body.ticket}`, '');
    assert.deepEqual([again.status, again.problem.code], [401, 'unauthenticated']);

    const late = await issue(batchId);
    await server.owner.query(`update stream_tickets set expires_at = now() - interval '1 second' where secret_hash = $1`, [hashSecret(late.body.ticket)]);
    assert.equal((await watch(batchId, {}, `?ticket=${late.body.ticket}`, '')).status, 401);
    assert.equal((await watch(batchId, {}, `?ticket=fcs_made-up`, '')).status, 401);
  });

  test('a ticket is issued only to a key that may watch this organization’s live batch', async () => {
    const { machineId, token } = await machine();
    const batchId = await openSession(machineId);
    assert.deepEqual([(await issue(batchId, token)).status, (await issue(batchId, token)).body.code], [403, 'bridge_token_not_allowed']);
    const sales = await issue(batchId, await org.createKey('sales'));
    assert.deepEqual([sales.status, sales.body.code], [403, 'permission_denied']);
    const foreign = await issue(batchId, other.key);
    assert.deepEqual([foreign.status, foreign.body.code], [404, 'not_found']);
    const withInput = await fetch(`${streamUrl(batchId)}/tickets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${org.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ ttlSeconds: 3600 }),
    });
    assert.equal(withInput.status, 400, 'the endpoint takes no input: an unknown field is refused');
    assert.deepEqual(((await withInput.json()) as any).errors, [{ path: 'ttlSeconds', message: 'unknown field' }]);
    const count = await server.owner.query<{ n: number }>(`select count(*)::int as n from stream_tickets where batch_id = $1`, [batchId]);
    assert.equal(count[0].n, 0);
  });

  test('a ticket dies with the key that asked for it', async () => {
    const { machineId } = await machine();
    const batchId = await openSession(machineId);
    const key = await org.createKey('viewer');
    const issued = await issue(batchId, key);
    await server.owner.query(`update credentials set revoked_at = now() where secret_hash = $1`, [hashSecret(key)]);
    assert.equal((await watch(batchId, {}, `?ticket=${issued.body.ticket}`, '')).status, 401);
  });
});

describe('budget', () => {
  /** An API process of its own with these budgets, and a live batch of a new organization's machine. */
  async function budgeted(t: TestContext, options: Pick<AppOptions, 'rateWindows' | 'ingestRateWindows'>) {
    const config = { ...server.app.services.config, dataDir: mkdtempSync(join(tmpdir(), 'fc-telemetry-')), logLevel: 'silent' };
    const app = await createApp(config, { modules: server.app.registry.modules, databases: server.app.databases, ...options });
    const url = await app.server.listen({ port: 0, host: '127.0.0.1' });
    t.after(async () => {
      await app.close();
      rmSync(config.dataDir, { recursive: true, force: true });
    });
    const budgetOrg = await server.createOrg('enterprise', 'Budget roastery');
    const { machineId, token } = await machine(budgetOrg);
    const batchId = await openSession(machineId, budgetOrg, app.services.liveSessions);
    return { app, url, budgetOrg, token, batchId };
  }

  test('ingest has its own rate budget per bridge token, which never draws on the API’s', async (t) => {
    const { url, budgetOrg, token, batchId } = await budgeted(t, {
      rateWindows: [{ name: 'burst', points: 2, seconds: 30 }],
      ingestRateWindows: [{ name: 'burst', points: 3, seconds: 30 }],
    });
    const statuses = [];
    for (let seq = 0; seq < 4; seq++) statuses.push(await postSamples(url, token, batchId, { seq, samples: [sample(seq)] }));
    assert.deepEqual(statuses.map((r) => r.status), [202, 202, 202, 429]);
    assert.equal(statuses[3].body.code, 'rate_limited');
    assert.match(statuses[3].headers.get('retry-after')!, /^\d+$/);
    assert.equal(statuses[2].headers.get('ratelimit'), '"burst";r=0;t=30');
    // An API key of the organization still has its whole API budget (a fresh one: with Redis, the setup
    // calls above drew on the owner key's budget shared by every process).
    const apiKey = await budgetOrg.createKey('viewer');
    const api = await fetch(`${url}/rpc/v1/catalog.location.listLocations`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}` } });
    assert.equal(api.status, 200);
    assert.equal(api.headers.get('ratelimit'), '"burst";r=1;t=30');
  });

  test('a post draws a point per started 8 KiB of body: announced ones before the body is read, the rest once read', async (t) => {
    const { app, url, budgetOrg, token, batchId } = await budgeted(t, { ingestRateWindows: [{ name: 'burst', points: 20, seconds: 30 }] });
    const samples = (n: number, from = 0) => Array.from({ length: n }, (_, i) => sample((from + i) * 100));
    const body = (seq: number, n: number, from = 0) => JSON.stringify({ seq, samples: samples(n, from) });
    const cost = Math.ceil(Buffer.byteLength(body(0, 600)) / INGEST_POINT_BYTES);
    assert.ok(cost >= 2 && cost <= 4, `a 600-sample post costs a few points (${cost})`);

    const weighed = await postSamples(url, token, batchId, body(0, 600));
    assert.deepEqual([weighed.status, weighed.headers.get('ratelimit-cost')], [202, String(cost)]);
    const small = await postSamples(url, token, batchId, body(1, 1, 600));
    assert.deepEqual([small.status, small.headers.get('ratelimit-cost')], [202, null], 'a usual post costs one point');

    // Sent in chunks, without Content-Length: one point on arrival, the rest once the body is read.
    const streamed = await fetch(`${url}/ingest/v1/roast/${batchId}/samples`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(body(2, 600, 1000)));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    assert.deepEqual([streamed.status, streamed.headers.get('ratelimit-cost')], [202, String(cost)]);

    // More than is left (20 − 2 × cost − 1), announced: refused before the body is read (it is not even JSON).
    const tooLarge = await postSamples(url, token, batchId, `{"seq": 3, "samples": [${' '.repeat(16 * INGEST_POINT_BYTES)}`);
    assert.deepEqual([tooLarge.status, tooLarge.body.code, tooLarge.body.cost, tooLarge.headers.get('ratelimit-cost')], [429, 'rate_limited', 17, '17']);
    assert.match(tooLarge.body.detail, /costs 17 points/);
    assert.equal((await app.services.liveSessions.readCurve(budgetOrg.id, batchId))!.samples.length, 1201, 'the three posts taken are stored whole');
  });
});

describe('durability and processes', () => {
  test('a restarted API process loses nothing buffered: curve, ids, seqs and resumption all survive', async (t) => {
    const config = { ...server.app.services.config, dataDir: mkdtempSync(join(tmpdir(), 'fc-telemetry-')), logLevel: 'silent' };
    t.after(() => rmSync(config.dataDir, { recursive: true, force: true }));
    const { machineId, token } = await machine();

    const first = await createApp(config, { modules: server.app.registry.modules, databases: server.app.databases });
    const firstUrl = await first.server.listen({ port: 0, host: '127.0.0.1' });
    const batchId = await openSession(machineId, org, first.services.liveSessions);
    const watcher = await watchStream(`${firstUrl}/stream/v1/roast/${batchId}`, { authorization: `Bearer ${org.key}` });
    assert.equal((await postSamples(firstUrl, token, batchId, { seq: 0, samples: [sample(0), sample(1000)] })).status, 202);
    // Stores keep a post's text as received: a pretty-printed one (newlines and all) must replay just the same.
    const pretty = JSON.stringify({ seq: 1, samples: [sample(2000)], events: [{ type: 'charge', t: 0 }] }, null, 2);
    assert.equal((await postSamples(firstUrl, token, batchId, pretty)).status, 202);
    await first.services.liveSessions.publishStatus(org.id, batchId, 'roasting');
    await watcher.until((w) => w.messages.length === 5);
    await first.close();
    await watcher.until((w) => w.ended); // closing the process ends its streams

    const second = await createApp(config, { modules: server.app.registry.modules, databases: server.app.databases });
    const secondUrl = await second.server.listen({ port: 0, host: '127.0.0.1' });
    t.after(() => second.close());
    assert.ok(second.services.liveSessions instanceof (config.redisUrl ? RedisLiveSessionStore : DiskLiveSessionStore), `the second process keeps live sessions ${config.redisUrl ? 'in Redis' : 'on disk'} too`);
    const curve = await second.services.liveSessions.readCurve(org.id, batchId);
    assert.deepEqual(curve!.samples.map((s) => s.t), [0, 1000, 2000]);
    assert.deepEqual(curve!.events, [{ type: 'charge', t: 0 }]);
    const resent = await postSamples(secondUrl, token, batchId, { seq: 1, samples: [sample(2000)] });
    assert.equal(resent.status, 200, 'the seq of a post stored before the restart is still known');
    assert.equal((await postSamples(secondUrl, token, batchId, { seq: 2, samples: [sample(3000)] })).status, 202);
    const resumed = await watchStream(`${secondUrl}/stream/v1/roast/${batchId}`, { authorization: `Bearer ${org.key}`, 'last-event-id': '3' });
    await resumed.until((w) => w.messages.length === 3);
    // The status message kept its id too, so the post after the restart did not reuse it.
    assert.deepEqual(resumed.messages.map((m) => [m.id, m.event]), [['4', 'roast_event'], ['5', 'status'], ['6', 'sample']]);
    assert.deepEqual(watcher.messages.slice(3).map((m) => m.id), ['4', '5']);
    resumed.close();
  });

  test('with Redis, a post to one API process reaches a watcher on another, and tickets work across them', async (t) => {
    const config = { ...server.app.services.config, logLevel: 'silent' };
    if (!config.redisUrl) return t.skip('REDIS_URL is not set');
    const second = await createApp({ ...config, dataDir: mkdtempSync(join(tmpdir(), 'fc-telemetry-')) }, { modules: server.app.registry.modules, databases: server.app.databases });
    const secondUrl = await second.server.listen({ port: 0, host: '127.0.0.1' });
    t.after(() => second.close());
    const { machineId, token } = await machine();
    const batchId = await openSession(machineId);

    const issued = await (await fetch(`${streamUrl(batchId)}/tickets`, { method: 'POST', headers: { authorization: `Bearer ${org.key}` } })).json();
    const watcher = await watchStream(`${secondUrl}/stream/v1/roast/${batchId}?ticket=${(issued as { ticket: string }).ticket}`);
    assert.equal(watcher.status, 200);
    const sentAt = Date.now();
    assert.equal((await post(token, batchId, { seq: 0, samples: [sample(0), sample(100)] })).status, 202);
    await watcher.until((w) => w.messages.length === 2, 2000);
    assert.ok(Date.now() - sentAt < 1000, `delivered across processes within 1 s, not ${Date.now() - sentAt} ms`);
    // And the other way round, with the seq set shared: a resend through the second process is a duplicate.
    assert.equal((await postSamples(secondUrl, token, batchId, { seq: 0, samples: [sample(0)] })).status, 200);
    assert.equal((await postSamples(secondUrl, token, batchId, { seq: 1, samples: [sample(200)] })).status, 202);
    await watcher.until((w) => w.messages.length === 3, 2000);
    assert.deepEqual(watcher.messages.map((m) => m.id), ['1', '2', '3']);
    watcher.close();
  });

  // The watcher's first message reaches it over the channel, or from its own log read (posted before it
  // subscribed, so this process's feed has delivered nothing itself when the gap shows).
  for (const firstFrom of ['the channel', 'the log'] as const) {
    test(`with Redis, messages whose publish a process missed are filled in from the log, in order (first from ${firstFrom})`, async (t) => {
      if (!(live instanceof RedisLiveSessionStore)) return t.skip('REDIS_URL is not set');
      const { Redis } = await import('ioredis');
      const redis = new Redis(loadConfig().redisUrl!);
      t.after(() => redis.disconnect());
      const { machineId, token } = await machine();
      const batchId = await openSession(machineId);
      const first = () => post(token, batchId, { seq: 0, samples: [sample(0)] });
      if (firstFrom === 'the log') assert.equal((await first()).status, 202);
      const watcher = await watch(batchId);
      if (firstFrom === 'the channel') assert.equal((await first()).status, 202);
      await watcher.until((w) => w.messages.length === 1);
      // A post of two samples stored while this process's subscriber connection was away: in the log, never
      // published (the store's key layout, documented in live-redis.ts).
      const base = `firstcrack:live:{${org.id}:${batchId}}`;
      assert.equal(await redis.incrby(`${base}:next`, 2), 3);
      await redis.xadd(`${base}:log`, '0-3', 'p', JSON.stringify({ seq: 9, samples: [sample(1000), sample(2000)] }), 't', '');
      assert.equal((await post(token, batchId, { seq: 1, samples: [sample(3000)] })).status, 202);
      await watcher.until((w) => w.messages.length === 4);
      assert.deepEqual(watcher.messages.map((m) => m.id), ['1', '2', '3', '4']);
      assert.deepEqual(dataOf(watcher, 'sample').map((s) => s.t), [0, 1000, 2000, 3000]);
      watcher.close();
    });
  }
});

describe('with the roasting operations', () => {
  test('once completion seals the session, posts are refused (409) and every acknowledged sample is in the saved curve', async () => {
    const { machineId, token } = await machine();
    const started = await org.call('production.roast.startRoastBatch', { batchNumber: `B-${++codes}`, machineId, chargeWeightKg: '12' });
    const batchId = started.body.id as string;
    const acknowledged = [sample(0), sample(1000), sample(2000)];
    assert.equal((await post(token, batchId, { seq: 0, samples: acknowledged, events: [{ type: 'charge', t: 0 }] })).status, 202);
    // What completeRoastBatch does before it reads the final curve.
    await live.seal(org.id, batchId);
    const late = await post(token, batchId, { seq: 1, samples: [sample(3000)] });
    assert.deepEqual([late.status, late.body.code, late.body.state], [409, 'batch_not_live', 'completing']);
    const resent = await post(token, batchId, { seq: 0, samples: acknowledged });
    assert.deepEqual([resent.status, resent.body.duplicate], [200, true], 'a resent post stays a harmless duplicate');
    assert.deepEqual((await live.readCurve(org.id, batchId))!.samples.map((s) => s.t), [0, 1000, 2000]);
    const completed = await org.call('production.roast.completeRoastBatch', { id: batchId });
    assert.equal(completed.status, 200, JSON.stringify(completed.body));
    const curve = await org.call('production.roast.getRoastCurve', { id: batchId });
    assert.deepEqual(curve.body.samples.map((s: { t: number }) => s.t), [0, 1000, 2000]);
  });

  test('a completed batch ends its streams and refuses telemetry with 409 batch_not_live', async () => {
    const { machineId, token } = await machine();
    const started = await org.call('production.roast.startRoastBatch', { batchNumber: `B-${++codes}`, machineId, chargeWeightKg: '12' });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    const batchId = started.body.id as string;
    const watcher = await watch(batchId);
    const samples = Array.from({ length: 30 }, (_, i) => sample(i * 1000));
    assert.equal((await post(token, batchId, { seq: 0, samples, events: [{ type: 'charge', t: 0 }, { type: 'drop', t: 29000 }] })).status, 202);
    const completed = await org.call('production.roast.completeRoastBatch', { id: batchId, dropWeightKg: '10' });
    assert.equal(completed.status, 200, JSON.stringify(completed.body));
    await watcher.until((w) => w.ended);
    assert.deepEqual(dataOf(watcher, 'status'), [{ state: 'completed' }]);

    const late = await post(token, batchId, { seq: 1, samples: [sample(31000)] });
    assert.deepEqual([late.status, late.body.code, late.body.state], [409, 'batch_not_live', 'completed']);
    const stream = await watch(batchId);
    assert.deepEqual([stream.status, stream.problem.code], [409, 'batch_not_live']);
  });
});

test('the OpenAPI document describes the telemetry paths', async () => {
  const doc = await (await server.request('/openapi.json')).json();
  assert.ok(doc.paths['/ingest/v1/roast/{batchId}/samples'].post.requestBody.content['application/json'].schema.properties.samples, 'the ingest path describes its samples');
  assert.ok(doc.paths['/stream/v1/roast/{batchId}'].get.responses['200'].content['text/event-stream'], 'the stream path answers an event stream');
  assert.ok(doc.paths['/stream/v1/roast/{batchId}/tickets'].post.responses['201'], 'the tickets path answers 201');
  assert.equal((await server.request('/docs')).status, 200);
});
