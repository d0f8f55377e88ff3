import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { Redis } from 'ioredis';
import { redisRetryStrategy } from '../lib/redis-retry.js';
import { batchPerTask } from '../lib/coalesce.js';

export interface RateWindow {
  name: string;
  points: number;
  seconds: number;
}

export interface RateDecision {
  allowed: boolean;
  headers: Record<string, string>;
}

/** Counts requests per key in every window of one budget at once. */
export interface RateLimiter {
  /** Where the counts are kept: `redis` is shared by every process using the same Redis. */
  readonly store: 'memory' | 'redis';
  /** The most points one request can ever draw: the smallest window's. A request costing more can never be admitted. */
  readonly capacity: number;
  /**
   * Draws `points` (default 1) from every window, or from none: a refused draw leaves every window's
   * count as it was, so what was left stays for the next request that fits.
   */
  consume(key: string, points?: number): Promise<RateDecision>;
}

/**
 * The one source of rate limiters: every budget (API, telemetry ingest, public pages, …) is made here, so
 * all of them are counted in Redis whenever REDIS_URL is set and in memory otherwise. Budgets are told
 * apart by name, which prefixes their keys.
 */
export interface RateLimiterFactory {
  readonly store: 'memory' | 'redis';
  /** `leased`: a machine channel's budget, drawn from Redis in leases (see WindowedRateLimiter). */
  limiter(budget: string, windows: RateWindow[], options?: { leased?: boolean }): RateLimiter;
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
    redis = new Redis(options.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false, retryStrategy: redisRetryStrategy });
    // With Redis away the draws fail over to this process's own counts; the client reconnects by itself.
    redis.on('error', () => {});
    await redis.connect();
    counters = new RedisWindowCounters(redis);
  }
  return {
    store: counters ? 'redis' : 'memory',
    // The API budget keeps the key prefix it always had, so a rolling upgrade shares counts with older processes.
    limiter: (budget, windows, { leased = false } = {}) =>
      new WindowedRateLimiter(windows, { counters, keyPrefix: budget === 'api' ? prefix : `${prefix}-${budget}`, leased }),
    async close() {
      redis?.disconnect();
    },
  };
}

/** One window's count for a key: points consumed in the window so far (after the draw when it was taken), and when it ends. */
interface WindowCount {
  consumed: number;
  msBeforeNext: number;
}

/** One request's draw on every window of its budget: taken from all of them, or from none. */
interface Draw {
  keys: string[];
  windows: RateWindow[];
  /** The request's own points: the draw is refused when any window has fewer left. */
  points: number;
  /** What is drawn when it fits (more than `points` for a lease). */
  drawn: number;
}

interface DrawResult {
  counts: WindowCount[];
  taken: boolean;
}

/**
 * Fixed windows in Redis: each key is a counter that expires with its window. The counter and its expiry
 * are rate-limiter-flexible's (key `<prefix>:<window>:<key>`, a counter set with its window's expiry), so
 * processes of either kind share counts; but the windows of a request (and any other draws made in the same
 * task) go to Redis as one script call, sent at once, instead of one command per window. A request's draw is
 * taken from all of its windows or, when any of them has fewer points left than the request's own, from none.
 *
 * ARGV: the number of draws, then per draw: its window count n, its points, what it draws, and n pairs of
 * (window points, window seconds); KEYS: the draws' window keys in order. Answers per draw n pairs of
 * (count, ms left) and 1 when it was taken, 0 when refused.
 */
const DRAW_SCRIPT = `
local out = {}
local a, k = 2, 1
for d = 1, tonumber(ARGV[1]) do
  local n, points, drawn = tonumber(ARGV[a]), tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
  a = a + 3
  local fits = true
  local counts, ttls = {}, {}
  for i = 1, n do
    local key, quota, seconds = KEYS[k + i - 1], tonumber(ARGV[a + 2 * i - 2]), tonumber(ARGV[a + 2 * i - 1])
    redis.call('set', key, 0, 'EX', seconds, 'NX')
    counts[i] = tonumber(redis.call('get', key))
    ttls[i] = redis.call('pttl', key)
    if ttls[i] == -1 then
      redis.call('expire', key, seconds)
      ttls[i] = 1000 * seconds
    end
    if counts[i] + points > quota then fits = false end
  end
  for i = 1, n do
    if fits then counts[i] = redis.call('incrby', KEYS[k + i - 1], drawn) end
    out[#out + 1] = counts[i]
    out[#out + 1] = ttls[i]
  end
  out[#out + 1] = fits and 1 or 0
  a = a + 2 * n
  k = k + n
end
return out`;

/** At most this many requests' draws go in one script call. */
const MAX_DRAWS_PER_CALL = 500;

type DrawingRedis = Redis & { firstcrackDraw(keyCount: number, ...keysThenArgs: (string | number)[]): Promise<number[]> };

class RedisWindowCounters {
  constructor(private readonly redis: Redis) {
    redis.defineCommand('firstcrackDraw', { lua: DRAW_SCRIPT });
  }

  readonly draw = batchPerTask<Draw, DrawResult>(async (draws) => {
    const keys = draws.flatMap((d) => d.keys);
    const args: number[] = [draws.length];
    for (const d of draws) {
      args.push(d.windows.length, d.points, d.drawn);
      for (const w of d.windows) args.push(w.points, w.seconds);
    }
    const answer = await (this.redis as DrawingRedis).firstcrackDraw(keys.length, ...keys, ...args);
    let at = 0;
    return draws.map((d) => {
      const counts = d.windows.map(() => {
        const count = { consumed: answer[at], msBeforeNext: answer[at + 1] };
        at += 2;
        return count;
      });
      return { counts, taken: answer[at++] === 1 };
    });
  }, MAX_DRAWS_PER_CALL);
}

/** Points a process has drawn from Redis for a key ahead of its requests (a leased budget only). */
interface Lease {
  /** Drawn and not yet spent. */
  left: number;
  /** What the draw asked for (0 when it was refused). */
  size: number;
  /** Each window's count right after the draw. */
  counts: WindowCount[];
  drawnAt: number;
  /** When the first of its windows ends: points left then belong to a window that is gone. */
  expiresAt: number;
}

/** A lease is at most this share of the smallest window, and at most MAX_LEASE points. */
const LEASE_SHARE = 0.05;
const MAX_LEASE = 256;
/** Leases remembered per limiter; the oldest is forgotten first (its points are then simply not spent). */
const MAX_LEASES = 10_000;

/**
 * Every window checked together. In Redis, every API process draws on one shared budget; if Redis stops
 * answering, each window's in-memory counter takes over (per process) rather than failing every request.
 *
 * A leased budget (the machine channels: roast telemetry, shots) saves the Redis round trip of most requests
 * of a busy key: a draw may take more points than the request needs, and the process spends the rest on the
 * key's next requests until they run out or the first window ends. A key starts with leases of one point,
 * exactly as unleased, and the size doubles while its leases are spent before their windows end, up to
 * LEASE_SHARE of the smallest window. A lease is drawn like any request, so it never lets more through than
 * the budget: points a process leased and did not spend are lost to the key, which makes the budget stricter
 * by at most one lease per process, never looser. The RateLimit header counts a lease's unspent points as
 * not yet used.
 */
class WindowedRateLimiter implements RateLimiter {
  readonly store: 'memory' | 'redis';
  readonly capacity: number;
  private readonly windows: { window: RateWindow; keyPrefix: string; memory: RateLimiterMemory }[];
  private readonly policyHeader: string;
  private readonly leases: Map<string, Lease> | null;
  private readonly maxLease: number;

  constructor(
    windows: RateWindow[],
    private readonly options: { counters?: RedisWindowCounters; keyPrefix: string; leased?: boolean },
  ) {
    this.store = options.counters ? 'redis' : 'memory';
    this.capacity = Math.min(...windows.map((w) => w.points));
    this.windows = windows.map((window) => {
      const keyPrefix = `${options.keyPrefix}:${window.name}`;
      return { window, keyPrefix, memory: new RateLimiterMemory({ points: window.points, duration: window.seconds, keyPrefix }) };
    });
    this.policyHeader = windows.map((w) => `"${w.name}";q=${w.points};w=${w.seconds}`).join(', ');
    this.leases = options.leased && options.counters ? new Map() : null;
    this.maxLease = Math.max(1, Math.min(MAX_LEASE, Math.floor(LEASE_SHARE * Math.min(...windows.map((w) => w.points)))));
  }

  async consume(key: string, points = 1): Promise<RateDecision> {
    const now = Date.now();
    const lease = this.leases?.get(key);
    if (lease && now < lease.expiresAt && lease.left >= points) {
      lease.left -= points;
      return this.decision(lease.counts, lease.left, now - lease.drawnAt, []);
    }
    const size = this.leases ? Math.max(points, this.nextLeaseSize(lease, now)) : points;
    const { counts, shared, taken } = await this.count(key, size, points);
    const drawn = shared ? size : points;
    // Refused: no window was drawn from, and those with fewer points left than the request's own say so.
    const refused = taken ? [] : this.windows.map(({ window }, i) => counts[i].consumed + points > window.points);
    // Taken: how many of the draw's points the fullest window had left (a lease may draw past a window's end).
    const granted = taken ? Math.min(drawn, ...this.windows.map(({ window }, i) => Math.max(0, window.points - (counts[i].consumed - drawn)))) : 0;
    let left = taken ? granted - points : 0;
    if (this.leases && shared) {
      // Points left of a lease drawn by a concurrent request are kept; a refusal starts the key's leases at one point again.
      const kept = this.leases.get(key);
      if (kept && now < kept.expiresAt) left += kept.left;
      this.keepLease(key, { left, size: taken ? size : 0, counts, drawnAt: now, expiresAt: now + Math.min(...counts.map((c) => c.msBeforeNext)) });
    }
    return this.decision(counts, left, 0, refused);
  }

  /** A key whose last lease was spent before its window ended is busy: its next lease is twice the size. */
  private nextLeaseSize(lease: Lease | undefined, now: number): number {
    return lease && now < lease.expiresAt ? Math.max(1, Math.min(2 * lease.size, this.maxLease)) : 1;
  }

  private keepLease(key: string, lease: Lease): void {
    const leases = this.leases!;
    leases.delete(key);
    if (leases.size >= MAX_LEASES) leases.delete(leases.keys().next().value!);
    leases.set(key, lease);
  }

  /** The answer from each window's count: `unspent` leased points are not counted as used, `elapsedMs` is the count's age. */
  private decision(counts: WindowCount[], unspent: number, elapsedMs: number, refused: boolean[]): RateDecision {
    const results = this.windows.map(({ window }, i) => ({
      window,
      remaining: Math.max(0, window.points - (counts[i].consumed - unspent)),
      seconds: Math.max(1, Math.ceil((counts[i].msBeforeNext - elapsedMs) / 1000)),
      refused: refused[i] ?? false,
    }));
    // Report the window closest to running out: that is the one a client must pace itself by.
    const binding = results.reduce((a, b) => (b.remaining < a.remaining ? b : a));
    const headers: Record<string, string> = {
      'RateLimit-Policy': this.policyHeader,
      RateLimit: `"${binding.window.name}";r=${binding.remaining};t=${binding.seconds}`,
    };
    const refusing = results.filter((r) => r.refused);
    if (refusing.length > 0) headers['Retry-After'] = String(Math.max(...refusing.map((r) => r.seconds)));
    return { allowed: refusing.length === 0, headers };
  }

  /**
   * Draws from every window or from none: `drawn` points in Redis (`shared`), or, with Redis away, the
   * request's own `points` in this process's counts (no lease: these counts are this process's alone anyway).
   */
  private async count(key: string, drawn: number, points: number): Promise<{ counts: WindowCount[]; shared: boolean; taken: boolean }> {
    const { counters } = this.options;
    if (counters) {
      try {
        const windows = this.windows.map((w) => w.window);
        const { counts, taken } = await counters.draw({ keys: this.windows.map((w) => `${w.keyPrefix}:${key}`), windows, points, drawn });
        return { counts, shared: true, taken };
      } catch {
        // Redis is away: this process's own counts answer until it is back.
      }
    }
    const counts = await Promise.all(
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
    const taken = this.windows.every(({ window }, i) => counts[i].consumed <= window.points);
    if (taken) return { counts, shared: false, taken };
    // Refused: every window gets its points back at once (a request counted meanwhile may have seen them drawn).
    await Promise.all(this.windows.map(({ memory }) => memory.reward(key, points)));
    return { counts: counts.map((c) => ({ ...c, consumed: c.consumed - points })), shared: false, taken };
  }
}
