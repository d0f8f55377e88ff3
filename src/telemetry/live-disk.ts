import { EventEmitter } from 'node:events';
import { mkdir, open, readFile, rm, stat, truncate, writeFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import type { Curve, CurveSample, RoastEvent } from './curve.js';
import { SessionClosedError, type AppendResult, type LiveMessage, type LiveSessionInfo, type LiveSessionStore } from './live.js';

interface Post {
  seq: number;
  samples: CurveSample[];
  events: RoastEvent[];
}

/** A status message in the log: logged like a post, so its id is not handed out again after a restart. */
interface StatusLine {
  status: string;
}

interface Session {
  info: LiveSessionInfo;
  seqs: Set<number>;
  messages: LiveMessage[];
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
 * posts, each fsync'd before the post is acknowledged, so a restart loses no acknowledged sample. The
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
      messages: [],
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

  async append(orgId: string, batchId: string, seq: number, samples: CurveSample[], events: RoastEvent[]): Promise<AppendResult> {
    const session = await this.load(orgId, batchId);
    if (!session) throw new SessionClosedError(batchId, 'gone');
    const result = session.tail.then(async (): Promise<AppendResult> => {
      if (session.seqs.has(seq)) return { duplicate: true, accepted: 0 };
      if (session.sealed) throw new SessionClosedError(batchId, 'sealed');
      const post: Post = { seq, samples, events };
      await this.log(session, post);
      for (const message of record(session, post)) session.feed.emit('message', message);
      return { duplicate: false, accepted: samples.length };
    });
    session.tail = result.catch(() => {});
    return result;
  }

  /** Appends one line to the session's log and waits until it is on disk. Called behind the session's tail. */
  private async log(session: Session, entry: Post | StatusLine): Promise<void> {
    const { orgId, batchId } = session.info;
    if (session.discarded) throw new SessionClosedError(batchId, 'gone');
    session.file ??= await open(join(this.dirOf(orgId, batchId), 'posts.jsonl'), 'a');
    const line = Buffer.from(JSON.stringify(entry) + '\n');
    try {
      await session.file.write(line);
      await session.file.datasync();
    } catch (error) {
      await session.file.truncate(session.logBytes).catch(() => {});
      throw error;
    }
    session.logBytes += line.length;
  }

  async readCurve(orgId: string, batchId: string): Promise<Curve | null> {
    const session = await this.load(orgId, batchId);
    if (!session) return null;
    await session.tail;
    return curveOf(session.messages);
  }

  async publishStatus(orgId: string, batchId: string, state: string): Promise<void> {
    const session = await this.load(orgId, batchId);
    if (!session) return;
    // Behind the posts in flight, so ids stay in log order.
    const result = session.tail.then(async () => {
      await this.log(session, { status: state });
      session.feed.emit('message', recordStatus(session, state));
    });
    session.tail = result.catch(() => {});
    return result;
  }

  async subscribe(orgId: string, batchId: string, afterId: number, onMessage: (message: LiveMessage) => void): Promise<() => void> {
    const session = await this.load(orgId, batchId);
    if (!session) return () => {};
    for (const message of session.messages) if (message.id > afterId) onMessage(message);
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

/** Adds a post's samples then events to the session's messages; returns the new messages. */
function record(session: Session, post: Post): LiveMessage[] {
  session.seqs.add(post.seq);
  const added: LiveMessage[] = [
    ...post.samples.map((data) => ({ id: 0, event: 'sample' as const, data })),
    ...post.events.map((data) => ({ id: 0, event: 'roast_event' as const, data })),
  ];
  for (const message of added) {
    message.id = session.messages.length + 1;
    session.messages.push(message);
  }
  return added;
}

function recordStatus(session: Session, state: string): LiveMessage {
  const message: LiveMessage = { id: session.messages.length + 1, event: 'status', data: { state } };
  session.messages.push(message);
  return message;
}

/** The buffered curve from a session's messages: samples placed by time, events in time order. */
export function curveOf(messages: LiveMessage[]): Curve {
  const samples = messages.filter((m) => m.event === 'sample').map((m) => m.data as CurveSample);
  const events = messages.filter((m) => m.event === 'roast_event').map((m) => m.data as RoastEvent);
  return { samples: samples.sort((a, b) => a.t - b.t), events: events.sort((a, b) => a.t - b.t) };
}
