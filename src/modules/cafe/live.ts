import type { Redis } from 'ioredis';
import { LIVE_RETAIN_SECONDS } from './targets.js';

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
 * Server mode: one sorted set per site, scored by the shot's start, its member the shot's JSON. A write is
 * one pipelined round trip (add, drop what left the window, cap, expire) without MULTI/EXEC: each command is
 * atomic by itself and the trims are idempotent, so concurrent posts from any process interleave safely
 * (a read between them at worst sees a shot the next trim drops). The key expires an hour after the site's
 * last shot.
 */
export class RedisLiveBarStore implements LiveBarStore {
  constructor(
    private readonly redis: Redis,
    private readonly options: { keyPrefix?: string; ownsClient?: boolean } = {},
  ) {}

  private key(orgId: string, siteId: string): string {
    return `${this.options.keyPrefix ?? 'firstcrack:bar'}:{${orgId}:${siteId}}`;
  }

  async record(orgId: string, siteId: string, shots: LiveShot[], now = Date.now()): Promise<void> {
    const horizon = now - LIVE_RETAIN_SECONDS * 1000;
    const fresh = shots.filter((s) => s.startedAt >= horizon);
    if (fresh.length === 0) return;
    const key = this.key(orgId, siteId);
    const args: (string | number)[] = [];
    for (const shot of fresh) args.push(shot.startedAt, JSON.stringify(shot));
    const results = await this.redis
      .pipeline()
      .zadd(key, ...args)
      .zremrangebyscore(key, '-inf', `(${horizon}`)
      .zremrangebyrank(key, 0, -MAX_SHOTS_PER_SITE - 1)
      .expire(key, LIVE_RETAIN_SECONDS)
      .exec();
    const failed = results?.find(([error]) => error);
    if (failed) throw failed[0];
  }

  async read(orgId: string, siteId: string, sinceMs: number): Promise<LiveShot[]> {
    const members = await this.redis.zrangebyscore(this.key(orgId, siteId), sinceMs, '+inf');
    return members.map((m) => JSON.parse(m) as LiveShot);
  }

  async close(): Promise<void> {
    if (this.options.ownsClient) await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
