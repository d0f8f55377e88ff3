import type { LiveRun } from './frames.js';
import type { LiveCurve, LiveMessage, LivePoint } from './messages.js';

/**
 * A session's buffered curve (curveOf) together with its samples and its events as JSON, in the curve's
 * order: each list is a list of runs of points' JSON (`{…},{…}`), which joined by commas inside brackets
 * (jsonArray) parse to exactly `curve.samples`, `curve.events`. Runs, not one array, so the file they go
 * into is assembled with one copy.
 */
export interface CurveText<Sample extends LivePoint = LivePoint, Event extends LivePoint = LivePoint> {
  curve: LiveCurve<Sample, Event>;
  samples: Buffer[];
  events: Buffer[];
}

export interface AppendResult {
  /** The post's seq was stored before: nothing was stored now. */
  duplicate: boolean;
  /** Samples stored by this post. */
  accepted: number;
}

export interface LiveSessionInfo {
  orgId: string;
  batchId: string;
  /** Only this machine's bridge token may post to the session. */
  machineId: string;
}

/** An append to a session that is gone (discarded) or sealed (its batch is being completed or aborted). */
export class SessionClosedError extends Error {
  constructor(
    readonly batchId: string,
    readonly reason: 'gone' | 'sealed',
  ) {
    super(reason === 'gone' ? `No live session for batch ${batchId}` : `The live session of batch ${batchId} is sealed`);
  }
}

/**
 * At most this many messages (samples, events, statuses) per session: 2.7 hours at 10 samples a second,
 * far past any roast, so one bridge cannot grow a session's buffer (memory or Redis) without bound.
 */
export const MAX_SESSION_MESSAGES = 100_000;

/** A post that would take the session past MAX_SESSION_MESSAGES; nothing of it was stored. */
export class SessionFullError extends Error {
  constructor(readonly batchId: string) {
    super(`The live session of batch ${batchId} holds the most messages a session may (${MAX_SESSION_MESSAGES})`);
  }
}

/**
 * A batch's live roast session: the buffer the machine bridge posts into while the batch is in the
 * drum, and the feed watchers stream from. It is the only copy of the curve until completeRoastBatch
 * has written the curve to object storage and the database, so it must be durable: embedded it lives
 * on local disk (a restart loses no sample), in server mode in Redis (shared by every API process).
 */
export interface LiveSessionStore<Sample extends LivePoint = LivePoint, Event extends LivePoint = LivePoint> {
  /** Opens the session (idempotent for the same batch). */
  open(info: LiveSessionInfo): Promise<void>;
  /**
   * The session, or null when none is open (never opened, or discarded after completion). A store may answer
   * from what it looked up a moment ago; `fresh` asks the store itself (a stream opening while Redis is away
   * is then refused with 503, not answered 200 and left waiting).
   */
  get(orgId: string, batchId: string, fresh?: boolean): Promise<LiveSessionInfo | null>;
  /**
   * Stores one post atomically: all its samples and events, or nothing. A seq already stored is a
   * duplicate and stores nothing; a post that would take the session past MAX_SESSION_MESSAGES is refused
   * with SessionFullError. Each stored sample and event is published to watchers. `postJson`, when
   * given, is the post's JSON text as received (validated to hold exactly these seq, samples and events, on
   * one line): the store keeps it as is instead of serialising the post again.
   */
  append(orgId: string, batchId: string, seq: number, samples: Sample[], events: Event[], postJson?: string): Promise<AppendResult>;
  /**
   * append for a post known by its JSON text (valid, on one line) and sizes, and its objects only when the
   * caller parsed it in place (a large post is parsed and checked on a worker thread): a store that keeps
   * posts as text never holds the objects; one that keeps objects parses the text when they are absent.
   */
  appendText(orgId: string, batchId: string, post: PostText<Sample, Event>): Promise<AppendResult>;
  /** The whole buffered curve, samples sorted by t (out-of-order posts are placed by time). */
  readCurve(orgId: string, batchId: string): Promise<LiveCurve<Sample, Event> | null>;
  /**
   * readCurve, and the curve's samples and events as JSON arrays cut from the posts' text as stored
   * (curve-text.ts): what completion writes as the full curve, without serialising the objects again.
   */
  readCurveText(orgId: string, batchId: string): Promise<CurveText<Sample, Event> | null>;
  /** Publishes a status message (e.g. `{ state: 'completed' }`) to watchers. */
  publishStatus(orgId: string, batchId: string, state: string): Promise<void>;
  /**
   * Delivers the buffered messages with id > afterId, then every new one, in order, until the returned
   * function is called. Works across processes in server mode. Messages come in runs, framed for the wire
   * (frames.ts): a run published live (one stored post's, or a status) is framed once and the same run is
   * handed to every watcher of the batch in this process. What was buffered before the call comes as one run,
   * however many posts it holds: a watcher's backlog limit (src/modules/production/roast/telemetry/http.ts) applies between runs, and
   * the catch-up a watcher asked for must not count against itself.
   */
  subscribe(orgId: string, batchId: string, afterId: number, onRun: (run: LiveRun) => void): Promise<() => void>;
  /**
   * Stops the session taking posts, for good: an append after seal resolves is refused with
   * SessionClosedError('sealed') unless its seq was stored before (a duplicate stays a duplicate), while
   * readCurve, publishStatus and subscribe go on working. Completion seals before it reads the final
   * curve, so no post is acknowledged after the curve it belongs in was read.
   */
  seal(orgId: string, batchId: string): Promise<void>;
  /** Drops the buffer. Called only after the curve's writes are confirmed. */
  discard(orgId: string, batchId: string): Promise<void>;
  /** Discards every session of the organization (its purge: its batches are gone); answers how many. */
  discardOrganization(orgId: string): Promise<number>;
  close(): Promise<void>;
}

/** A valid post's JSON on one line (its bytes as received), with its seq and how many samples and events it holds. */
export interface PostText<Sample extends LivePoint = LivePoint, Event extends LivePoint = LivePoint> {
  seq: number;
  samples: number;
  events: number;
  json: string | Buffer;
  /** Its objects, when the caller has them. */
  parsed?: LiveCurve<Sample, Event>;
}

/** A post's JSON text on one line: the received text when there is one, otherwise the post serialised. */
export function postLine(seq: number, samples: LivePoint[], events: LivePoint[], postJson?: string): string {
  return postJson ?? JSON.stringify({ seq, samples, events });
}

/**
 * One stored post (its samples and events) or status. Its messages are numbered consecutively from
 * `firstId`: the samples, then the events, then the status. Stores keep entries, not a message per sample,
 * and make messages only for watchers.
 */
export interface LiveEntry {
  firstId: number;
  samples: LivePoint[];
  events: LivePoint[];
  status?: { state: string };
  /** A post's JSON text as stored (one line), when the store keeps it: its points are cut from it (curve-text.ts). */
  post?: string | Buffer;
}

export const entrySize = (entry: LiveEntry) => entry.samples.length + entry.events.length + (entry.status ? 1 : 0);

/** The entry's messages with ids above `afterId`. */
export function messagesOf(entry: LiveEntry, afterId = 0): LiveMessage[] {
  const messages: LiveMessage[] = [];
  let id = entry.firstId;
  const add = (event: LiveMessage['event'], data: LiveMessage['data']) => {
    if (id > afterId) messages.push({ id, event, data });
    id++;
  };
  for (const sample of entry.samples) add('sample', sample);
  for (const event of entry.events) add('roast_event', event);
  if (entry.status) add('status', entry.status);
  return messages;
}

/** The buffered curve from a session's entries: samples placed by time, events in time order. */
export function curveOf(entries: LiveEntry[]): LiveCurve {
  const samples = entries.flatMap((entry) => entry.samples);
  const events = entries.flatMap((entry) => entry.events);
  return { samples: samples.sort((a, b) => a.t - b.t), events: events.sort((a, b) => a.t - b.t) };
}
