import { EventEmitter } from 'node:events';
import { mkdir, open, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Curve, CurveSample, RoastEvent } from './curve.js';
import type { AppendResult, LiveMessage, LiveSessionInfo, LiveSessionStore } from './live.js';

interface Post {
  seq: number;
  samples: CurveSample[];
  events: RoastEvent[];
}

interface Session {
  info: LiveSessionInfo;
  seqs: Set<number>;
  messages: LiveMessage[];
  feed: EventEmitter;
  /** Appends to one session are serialized, so message ids follow the order in the log. */
  tail: Promise<unknown>;
}

/**
 * Embedded live sessions: one directory per batch holding the session's info and an append-only log of
 * posts, each fsync'd before the post is acknowledged, so a restart loses no acknowledged sample. The
 * log is replayed into memory on first use after a start. A torn last line (a crash mid-write) was never
 * acknowledged and is ignored.
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
    const session: Session = { info, seqs: new Set(), messages: [], feed: new EventEmitter().setMaxListeners(0), tail: Promise.resolve() };
    const log = await readFile(join(dir, 'posts.jsonl'), 'utf8').catch(() => '');
    for (const line of log.split('\n')) {
      if (!line) continue;
      let post: Post;
      try {
        post = JSON.parse(line);
      } catch {
        break; // torn last line: never acknowledged
      }
      record(session, post);
    }
    return session;
  }

  async open(info: LiveSessionInfo): Promise<void> {
    const dir = this.dirOf(info.orgId, info.batchId);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'session.json'), JSON.stringify(info));
    this.sessions.delete(`${info.orgId}/${info.batchId}`);
  }

  async get(orgId: string, batchId: string): Promise<LiveSessionInfo | null> {
    return (await this.load(orgId, batchId))?.info ?? null;
  }

  async append(orgId: string, batchId: string, seq: number, samples: CurveSample[], events: RoastEvent[]): Promise<AppendResult> {
    const session = await this.load(orgId, batchId);
    if (!session) throw new Error(`No live session for batch ${batchId}`);
    const result = session.tail.then(async (): Promise<AppendResult> => {
      if (session.seqs.has(seq)) return { duplicate: true, accepted: 0 };
      const post: Post = { seq, samples, events };
      const file = await open(join(this.dirOf(orgId, batchId), 'posts.jsonl'), 'a');
      try {
        await file.write(JSON.stringify(post) + '\n');
        await file.datasync();
      } finally {
        await file.close();
      }
      for (const message of record(session, post)) session.feed.emit('message', message);
      return { duplicate: false, accepted: samples.length };
    });
    session.tail = result.catch(() => {});
    return result;
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
    const message: LiveMessage = { id: session.messages.length + 1, event: 'status', data: { state } };
    session.messages.push(message);
    session.feed.emit('message', message);
  }

  async subscribe(orgId: string, batchId: string, afterId: number, onMessage: (message: LiveMessage) => void): Promise<() => void> {
    const session = await this.load(orgId, batchId);
    if (!session) return () => {};
    for (const message of session.messages) if (message.id > afterId) onMessage(message);
    const listener = (message: LiveMessage) => onMessage(message);
    session.feed.on('message', listener);
    return () => session.feed.off('message', listener);
  }

  async discard(orgId: string, batchId: string): Promise<void> {
    const session = await this.load(orgId, batchId);
    if (session) await session.tail;
    await rm(this.dirOf(orgId, batchId), { recursive: true, force: true });
    this.sessions.delete(`${orgId}/${batchId}`);
  }

  async close(): Promise<void> {
    await Promise.all([...this.sessions.values()].map(async (s) => (await s)?.tail));
  }
}

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

/** The buffered curve from a session's messages: samples placed by time, events in time order. */
export function curveOf(messages: LiveMessage[]): Curve {
  const samples = messages.filter((m) => m.event === 'sample').map((m) => m.data as CurveSample);
  const events = messages.filter((m) => m.event === 'roast_event').map((m) => m.data as RoastEvent);
  return { samples: samples.sort((a, b) => a.t - b.t), events: events.sort((a, b) => a.t - b.t) };
}
