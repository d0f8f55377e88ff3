import type { Redis } from 'ioredis';
import { runFrom, type LiveRun } from './frames.js';
import {
  MAX_SESSION_MESSAGES,
  SessionClosedError,
  SessionFullError,
  curveOf,
  postLine,
  type AppendResult,
  type CurveText,
  type LiveEntry,
  type LiveSessionInfo,
  type LiveSessionStore,
  type PostText,
} from './live.js';
import type { LiveCurve, LivePoint } from './messages.js';
import { frameStored, storedEntry, type StoredPost } from './live-redis-entries.js';
import { curveTextOf } from './curve-text.js';
import { redisRetryStrategy } from '../lib/redis-retry.js';

/**
 * Server-mode live sessions, shared by every API process through Redis. Per batch, under keys that share one
 * hash tag (so a cluster keeps them in one slot and a script may touch them together):
 *
 *   …:info  hash    orgId, batchId, machineId; its presence is what "the session is open" means
 *   …:seqs  set     every stored post's seq, for dedupe
 *   …:next  string  the last message id handed out
 *   …:log   stream  one entry per post (or status), entry id `0-<its last message id>`, fields p (the post's
 *                   JSON: seq, samples, events; or '') and t (status JSON or ''); its messages are the
 *                   samples, then the events, then the status, numbered consecutively up to the entry id
 *
 * A post is stored by one Lua script (existence check, seq dedupe, ids, the entry and the publish to
 * watchers), so concurrent posts from any process never interleave ids and a duplicate stores nothing.
 * Nothing expires: the buffer is the only copy of the curve until completeRoastBatch has written it elsewhere
 * and discards it. Durability across a Redis restart is Redis's own (run it with appendonly yes).
 *
 * Fan-out: each post is published once to the batch's channel; every process keeps one subscriber connection
 * and hands each run to its local watchers, framed once for all of them straight from the bytes Redis sent (a
 * post is never parsed for its watchers). A watcher first subscribes, then reads the log from its
 * resume point, then takes published messages with a higher id: whatever was stored before the subscription
 * is in the log, whatever after reaches the channel, and the id filter drops the overlap, so there is no gap
 * and no duplicate at the seam. A gap seen on the channel (posts published while the subscriber connection
 * was reconnecting) is filled from the log before anything newer is delivered.
 */
export class RedisLiveSessionStore<Sample extends LivePoint = LivePoint, Event extends LivePoint = LivePoint> implements LiveSessionStore<Sample, Event> {
  private readonly subscriber: Redis;
  private readonly feeds = new Map<string, Feed>();
  /**
   * A session's info never changes once opened, so a lookup is remembered for INFO_CACHE_MS: the ingest path's
   * lookup then costs no round trip. A post to a session that another process discarded meanwhile is still
   * refused, by the append script's own existence check, which also drops the remembered info.
   */
  private readonly infoCache = new Map<string, { info: LiveSessionInfo; until: number }>();
  private closed = false;

  constructor(
    private readonly redis: Redis,
    private readonly options: { keyPrefix?: string; ownsClient?: boolean } = {},
  ) {
    redis.defineCommand('firstcrackLiveAppend', { numberOfKeys: 4, lua: APPEND_SCRIPT });
    // With Redis away, errors surface on the commands that meet them (503 live_store_unavailable).
    if (options.ownsClient) redis.on('error', () => {});
    // The subscriber never gives up on a command: a SUBSCRIBE sent while Redis is away waits for it (the
    // stream asking for it stays open, and is served once Redis returns) rather than failing the stream.
    this.subscriber = redis.duplicate({ maxRetriesPerRequest: null, retryStrategy: redisRetryStrategy });
    this.subscriber.on('messageBuffer', (channel: Buffer, payload: Buffer) => this.feeds.get(channel.toString())?.receive(payload));
    // Errors surface on the commands that meet them; a dropped connection reconnects and resubscribes.
    this.subscriber.on('error', () => {});
    // What was published while the subscriber was away never reaches it: after each reconnection every feed
    // reads what it missed from the log (the payloads only showed a gap once a later one arrived, so a
    // watcher waited for the next post, forever when none came).
    let connectedBefore = false;
    this.subscriber.on('ready', () => {
      if (connectedBefore) for (const feed of this.feeds.values()) feed.resume();
      connectedBefore = true;
    });
  }

  private keys(orgId: string, batchId: string) {
    const base = `${this.options.keyPrefix ?? 'firstcrack:live'}:{${orgId}:${batchId}}`;
    return { info: `${base}:info`, seqs: `${base}:seqs`, next: `${base}:next`, log: `${base}:log`, channel: `${base}:feed` };
  }

  async open(info: LiveSessionInfo): Promise<void> {
    const { info: key } = this.keys(info.orgId, info.batchId);
    await this.redis.hset(key, { orgId: info.orgId, batchId: info.batchId, machineId: info.machineId });
  }

  async get(orgId: string, batchId: string, fresh = false): Promise<LiveSessionInfo | null> {
    const key = this.keys(orgId, batchId).info;
    const now = Date.now();
    const cached = this.infoCache.get(key);
    if (cached && cached.until > now && !fresh) return cached.info;
    this.infoCache.delete(key);
    const stored = await this.redis.hgetall(key);
    if (!stored.machineId) return null;
    const info = { orgId: stored.orgId, batchId: stored.batchId, machineId: stored.machineId };
    if (this.infoCache.size >= 10_000) this.infoCache.delete(this.infoCache.keys().next().value!); // oldest first
    this.infoCache.set(key, { info, until: now + INFO_CACHE_MS });
    return info;
  }

  append(orgId: string, batchId: string, seq: number, samples: Sample[], events: Event[], postJson?: string): Promise<AppendResult> {
    return this.appendText(orgId, batchId, { seq, samples: samples.length, events: events.length, json: postLine(seq, samples, events, postJson) });
  }

  async appendText(orgId: string, batchId: string, post: PostText<Sample, Event>): Promise<AppendResult> {
    // Only the post's sizes are used after the round trip: its objects, if it came with them, are not held across it.
    const accepted = post.samples;
    const outcome = await this.store(orgId, batchId, String(post.seq), post.json, '', post.samples + post.events);
    if (outcome === SESSION_GONE) {
      this.infoCache.delete(this.keys(orgId, batchId).info);
      throw new SessionClosedError(batchId, 'gone');
    }
    if (outcome === SESSION_SEALED) throw new SessionClosedError(batchId, 'sealed');
    if (outcome === SESSION_FULL) throw new SessionFullError(batchId);
    return outcome === DUPLICATE ? { duplicate: true, accepted: 0 } : { duplicate: false, accepted };
  }

  async readCurve(orgId: string, batchId: string): Promise<LiveCurve<Sample, Event> | null> {
    const k = this.keys(orgId, batchId);
    const [[, exists], [, entries]] = (await this.redis.multi().exists(k.info).xrange(k.log, '-', '+').exec()) as [
      [unknown, number],
      [unknown, StreamEntry[]],
    ];
    // The log holds the posts append was given: points of this store's types.
    return exists ? (curveOf(entries.map(entryOf)) as LiveCurve<Sample, Event>) : null;
  }

  async readCurveText(orgId: string, batchId: string): Promise<CurveText<Sample, Event> | null> {
    const k = this.keys(orgId, batchId);
    const [[, exists], [, entries]] = (await this.redis.multi().exists(k.info).xrangeBuffer(k.log, '-', '+').exec()) as [
      [unknown, number],
      [unknown, StreamEntry<Buffer>[]],
    ];
    return exists ? (curveTextOf(entries.map((entry) => storedEntry(storedPostOf(entry)))) as CurveText<Sample, Event>) : null;
  }

  async publishStatus(orgId: string, batchId: string, state: string): Promise<void> {
    // A status is stored like a post without a seq: same ids, same log, same channel.
    await this.store(orgId, batchId, '', '', JSON.stringify({ state }), 1);
  }

  private store(orgId: string, batchId: string, seq: string, postJson: string | Buffer, statusJson: string, count: number) {
    const k = this.keys(orgId, batchId);
    return (this.redis as RedisWithScripts).firstcrackLiveAppend(k.info, k.seqs, k.next, k.log, k.channel, seq, postJson, statusJson, String(count), String(MAX_SESSION_MESSAGES));
  }

  async subscribe(orgId: string, batchId: string, afterId: number, onRun: (run: LiveRun) => void): Promise<() => void> {
    const k = this.keys(orgId, batchId);
    if (!(await this.redis.exists(k.info))) return () => {};
    let feed = this.feeds.get(k.channel);
    if (!feed) {
      feed = new Feed(this.subscriber, k.channel, (from) => this.range(k.log, from));
      this.feeds.set(k.channel, feed);
    }
    let backlog: LiveRun[] | null = [];
    const listener: FeedListener = {
      last: afterId,
      take: (run) => (backlog ? backlog.push(run) : deliver(run)),
    };
    // A run wholly past `last` (every live run once the seam is behind) is passed on as the shared run itself.
    const deliver = (run: LiveRun | null) => {
      const fresh = run && runFrom(run, listener.last + 1);
      if (!fresh) return;
      listener.last = fresh.lastId;
      onRun(fresh);
    };
    feed.listeners.add(listener);
    const unsubscribe = () => {
      feed.listeners.delete(listener);
      if (feed.listeners.size === 0 && this.feeds.get(k.channel) === feed) {
        this.feeds.delete(k.channel);
        feed.close();
      }
    };
    try {
      await feed.subscribed;
      deliver(await this.range(k.log, afterId + 1));
    } catch (error) {
      unsubscribe();
      throw error;
    }
    for (const run of backlog) deliver(run);
    backlog = null;
    return unsubscribe;
  }

  /** Stored messages with ids from `from` on, as one run. An entry is keyed by its last id, so the one holding `from` is the first returned. */
  private async range(log: string, from: number): Promise<LiveRun | null> {
    const entries = (await this.redis.xrangeBuffer(log, `0-${from}`, '+')) as StreamEntry<Buffer>[];
    return frameStored(entries.map(storedPostOf), from - 1);
  }

  async seal(orgId: string, batchId: string): Promise<void> {
    // The append script reads the flag atomically: once HSET returns, no post is stored any more.
    await this.redis.eval(`if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], 'sealed', '1') end`, 1, this.keys(orgId, batchId).info);
  }

  async discard(orgId: string, batchId: string): Promise<void> {
    const k = this.keys(orgId, batchId);
    this.infoCache.delete(k.info);
    await this.redis.del(k.info, k.seqs, k.next, k.log);
  }

  async discardOrganization(orgId: string): Promise<number> {
    // Every key of a session is `<prefix>:{<orgId>:<batchId>}:<part>`; the braces are literal in a SCAN pattern.
    const base = `${this.options.keyPrefix ?? 'firstcrack:live'}:{${orgId}:`;
    const batches = new Set<string>();
    let cursor = '0';
    do {
      const [next, keys] = await this.redis.scan(cursor, 'MATCH', `${base.replace(/[*?[\]\\]/g, '\\$&')}*`, 'COUNT', 1000);
      for (const key of keys) batches.add(key.slice(base.length, key.indexOf('}', base.length)));
      cursor = next;
    } while (cursor !== '0');
    for (const batchId of batches) await this.discard(orgId, batchId);
    return batches.size;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const feed of this.feeds.values()) feed.listeners.clear();
    this.feeds.clear();
    this.subscriber.disconnect();
    if (this.options.ownsClient) await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

const INFO_CACHE_MS = 2000;

/** The script's answers besides a stored post's last message id (≥ 1). */
const SESSION_GONE = -1;
const SESSION_SEALED = -2;
const SESSION_FULL = -3;
const DUPLICATE = 0;

/**
 * KEYS: info, seqs, next, log. ARGV: channel, seq ('' for a status, which has none), post JSON (or ''),
 * status JSON (or ''), message count, the session's message limit (posts only). Answers -1 (no session),
 * -2 (sealed), -3 (the post would pass the limit), 0 (duplicate seq), or a positive number when stored. The published payload is "<last id>\n<post>\n<status>" (both JSON texts are one line).
 */
const APPEND_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return ${SESSION_GONE} end
if ARGV[2] ~= '' then
  if redis.call('SISMEMBER', KEYS[2], ARGV[2]) == 1 then return ${DUPLICATE} end
  if redis.call('HEXISTS', KEYS[1], 'sealed') == 1 then return ${SESSION_SEALED} end
  if tonumber(redis.call('GET', KEYS[3]) or '0') + tonumber(ARGV[5]) > tonumber(ARGV[6]) then return ${SESSION_FULL} end
  redis.call('SADD', KEYS[2], ARGV[2])
end
local count = tonumber(ARGV[5])
if count == 0 then return 1 end
local last = string.format('%d', redis.call('INCRBY', KEYS[3], count))
redis.call('XADD', KEYS[4], '0-' .. last, 'p', ARGV[3], 't', ARGV[4])
redis.call('PUBLISH', ARGV[1], last .. '\\n' .. ARGV[3] .. '\\n' .. ARGV[4])
return 1
`;

type RedisWithScripts = Redis & {
  firstcrackLiveAppend(info: string, seqs: string, next: string, log: string, ...args: (string | Buffer)[]): Promise<number>;
};

type StreamEntry<Text extends string | Buffer = string> = [id: Text, fields: Text[]];

function storedPostOf<Text extends string | Buffer>([entryId, fields]: StreamEntry<Text>): StoredPost<Text> {
  // Fields come as name, value, name, value…: only the names are compared (a post's value may be megabytes).
  const field = (name: string) => {
    for (let i = 0; i < fields.length; i += 2) if (fields[i].toString() === name) return fields[i + 1];
    return undefined as never;
  };
  return { lastId: Number(entryId.toString().slice(2)), post: field('p'), status: field('t') };
}

const entryOf = (entry: StreamEntry): LiveEntry => storedEntry(storedPostOf(entry));

/** A published payload, "<last id>\n<post>\n<status>" (see APPEND_SCRIPT; the post is on one line). */
function publishedPost(payload: Buffer): StoredPost<Buffer> {
  const afterId = payload.indexOf(0x0a);
  const afterPost = payload.indexOf(0x0a, afterId + 1);
  return { lastId: Number(payload.toString('latin1', 0, afterId)), post: payload.subarray(afterId + 1, afterPost), status: payload.subarray(afterPost + 1) };
}

/** A local watcher of a feed: the highest id it has been handed (from the log or the channel), and its intake. */
interface FeedListener {
  last: number;
  take(run: LiveRun): void;
}

function lowestPosition(listeners: Iterable<FeedListener>): number | null {
  let lowest: number | null = null;
  for (const { last } of listeners) lowest = lowest === null ? last : Math.min(lowest, last);
  return lowest;
}

/**
 * One batch channel in this process: a single Redis subscription shared by all local watchers of the batch.
 * Payloads are delivered in channel order; when one starts past the next expected id, the missing messages
 * are read from the log first, and later payloads wait behind that read so order holds.
 */
class Feed {
  readonly listeners = new Set<FeedListener>();
  readonly subscribed: Promise<unknown>;
  /** Highest id delivered through this feed (from its first payload on: see receive); null before. */
  private lastId: number | null = null;
  /** A read of missed messages in progress; payloads arriving meanwhile queue behind it. */
  private pending: Promise<void> | null = null;

  constructor(
    private readonly subscriber: Redis,
    private readonly channel: string,
    private readonly range: (from: number) => Promise<LiveRun | null>,
  ) {
    this.subscribed = subscriber.subscribe(channel);
    // A subscription that fails may not crash the process; the awaiting watcher sees the rejection.
    this.subscribed.catch(() => {});
  }

  receive(payload: Buffer): void {
    const run = frameStored([publishedPost(payload)], 0);
    if (run === null) return;
    // Before its first payload the feed has delivered nothing itself: what its listeners hold came from their
    // own log reads, so a gap is judged against the one that holds least.
    if (this.lastId === null) this.lastId = lowestPosition(this.listeners);
    if (!this.pending && !this.missesBefore(run.firstId)) return this.emit(run);
    this.after(async () => {
      if (this.missesBefore(run.firstId)) {
        // Redis unreachable: deliver what arrived; a watcher that reconnects resumes by id from the log.
        this.emit(await this.range(this.lastId! + 1).catch(() => null));
      }
      this.emit(run);
    });
  }

  /**
   * The subscriber reconnected (ioredis subscribes to the channel again): once the channel is followed again,
   * what was stored meanwhile is read from the log and delivered, before any payload that arrives after. The
   * SUBSCRIBE sent here is answered after ioredis's own, so when it is, the channel is followed: whatever was
   * stored before is in the log read after it, whatever after arrives as payloads (the id filter drops the
   * overlap). A failed read (Redis gone again) leaves the catch-up to the next reconnection or payload.
   */
  resume(): void {
    const resubscribed = this.subscriber.subscribe(this.channel);
    resubscribed.catch(() => {});
    this.after(async () => {
      await resubscribed;
      if (this.lastId === null) this.lastId = lowestPosition(this.listeners);
      if (this.lastId === null) return;
      this.emit(await this.range(this.lastId + 1));
    });
  }

  /** Runs `step` after the steps queued before it; payloads that arrive meanwhile wait behind it (receive). */
  private after(step: () => Promise<void>): void {
    const task = (this.pending ?? Promise.resolve()).then(step).catch(() => {});
    this.pending = task;
    void task.then(() => {
      if (this.pending === task) this.pending = null;
    });
  }

  private missesBefore(first: number): boolean {
    return this.lastId !== null && first > this.lastId + 1;
  }

  /** Hands the messages not delivered before to every listener, as one run they all share. */
  private emit(run: LiveRun | null): void {
    const fresh = run && (this.lastId === null ? run : runFrom(run, this.lastId + 1));
    if (!fresh) return;
    this.lastId = fresh.lastId;
    for (const listener of this.listeners) listener.take(fresh);
  }

  close(): void {
    this.subscriber.unsubscribe(this.channel).catch(() => {});
  }
}
