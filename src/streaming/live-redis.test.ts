import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { startTcpProxy, targetOf } from '../testing/tcp-proxy.js';
import { redisRetryStrategy } from '../lib/redis-retry.js';
import { RedisLiveSessionStore } from './live-redis.js';
import type { LiveMessage } from './messages.js';
import { messagesOfRun } from './testing.js';

const orgId = 'org_redis';
const sample = (t: number) => ({ t, bt: 150, et: 220 });

/** Waits until `check` holds, polling; fails (naming what was seen) after `timeoutMs`. */
async function until(check: () => boolean, describe: () => string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`not reached in ${timeoutMs} ms: ${describe()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * One process's link to Redis cut and restored (through a proxy this test controls) while another process,
 * still connected, stores posts: once the link is back, this process's watchers have every one of them, in
 * order and once, without waiting for a later post to show the gap. Before the feeds read the log on
 * reconnection, a watcher that stayed subscribed got nothing until the next post, and nothing at all when
 * the roast had ended meanwhile.
 */
test('a watcher that stayed subscribed through a Redis outage gets what was stored meanwhile once the link is back, and a new one resumes without a gap', async (t) => {
  if (!process.env.REDIS_URL) return t.skip('REDIS_URL is not set: the Redis live store is server mode’s');
  const proxy = await startTcpProxy(targetOf(process.env.REDIS_URL, 6379));
  t.after(() => proxy.close());
  const keyPrefix = `firstcrack:test:${randomUUID()}`;
  const cutOff = new RedisLiveSessionStore(new Redis(proxy.via(process.env.REDIS_URL), { maxRetriesPerRequest: 2, retryStrategy: redisRetryStrategy }), { keyPrefix, ownsClient: true });
  const other = new RedisLiveSessionStore(new Redis(process.env.REDIS_URL, { maxRetriesPerRequest: 2 }), { keyPrefix, ownsClient: true });
  const batchId = `rb_${randomUUID()}`;
  t.after(async () => {
    await other.discard(orgId, batchId);
    await Promise.all([cutOff.close(), other.close()]);
  });
  await other.open({ orgId, batchId, machineId: 'mch_a' });

  const stayed: LiveMessage[] = [];
  const stopStayed = await cutOff.subscribe(orgId, batchId, 0, (run) => stayed.push(...messagesOfRun(run)));
  await other.append(orgId, batchId, 1, [sample(0), sample(1000)], []);
  await until(() => stayed.length === 2, () => JSON.stringify(stayed));

  proxy.cut();
  // Stored by a process Redis still answers; published while this one's subscriber is away.
  await other.append(orgId, batchId, 2, [sample(2000)], []);
  await other.publishStatus(orgId, batchId, 'completed');
  await assert.rejects(cutOff.readCurve(orgId, batchId), 'this process cannot reach Redis meanwhile');
  proxy.restore();

  // Nothing is posted after the outage: the watcher gets what it missed from the log, not from a later payload.
  await until(() => stayed.length === 4, () => JSON.stringify(stayed.map((m) => m.id)));
  assert.deepEqual(
    stayed.map((m) => [m.id, m.event]),
    [
      [1, 'sample'],
      [2, 'sample'],
      [3, 'sample'],
      [4, 'status'],
    ],
  );
  // A watcher resuming after the last id it received gets the rest, once.
  const resumed: LiveMessage[] = [];
  const stopResumed = await cutOff.subscribe(orgId, batchId, 2, (run) => resumed.push(...messagesOfRun(run)));
  await until(() => resumed.length === 2, () => JSON.stringify(resumed.map((m) => m.id)));
  assert.deepEqual(
    resumed.map((m) => m.id),
    [3, 4],
  );
  stopResumed();
  stopStayed();
  assert.equal(stayed.length, 4, 'nothing was delivered twice');
});
