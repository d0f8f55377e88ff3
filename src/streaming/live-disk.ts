import { EventEmitter } from 'node:events';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { curveTextOf } from './curve-text.js';
import { frameRun, type LiveRun } from './frames.js';
import { Journal, SEGMENT_BYTES } from './journal.js';
import {
  MAX_SESSION_MESSAGES,
  SessionClosedError,
  SessionFullError,
  curveOf,
  entrySize,
  messagesOf,
  postLine,
  type AppendResult,
  type CurveText,
  type LiveEntry,
  type LiveSessionInfo,
  type LiveSessionStore,
  type PostText,
} from './live.js';
import type { LiveCurve, LivePoint } from './messages.js';

/** A post as logged: `events` is absent when the bridge sent none (the log holds the post's own text). */
interface Post {
  seq: number;
  samples: LivePoint[];
  events?: LivePoint[];
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
  /** Appends to one session are serialized, so message ids follow the order in the journal. */
  tail: Promise<unknown>;
  /** Set by discard: an append queued behind the discard must not write to the journal for a session that is gone. */
  discarded: boolean;
  /** Set by seal, and kept on disk as a marker file so a restart does not reopen the session to posts. */
  sealed: boolean;
}

/**
 * Embedded live sessions: one directory per batch holding the session's info (and a marker once sealed),
 * and one journal (journal.ts) holding every session's posts and statuses, each durable before the post
 * is acknowledged, so a restart loses no acknowledged sample. Concurrent posts of many machines share a
 * durable write. The journal is read once after a start; each session takes its lines on first use.
 */
export class DiskLiveSessionStore<Sample extends LivePoint = LivePoint, Event extends LivePoint = LivePoint> implements LiveSessionStore<Sample, Event> {
  private readonly sessions = new Map<string, Promise<Session | null>>();
  private readonly journal: Journal;
  /** The journal's lines per session key, read at first use; a session's lines leave when it is loaded. */
  private replayed: Promise<Map<string, string[]>> | null = null;

  constructor(
    private readonly root: string,
    options: { segmentBytes?: number } = {},
  ) {
    this.journal = new Journal(join(root, 'journal'), options.segmentBytes ?? SEGMENT_BYTES);
  }

  private replayJournal(): Promise<Map<string, string[]>> {
    this.replayed ??= (async () => {
      const lines = new Map<string, string[]>();
      await this.journal.replay((key, text) => {
        const list = lines.get(key);
        if (list) list.push(text);
        else lines.set(key, [text]);
      });
      // Lines of sessions discarded before the restart (their directory is gone) are not needed.
      for (const key of lines.keys()) {
        const exists = await stat(join(this.root, key, 'session.json')).then(() => true, () => false);
        if (exists) continue;
        lines.delete(key);
        await this.journal.release(key);
      }
      return lines;
    })();
    return this.replayed;
  }

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
    const journalLines = await this.replayJournal();
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
      discarded: false,
      sealed: await stat(join(dir, SEALED_MARKER)).then(() => true, () => false),
    };
    const key = `${orgId}/${batchId}`;
    for (const line of journalLines.get(key) ?? []) {
      const entry = JSON.parse(line) as Post | StatusLine;
      if ('status' in entry) recordStatus(session, entry.status);
      else record(session, entry, line);
    }
    journalLines.delete(key);
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

  async append(orgId: string, batchId: string, seq: number, samples: Sample[], events: Event[], postJson?: string): Promise<AppendResult> {
    const session = await this.load(orgId, batchId);
    if (!session) throw new SessionClosedError(batchId, 'gone');
    const result = session.tail.then(async (): Promise<AppendResult> => {
      if (session.seqs.has(seq)) return { duplicate: true, accepted: 0 };
      if (session.sealed) throw new SessionClosedError(batchId, 'sealed');
      if (session.lastId + samples.length + events.length > MAX_SESSION_MESSAGES) throw new SessionFullError(batchId);
      const line = postLine(seq, samples, events, postJson);
      await this.log(session, line);
      this.publish(session, record(session, { seq, samples, events }, line));
      return { duplicate: false, accepted: samples.length };
    });
    session.tail = result.catch(() => {});
    return result;
  }

  appendText(orgId: string, batchId: string, post: PostText<Sample, Event>): Promise<AppendResult> {
    // This store keeps a session's posts as objects (its watchers and curve read them): without them, it
    // parses the text.
    const json = post.json.toString();
    const { samples, events = [] } = post.parsed ?? (JSON.parse(json) as { samples: Sample[]; events?: Event[] });
    return this.append(orgId, batchId, post.seq, samples, events, json);
  }

  /** Appends one line for the session to the journal and waits until it is durable. Called behind the session's tail. */
  private async log(session: Session, entryJson: string): Promise<void> {
    const { orgId, batchId } = session.info;
    if (session.discarded) throw new SessionClosedError(batchId, 'gone');
    await this.journal.write(`${orgId}/${batchId}`, entryJson);
  }

  /** Hands a new entry's messages, framed once as one run shared by all, to the session's watchers; with none, nothing is framed. */
  private publish(session: Session, entry: LiveEntry): void {
    if (session.feed.listenerCount('run') === 0) return;
    const messages = messagesOf(entry);
    if (messages.length > 0) session.feed.emit('run', frameRun(messages));
  }

  async readCurve(orgId: string, batchId: string): Promise<LiveCurve<Sample, Event> | null> {
    const session = await this.load(orgId, batchId);
    if (!session) return null;
    await session.tail;
    // The entries hold what append was given: points of this store's types.
    return curveOf(session.entries) as LiveCurve<Sample, Event>;
  }

  async readCurveText(orgId: string, batchId: string): Promise<CurveText<Sample, Event> | null> {
    const session = await this.load(orgId, batchId);
    if (!session) return null;
    await session.tail;
    return curveTextOf(session.entries) as CurveText<Sample, Event>;
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

  async subscribe(orgId: string, batchId: string, afterId: number, onRun: (run: LiveRun) => void): Promise<() => void> {
    const session = await this.load(orgId, batchId);
    if (!session) return () => {};
    const buffered = session.entries.filter((entry) => entry.firstId + entrySize(entry) - 1 > afterId).flatMap((entry) => messagesOf(entry, afterId));
    if (buffered.length > 0) onRun(frameRun(buffered));
    const listener = (run: LiveRun) => onRun(run);
    session.feed.on('run', listener);
    return () => session.feed.off('run', listener);
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
    }
    await rm(this.dirOf(orgId, batchId), { recursive: true, force: true });
    await this.journal.release(`${orgId}/${batchId}`);
    this.sessions.delete(`${orgId}/${batchId}`);
  }

  async discardOrganization(orgId: string): Promise<number> {
    const batches = await readdir(join(this.root, orgId)).catch(() => [] as string[]);
    for (const batchId of batches) await this.discard(orgId, batchId);
    await rm(join(this.root, orgId), { recursive: true, force: true });
    return batches.length;
  }

  async close(): Promise<void> {
    await Promise.all([...this.sessions.values()].map(async (loading) => (await loading)?.tail));
    await this.journal.close();
  }
}

const SEALED_MARKER = 'sealed';


/** Adds a post to the session's entries, with its line as logged (the full curve is cut from it). */
function record(session: Session, post: Post, line: string): LiveEntry {
  session.seqs.add(post.seq);
  return push(session, { firstId: session.lastId + 1, samples: post.samples, events: post.events ?? [], post: line });
}

function recordStatus(session: Session, state: string): LiveEntry {
  return push(session, { firstId: session.lastId + 1, samples: [], events: [], status: { state } });
}

function push(session: Session, entry: LiveEntry): LiveEntry {
  session.entries.push(entry);
  session.lastId += entrySize(entry);
  return entry;
}
