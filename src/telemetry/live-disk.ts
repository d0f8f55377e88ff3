import { EventEmitter } from 'node:events';
import { constants } from 'node:fs';
import { mkdir, open, readFile, rm, stat, truncate, writeFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { Curve, CurveSample, RoastEvent } from './curve.js';
import {
  SessionClosedError,
  curveOf,
  entrySize,
  messagesOf,
  postLine,
  type AppendResult,
  type LiveEntry,
  type LiveMessage,
  type LiveSessionInfo,
  type LiveSessionStore,
} from './live.js';

/** A post as logged: `events` is absent when the bridge sent none (the log holds the post's own text). */
interface Post {
  seq: number;
  samples: CurveSample[];
  events?: RoastEvent[];
}

/** A status message in the log: logged like a post, so its id is not handed out again after a restart. */
interface StatusLine {
  status: string;
}

interface Session {
  info: LiveSessionInfo;
  seqs: Set<number>;
  entries: LiveEntry[];
  /** The last message id handed out. */
  lastId: number;
  feed: EventEmitter;
  /** Appends to one session are serialized, so message ids follow the order in the log. */
  tail: Promise<unknown>;
  /** The log, open for appending from the first append until the session is discarded or the store closed. */
  file: FileHandle | null;
  /** Bytes of whole lines in the log: a failed write is cut back to this, so a later line never joins its debris. */
  logBytes: number;
  /** Set by discard: an append queued behind the discard must not write to a log that no longer exists. */
  discarded: boolean;
  /** Set by seal, and kept on disk as a marker file so a restart does not reopen the session to posts. */
  sealed: boolean;
}

/**
 * Embedded live sessions: one directory per batch holding the session's info and an append-only log of
 * posts, each on disk before the post is acknowledged (the log is opened O_DSYNC: every write returns only
 * once its data is durable, one system call per post), so a restart loses no acknowledged sample. The
 * log is replayed into memory on first use after a start. A torn last line (a crash mid-write) was never
 * acknowledged: replay cuts it off, so the next line starts clean.
 */
export class DiskLiveSessionStore implements LiveSessionStore {
  private readonly sessions = new Map<string, Promise<Session | null>>();

  constructor(private readonly root: string) {}

  private dirOf(orgId: string, batchId: string) {
    return join(this.root, orgId, batchId);
  }

  private load(orgId: string, batchId: string): Promise<Session | null> {
    const key = `${orgId}/${batchId}`;
    let session = this.sessions.get(key);
    if (!session) {
      session = this.replay(orgId, batchId);
      this.sessions.set(key, session);
    }
    return session;
  }

  private async replay(orgId: string, batchId: string): Promise<Session | null> {
    const dir = this.dirOf(orgId, batchId);
    let info: LiveSessionInfo;
    try {
      info = JSON.parse(await readFile(join(dir, 'session.json'), 'utf8'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    const session: Session = {
      info,
      seqs: new Set(),
      entries: [],
      lastId: 0,
      feed: new EventEmitter().setMaxListeners(0),
      tail: Promise.resolve(),
      file: null,
      logBytes: 0,
      discarded: false,
      sealed: await stat(join(dir, SEALED_MARKER)).then(() => true, () => false),
    };
    const logPath = join(dir, 'posts.jsonl');
    const log = await readFile(logPath).catch(() => Buffer.alloc(0));
    // Only whole lines were acknowledged. What follows the last whole line (a torn write) is cut off, so
    // the next append starts on a line of its own instead of joining the debris.
    while (session.logBytes < log.length) {
      const end = log.indexOf(0x0a, session.logBytes);
      if (end < 0) break;
      let entry: Post | StatusLine;
      try {
        entry = JSON.parse(log.toString('utf8', session.logBytes, end));
      } catch {
        break;
      }
      if ('status' in entry) recordStatus(session, entry.status);
      else record(session, entry);
      session.logBytes = end + 1;
    }
    if (session.logBytes < log.length) await truncate(logPath, session.logBytes);
    return session;
  }

  async open(info: LiveSessionInfo): Promise<void> {
    const dir = this.dirOf(info.orgId, info.batchId);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'session.json'), JSON.stringify(info));
    // A lookup before the open remembered "no session"; a session already loaded stays (open is idempotent).
    const key = `${info.orgId}/${info.batchId}`;
    const loaded = this.sessions.get(key);
    if (loaded && (await loaded) === null) this.sessions.delete(key);
  }

  async get(orgId: string, batchId: string): Promise<LiveSessionInfo | null> {
    return (await this.load(orgId, batchId))?.info ?? null;
  }

  async append(orgId: string, batchId: string, seq: number, samples: CurveSample[], events: RoastEvent[], postJson?: string): Promise<AppendResult> {
    const session = await this.load(orgId, batchId);
    if (!session) throw new SessionClosedError(batchId, 'gone');
    const result = session.tail.then(async (): Promise<AppendResult> => {
      if (session.seqs.has(seq)) return { duplicate: true, accepted: 0 };
      if (session.sealed) throw new SessionClosedError(batchId, 'sealed');
      await this.log(session, postLine(seq, samples, events, postJson));
      this.publish(session, record(session, { seq, samples, events }));
      return { duplicate: false, accepted: samples.length };
    });
    session.tail = result.catch(() => {});
    return result;
  }

  /** Appends one line to the session's log and waits until it is on disk. Called behind the session's tail. */
  private async log(session: Session, entryJson: string): Promise<void> {
    const { orgId, batchId } = session.info;
    if (session.discarded) throw new SessionClosedError(batchId, 'gone');
    session.file ??= await open(join(this.dirOf(orgId, batchId), 'posts.jsonl'), LOG_FLAGS);
    const line = Buffer.from(entryJson + '\n');
    try {
      await session.file.write(line);
    } catch (error) {
      await session.file.truncate(session.logBytes).catch(() => {});
      throw error;
    }
    session.logBytes += line.length;
  }

  /** Hands a new entry's messages to the session's watchers; with none, no message is made. */
  private publish(session: Session, entry: LiveEntry): void {
    if (session.feed.listenerCount('message') === 0) return;
    for (const message of messagesOf(entry)) session.feed.emit('message', message);
  }

  async readCurve(orgId: string, batchId: string): Promise<Curve | null> {
    const session = await this.load(orgId, batchId);
    if (!session) return null;
    await session.tail;
    return curveOf(session.entries);
  }

  async publishStatus(orgId: string, batchId: string, state: string): Promise<void> {
    const session = await this.load(orgId, batchId);
    if (!session) return;
    // Behind the posts in flight, so ids stay in log order.
    const result = session.tail.then(async () => {
      await this.log(session, JSON.stringify({ status: state } satisfies StatusLine));
      this.publish(session, recordStatus(session, state));
    });
    session.tail = result.catch(() => {});
    return result;
  }

  async subscribe(orgId: string, batchId: string, afterId: number, onMessage: (message: LiveMessage) => void): Promise<() => void> {
    const session = await this.load(orgId, batchId);
    if (!session) return () => {};
    for (const entry of session.entries) {
      if (entry.firstId + entrySize(entry) - 1 > afterId) for (const message of messagesOf(entry, afterId)) onMessage(message);
    }
    const listener = (message: LiveMessage) => onMessage(message);
    session.feed.on('message', listener);
    return () => session.feed.off('message', listener);
  }

  async seal(orgId: string, batchId: string): Promise<void> {
    const session = await this.load(orgId, batchId);
    if (!session) return;
    // Behind the posts in flight: those acknowledged before the seal are in the curve read after it.
    const result = session.tail.then(async () => {
      if (session.sealed) return;
      await writeFile(join(this.dirOf(orgId, batchId), SEALED_MARKER), '');
      session.sealed = true;
    });
    session.tail = result.catch(() => {});
    return result;
  }

  async discard(orgId: string, batchId: string): Promise<void> {
    const session = await this.load(orgId, batchId);
    if (session) {
      await session.tail;
      session.discarded = true;
      await session.file?.close();
      session.file = null;
    }
    await rm(this.dirOf(orgId, batchId), { recursive: true, force: true });
    this.sessions.delete(`${orgId}/${batchId}`);
  }

  async close(): Promise<void> {
    await Promise.all(
      [...this.sessions.values()].map(async (loading) => {
        const session = await loading;
        if (!session) return;
        await session.tail;
        await session.file?.close();
        session.file = null;
      }),
    );
  }
}

const SEALED_MARKER = 'sealed';

/** Appending, and durable on return from each write (O_DSYNC: data and what is needed to read it back). */
const LOG_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_DSYNC;

/** Adds a post to the session's entries. */
function record(session: Session, post: Post): LiveEntry {
  session.seqs.add(post.seq);
  return push(session, { firstId: session.lastId + 1, samples: post.samples, events: post.events ?? [] });
}

function recordStatus(session: Session, state: string): LiveEntry {
  return push(session, { firstId: session.lastId + 1, samples: [], events: [], status: { state } });
}

function push(session: Session, entry: LiveEntry): LiveEntry {
  session.entries.push(entry);
  session.lastId += entrySize(entry);
  return entry;
}
