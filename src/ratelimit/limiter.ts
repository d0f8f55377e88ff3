import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { Redis } from 'ioredis';
import { batchPerTask } from '../lib/coalesce.js';

export interface RateWindow {
  name: string;
  points: number;
  seconds: number;
}

/** The specification's API budget: both windows are checked together, per credential. */
export const API_WINDOWS: RateWindow[] = [
  { name: 'burst', points: 60, seconds: 10 },
  { name: 'sustained', points: 300, seconds: 60 },
];

export interface RateDecision {
  allowed: boolean;
  headers: Record<string, string>;
}

/** Counts requests per key in every window of one budget at once. */
export interface RateLimiter {
  /** Where the counts are kept: `redis` is shared by every process using the same Redis. */
  readonly store: 'memory' | 'redis';
  /** Draws `points` (default 1) from every window. */
  consume(key: string, points?: number): Promise<RateDecision>;
}

/**
 * The one source of rate limiters: every budget (API, telemetry ingest, public pages, …) is made here, so
 * all of them are counted in Redis whenever REDIS_URL is set and in memory otherwise. Budgets are told
 * apart by name, which prefixes their keys.
 */
export interface RateLimiterFactory {
  readonly store: 'memory' | 'redis';
  limiter(budget: string, windows: RateWindow[]): RateLimiter;
  close(): Promise<void>;
}

const KEY_PREFIX = 'firstcrack:rl';

/** A factory over Redis when `redisUrl` is given (connected before it answers), over memory otherwise. */
export async function openRateLimiterFactory(options: { redisUrl?: string; keyPrefix?: string } = {}): Promise<RateLimiterFactory> {
  const prefix = options.keyPrefix ?? KEY_PREFIX;
  let counters: RedisWindowCounters | undefined;
  let redis: Redis | undefined;
  if (options.redisUrl) {
    // No offline queue: a request never waits on a Redis that is away; the in-memory windows answer instead.
    redis = new Redis(options.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false });
    await redis.connect();
    counters = new RedisWindowCounters(redis);
  }
  return {
    store: counters ? 'redis' : 'memory',
    // The API budget keeps the key prefix it always had, so a rolling upgrade shares counts with older processes.
    limiter: (budget, windows) => new WindowedRateLimiter(windows, { counters, keyPrefix: budget === 'api' ? prefix : `${prefix}-${budget}` }),
    async close() {
      redis?.disconnect();
    },
  };
}

/** One window's count for a key after a draw: points consumed in the window so far, and when it ends. */
interface WindowCount {
  consumed: number;
  msBeforeNext: number;
}

/**
 * Fixed windows in Redis: each key is a counter that expires with its window. The counter and its expiry
 * are rate-limiter-flexible's (its `rlflxIncr` script, key `<prefix>:<window>:<key>`), so processes of
 * either kind share counts; but the windows of a request (and any other draws made in the same task) go to
 * Redis as one script call, sent at once, instead of one command per window.
 */
const DRAW_SCRIPT = `
local counts = {}
for i = 1, #KEYS do
  local points, seconds = ARGV[2 * i - 1], ARGV[2 * i]
  redis.call('set', KEYS[i], 0, 'EX', seconds, 'NX')
  local consumed = redis.call('incrby', KEYS[i], points)
  local ttl = redis.call('pttl', KEYS[i])
  if ttl == -1 then
    redis.call('expire', KEYS[i], seconds)
    ttl = 1000 * seconds
  end
  counts[2 * i - 1] = consumed
  counts[2 * i] = ttl
end
return counts`;

/** At most this many window counters are drawn in one script call. */
const MAX_DRAWS_PER_CALL = 1000;

type DrawingRedis = Redis & { firstcrackDraw(keyCount: number, ...keysThenArgs: (string | number)[]): Promise<number[]> };

class RedisWindowCounters {
  constructor(private readonly redis: Redis) {
    redis.defineCommand('firstcrackDraw', { lua: DRAW_SCRIPT });
  }

  readonly draw = batchPerTask<{ key: string; points: number; seconds: number }, WindowCount>(async (draws) => {
    const args: (string | number)[] = draws.map((d) => d.key);
    for (const d of draws) args.push(d.points, d.seconds);
    const counts = await (this.redis as DrawingRedis).firstcrackDraw(draws.length, ...args);
    return draws.map((_, i) => ({ consumed: counts[2 * i], msBeforeNext: counts[2 * i + 1] }));
  }, MAX_DRAWS_PER_CALL);
}

/**
 * Every window checked together. In Redis, every API process draws on one shared budget; if Redis stops
 * answering, each window's in-memory counter takes over (per process) rather than failing every request.
 */
class WindowedRateLimiter implements RateLimiter {
  readonly store: 'memory' | 'redis';
  private readonly windows: { window: RateWindow; keyPrefix: string; memory: RateLimiterMemory }[];
  private readonly policyHeader: string;

  constructor(
    windows: RateWindow[],
    private readonly options: { counters?: RedisWindowCounters; keyPrefix: string },
  ) {
    this.store = options.counters ? 'redis' : 'memory';
    this.windows = windows.map((window) => {
      const keyPrefix = `${options.keyPrefix}:${window.name}`;
      return { window, keyPrefix, memory: new RateLimiterMemory({ points: window.points, duration: window.seconds, keyPrefix }) };
    });
    this.policyHeader = windows.map((w) => `"${w.name}";q=${w.points};w=${w.seconds}`).join(', ');
  }

  async consume(key: string, points = 1): Promise<RateDecision> {
    const counts = await this.count(key, points);
    const results = this.windows.map(({ window }, i) => ({
      window,
      remaining: Math.max(0, window.points - counts[i].consumed),
      seconds: Math.max(1, Math.ceil(counts[i].msBeforeNext / 1000)),
      allowed: counts[i].consumed <= window.points,
    }));
    // Report the window closest to running out: that is the one a client must pace itself by.
    const binding = results.reduce((a, b) => (b.remaining < a.remaining ? b : a));
    const headers: Record<string, string> = {
      'RateLimit-Policy': this.policyHeader,
      RateLimit: `"${binding.window.name}";r=${binding.remaining};t=${binding.seconds}`,
    };
    const refused = results.filter((r) => !r.allowed);
    if (refused.length > 0) headers['Retry-After'] = String(Math.max(...refused.map((r) => r.seconds)));
    return { allowed: refused.length === 0, headers };
  }

  private async count(key: string, points: number): Promise<WindowCount[]> {
    const { counters } = this.options;
    if (counters) {
      try {
        return await Promise.all(this.windows.map((w) => counters.draw({ key: `${w.keyPrefix}:${key}`, points, seconds: w.window.seconds })));
      } catch {
        // Redis is away: this process's own counts answer until it is back.
      }
    }
    return Promise.all(
      this.windows.map(({ memory }) =>
        memory.consume(key, points).then(
          (res) => ({ consumed: res.consumedPoints, msBeforeNext: res.msBeforeNext }),
          (rejection: unknown) => {
            if (rejection instanceof RateLimiterRes) return { consumed: rejection.consumedPoints, msBeforeNext: rejection.msBeforeNext };
            throw rejection;
          },
        ),
      ),
    );
  }
}
