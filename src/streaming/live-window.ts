import type { Redis } from 'ioredis';
import { LIVE_RETAIN_SECONDS } from '../modules/cafe/targets.js';

/**
 * A cafe site's live session: the shots its machines pulled in the last hour, judged at ingest, which is
 * all getLiveBar reads (never the database). Embedded it lives in this process's memory (one process
 * serves the API); in server mode in Redis, so whichever API process a manager's request reaches answers
 * with the shots every process took in. It is a view, not a record: the shots are stored in the database
 * in the same request, so losing the session (a restart) loses only the last hour's live picture.
 */
export interface LiveShot {
  shotId: string;
  machineId: string;
  group: number;
  /** Milliseconds since the epoch. */
  startedAt: number;
  durationS: number;
  doseG: number;
  yieldG: number;
  outsideTarget: boolean;
  channeling: boolean;
}

export interface LiveBarStore {
  /** Adds shots to the site's session; shots that started before the retention window are not kept. */
  record(orgId: string, siteId: string, shots: LiveShot[], now?: number): Promise<void>;
  /** The site's shots that started at or after `sinceMs`, oldest first. */
  read(orgId: string, siteId: string, sinceMs: number): Promise<LiveShot[]>;
  close(): Promise<void>;
}

/** At most this many shots are kept per site (a very busy bar pulls a few hundred an hour). */
const MAX_SHOTS_PER_SITE = 5000;

export class MemoryLiveBarStore implements LiveBarStore {
  private readonly sites = new Map<string, LiveShot[]>();

  async record(orgId: string, siteId: string, shots: LiveShot[], now = Date.now()): Promise<void> {
    const key = `${orgId}:${siteId}`;
    const horizon = now - LIVE_RETAIN_SECONDS * 1000;
    const kept = (this.sites.get(key) ?? []).filter((s) => s.startedAt >= horizon);
    const known = new Set(kept.map((s) => `${s.machineId}:${s.shotId}`));
    for (const shot of shots) if (shot.startedAt >= horizon && !known.has(`${shot.machineId}:${shot.shotId}`)) kept.push(shot);
    kept.sort((a, b) => a.startedAt - b.startedAt);
    this.sites.set(key, kept.length > MAX_SHOTS_PER_SITE ? kept.slice(-MAX_SHOTS_PER_SITE) : kept);
  }

  async read(orgId: string, siteId: string, sinceMs: number): Promise<LiveShot[]> {
    return (this.sites.get(`${orgId}:${siteId}`) ?? []).filter((s) => s.startedAt >= sinceMs);
  }

  async close(): Promise<void> {
    this.sites.clear();
  }
}

/**
 * Adds the shots (score, member pairs from ARGV[4]) to the site's sorted set, drops those that started before
 * the horizon (ARGV[1]), keeps the newest ARGV[2], and expires the key ARGV[3] seconds after its last write.
 * One script: one command per post, and a reader never sees the set between the add and the trims. The add
 * goes 500 shots at a time, inside Lua's limit on unpacked values.
 */
const RECORD_SCRIPT = `
for i = 4, #ARGV, 1000 do
  redis.call('zadd', KEYS[1], unpack(ARGV, i, math.min(i + 999, #ARGV)))
end
redis.call('zremrangebyscore', KEYS[1], '-inf', '(' .. ARGV[1])
redis.call('zremrangebyrank', KEYS[1], 0, -tonumber(ARGV[2]) - 1)
redis.call('expire', KEYS[1], ARGV[3])
return 1`;

type ScriptedRedis = Redis & { firstcrackBarRecord(key: string, ...args: (string | number)[]): Promise<number> };

/**
 * Server mode: one sorted set per site, scored by the shot's start, its member the shot's JSON. A write is
 * one script call (add, drop what left the window, cap, expire), atomic in Redis, so concurrent posts from
 * any process interleave safely; the channel makes one call per site for the posts it stores together. The
 * key expires an hour after the site's last shot.
 */
export class RedisLiveBarStore implements LiveBarStore {
  constructor(
    private readonly redis: Redis,
    private readonly options: { keyPrefix?: string; ownsClient?: boolean } = {},
  ) {
    // ioredis sends EVALSHA and falls back to EVAL once when the server does not know the script yet.
    redis.defineCommand('firstcrackBarRecord', { numberOfKeys: 1, lua: RECORD_SCRIPT });
  }

  private key(orgId: string, siteId: string): string {
    return `${this.options.keyPrefix ?? 'firstcrack:bar'}:{${orgId}:${siteId}}`;
  }

  async record(orgId: string, siteId: string, shots: LiveShot[], now = Date.now()): Promise<void> {
    const horizon = now - LIVE_RETAIN_SECONDS * 1000;
    const fresh = shots.filter((s) => s.startedAt >= horizon);
    if (fresh.length === 0) return;
    const args: (string | number)[] = [];
    for (const shot of fresh) args.push(shot.startedAt, JSON.stringify(shot));
    await (this.redis as ScriptedRedis).firstcrackBarRecord(this.key(orgId, siteId), horizon, MAX_SHOTS_PER_SITE, LIVE_RETAIN_SECONDS, ...args);
  }

  async read(orgId: string, siteId: string, sinceMs: number): Promise<LiveShot[]> {
    const members = await this.redis.zrangebyscore(this.key(orgId, siteId), sinceMs, '+inf');
    return members.map((m) => JSON.parse(m) as LiveShot);
  }

  async close(): Promise<void> {
    if (this.options.ownsClient) await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
