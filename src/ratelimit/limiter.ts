import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { Redis } from 'ioredis';

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
  let redis: Redis | undefined;
  if (options.redisUrl) {
    // No offline queue: a request never waits on a Redis that is away; the insurance limiter answers instead.
    redis = new Redis(options.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false, enableAutoPipelining: true });
    await redis.connect();
  }
  return {
    store: redis ? 'redis' : 'memory',
    // The API budget keeps the key prefix it always had, so a rolling upgrade shares counts with older processes.
    limiter: (budget, windows) => new WindowedRateLimiter(windows, { redis, keyPrefix: budget === 'api' ? prefix : `${prefix}-${budget}` }),
    async close() {
      redis?.disconnect();
    },
  };
}

/**
 * Every window checked together. In Redis, every API process draws on one shared budget; if Redis stops
 * answering, an in-memory limiter takes over (per process) rather than failing every request.
 */
class WindowedRateLimiter implements RateLimiter {
  readonly store: 'memory' | 'redis';
  private readonly limiters: { window: RateWindow; limiter: RateLimiterAbstract }[];
  private readonly policyHeader: string;

  constructor(windows: RateWindow[], options: { redis?: Redis; keyPrefix: string }) {
    this.store = options.redis ? 'redis' : 'memory';
    this.limiters = windows.map((window) => {
      const base = { points: window.points, duration: window.seconds, keyPrefix: `${options.keyPrefix}:${window.name}` };
      const limiter = options.redis
        ? new RateLimiterRedis({ ...base, storeClient: options.redis, insuranceLimiter: new RateLimiterMemory(base) })
        : new RateLimiterMemory(base);
      return { window, limiter };
    });
    this.policyHeader = windows.map((w) => `"${w.name}";q=${w.points};w=${w.seconds}`).join(', ');
  }

  async consume(key: string, points = 1): Promise<RateDecision> {
    const results = await Promise.all(
      this.limiters.map(async ({ window, limiter }) => {
        try {
          return { window, res: await limiter.consume(key, points), allowed: true };
        } catch (rejection) {
          if (rejection instanceof RateLimiterRes) return { window, res: rejection, allowed: false };
          throw rejection;
        }
      }),
    );
    // Report the window closest to running out: that is the one a client must pace itself by.
    const binding = results.reduce((a, b) => (remaining(b) < remaining(a) ? b : a));
    const seconds = (r: (typeof results)[number]) => Math.max(1, Math.ceil(r.res.msBeforeNext / 1000));
    const headers: Record<string, string> = {
      'RateLimit-Policy': this.policyHeader,
      RateLimit: `"${binding.window.name}";r=${remaining(binding)};t=${seconds(binding)}`,
    };
    const refused = results.filter((r) => !r.allowed);
    if (refused.length > 0) headers['Retry-After'] = String(Math.max(...refused.map(seconds)));
    return { allowed: refused.length === 0, headers };
  }
}

const remaining = (r: { res: RateLimiterRes }) => Math.max(0, r.res.remainingPoints);
