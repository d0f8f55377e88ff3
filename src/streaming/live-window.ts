import type { Redis } from 'ioredis';

/**
 * A live window: per scope (a cafe site), the items that started in the last `retainSeconds` (the shots its
 * machines pulled in the last hour), which is all a live view reads (never the database). Embedded it lives
 * in this process's memory (one process serves the API); in server mode in Redis, so whichever API process a
 * request reaches answers with the items every process took in. It is a view, not a record: the items are
 * stored in the database in the same request, so losing the window (a restart) loses only the live picture.
 */
export interface WindowItem {
  /** Milliseconds since the epoch. */
  startedAt: number;
}

export interface LiveWindowStore<Item extends WindowItem> {
  /** Adds items to the scope's window; items that started before the window are not kept. */
  record(orgId: string, scopeId: string, items: Item[], now?: number): Promise<void>;
  /** The scope's items that started at or after `sinceMs`, oldest first. */
  read(orgId: string, scopeId: string, sinceMs: number): Promise<Item[]>;
  close(): Promise<void>;
}

export interface LiveWindowOptions<Item extends WindowItem> {
  /** How long an item stays in the window after it started. */
  retainSeconds: number;
  /** At most this many items are kept per scope (the newest). */
  maxItems: number;
  /** What tells an item recorded twice from two items (Redis keeps each distinct JSON once). */
  identity(item: Item): string;
}

export class MemoryLiveWindowStore<Item extends WindowItem> implements LiveWindowStore<Item> {
  private readonly scopes = new Map<string, Item[]>();

  constructor(private readonly options: LiveWindowOptions<Item>) {}

  async record(orgId: string, scopeId: string, items: Item[], now = Date.now()): Promise<void> {
    const key = `${orgId}:${scopeId}`;
    const horizon = now - this.options.retainSeconds * 1000;
    const kept = (this.scopes.get(key) ?? []).filter((s) => s.startedAt >= horizon);
    const known = new Set(kept.map(this.options.identity));
    for (const item of items) if (item.startedAt >= horizon && !known.has(this.options.identity(item))) kept.push(item);
    kept.sort((a, b) => a.startedAt - b.startedAt);
    this.scopes.set(key, kept.length > this.options.maxItems ? kept.slice(-this.options.maxItems) : kept);
  }

  async read(orgId: string, scopeId: string, sinceMs: number): Promise<Item[]> {
    return (this.scopes.get(`${orgId}:${scopeId}`) ?? []).filter((s) => s.startedAt >= sinceMs);
  }

  async close(): Promise<void> {
    this.scopes.clear();
  }
}

/**
 * Adds the items (score, member pairs from ARGV[4]) to the scope's sorted set, drops those that started before
 * the horizon (ARGV[1]), keeps the newest ARGV[2], and expires the key ARGV[3] seconds after its last write.
 * One script: one command per post, and a reader never sees the set between the add and the trims. The add
 * goes 500 items at a time, inside Lua's limit on unpacked values.
 */
const RECORD_SCRIPT = `
for i = 4, #ARGV, 1000 do
  redis.call('zadd', KEYS[1], unpack(ARGV, i, math.min(i + 999, #ARGV)))
end
redis.call('zremrangebyscore', KEYS[1], '-inf', '(' .. ARGV[1])
redis.call('zremrangebyrank', KEYS[1], 0, -tonumber(ARGV[2]) - 1)
redis.call('expire', KEYS[1], ARGV[3])
return 1`;

type ScriptedRedis = Redis & { firstcrackWindowRecord(key: string, ...args: (string | number)[]): Promise<number> };

/**
 * Server mode: one sorted set per scope, scored by the item's start, its member the item's JSON. A write is
 * one script call (add, drop what left the window, cap, expire), atomic in Redis, so concurrent posts from
 * any process interleave safely; a caller makes one call per scope for the posts it stores together. The
 * key expires `retainSeconds` after the scope's last item.
 */
export class RedisLiveWindowStore<Item extends WindowItem> implements LiveWindowStore<Item> {
  constructor(
    private readonly redis: Redis,
    private readonly options: LiveWindowOptions<Item> & { keyPrefix: string; ownsClient?: boolean },
  ) {
    // ioredis sends EVALSHA and falls back to EVAL once when the server does not know the script yet.
    redis.defineCommand('firstcrackWindowRecord', { numberOfKeys: 1, lua: RECORD_SCRIPT });
    // With Redis away, errors surface on the commands that meet them (503 live_store_unavailable); the
    // client reconnects by itself. Unheard, each would also be printed as an unhandled error event.
    if (options.ownsClient) redis.on('error', () => {});
  }

  private key(orgId: string, scopeId: string): string {
    return `${this.options.keyPrefix}:{${orgId}:${scopeId}}`;
  }

  async record(orgId: string, scopeId: string, items: Item[], now = Date.now()): Promise<void> {
    const horizon = now - this.options.retainSeconds * 1000;
    const fresh = items.filter((s) => s.startedAt >= horizon);
    if (fresh.length === 0) return;
    const args: (string | number)[] = [];
    for (const item of fresh) args.push(item.startedAt, JSON.stringify(item));
    await (this.redis as ScriptedRedis).firstcrackWindowRecord(this.key(orgId, scopeId), horizon, this.options.maxItems, this.options.retainSeconds, ...args);
  }

  async read(orgId: string, scopeId: string, sinceMs: number): Promise<Item[]> {
    const members = await this.redis.zrangebyscore(this.key(orgId, scopeId), sinceMs, '+inf');
    return members.map((m) => JSON.parse(m) as Item);
  }

  async close(): Promise<void> {
    if (this.options.ownsClient) await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
