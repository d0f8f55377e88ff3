import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { endedSources, type CredentialResolver, type CredentialSource, type Principal } from '../../../../auth/credentials.js';
import type { Database } from '../../../../db/client.js';
import { limit } from '../../../../http/guards.js';
import type { RateLimiter } from '../../../../ratelimit/limiter.js';
import { offThread } from '../../../../lib/off-thread.js';
import { ProblemError, conflict, invalidInput, malformedJson, notFound, type FieldError } from '../../../../rpc/errors.js';
import { fieldErrors, id, strict } from '../../../../rpc/schemas.js';
import type { Frames, LiveRun } from '../../../../streaming/frames.js';
import { MAX_SESSION_MESSAGES, SessionClosedError, SessionFullError, type LiveSessionInfo, type LiveSessionStore, type PostText } from '../../../../streaming/live.js';
import type { PostCheck } from './post-check-task.js';
import { checkTelemetryPost } from './schemas.js';
import * as repo from '../repository.js';
import { issueStreamTicket } from '../../../../streaming/tickets.js';

/**
 * The telemetry channel (DESIGN.md, "The telemetry channel"): machine bridges post samples to
 * /ingest/v1/, watchers follow them on /stream/v1/. Both sit beside the RPC pipeline, not inside it: the
 * live session is the source of truth for a batch being roasted, so the hot path is credential (cached),
 * rate limit, one session lookup and the append, with no database transaction.
 */

/**
 * A post draws a point per started INGEST_POINT_BYTES of its body: a bridge's usual post (a few samples) one,
 * a 2,000-sample post about ten. What a post costs the service (its check, its store, its fan-out to every
 * watcher) grows with its size, so a budget of posts alone let one bridge send 2,000-sample posts 30 times a
 * second, 6,000 times what a 10 Hz roaster records; at a point per 8 KiB it can still catch up on an hour of
 * 10 Hz backlog in under a minute. The points a post's Content-Length announces are drawn before its body is
 * read; a body without one is charged the rest once read.
 */
export const INGEST_POINT_BYTES = 8 * 1024;
export const ingestPostPoints = (bytes: number) => Math.max(1, Math.ceil(bytes / INGEST_POINT_BYTES));
export const announcedPoints = (request: FastifyRequest) => ingestPostPoints(Number(request.headers['content-length']) || 0);

/** Comments on an idle stream keep proxies and load balancers from closing it. */
export const HEARTBEAT_MS = 15_000;

/**
 * A watcher this far behind (bytes sent to it that its socket has not taken) is cut off with a final
 * `closed` event; it reconnects with Last-Event-ID and loses nothing. This bounds what a watcher that stops
 * reading can cost.
 */
const MAX_WATCHER_BACKLOG_BYTES = 256 * 1024;

/** A closed watcher that still does not read its last bytes is dropped after this long. */
const CLOSE_GRACE_MS = 5_000;

/** Open streams per API process: per credential, and per organization (429 `too_many_streams` past either). */
export const MAX_STREAMS_PER_CREDENTIAL = 20;
export const MAX_STREAMS_PER_ORGANIZATION = 100;

/** How often a process checks that the credentials of its open streams are still valid (revocation, expiry). */
export const STREAM_CREDENTIAL_CHECK_MS = 2_000;

/** At most this many field errors are listed for one refused post (a post can hold 2,000 bad samples). */
const MAX_LISTED_ERRORS = 50;

export interface TelemetryChannelDeps {
  /** The service database (row-level security per organization). */
  db: Database;
  /** Asked, while a stream lasts, whether the credential it was opened with still holds. */
  resolvers: readonly CredentialResolver[];
  liveSessions: LiveSessionStore;
  heartbeatMs?: number;
  /** Open streams per credential and per organization in this process; MAX_STREAMS_PER_CREDENTIAL and MAX_STREAMS_PER_ORGANIZATION by default. */
  streamCaps?: { perCredential: number; perOrganization: number };
}

type BatchRequest = FastifyRequest<{ Params: { batchId: string }; Querystring: Record<string, unknown> }>;

declare module '../../../../http/surface.js' {
  interface SurfaceDeps {
    /** The telemetry channel's open streams and the work behind its surfaces (./surfaces.ts), one per app. */
    telemetry: TelemetryChannel;
  }
}

export type TelemetryChannel = ReturnType<typeof telemetryChannel>;

const batchIdSchema = id('batchId');

const resumeIdPattern = /^\d{1,15}$/;

/**
 * The work behind the telemetry surfaces, once they are admitted (their guards are declared in
 * ./surfaces.ts): the post's store, the ticket's issue, the stream and its watchers.
 */
export function telemetryChannel(deps: TelemetryChannelDeps) {
  const heartbeatMs = deps.heartbeatMs ?? HEARTBEAT_MS;
  const { perCredential, perOrganization } = deps.streamCaps ?? { perCredential: MAX_STREAMS_PER_CREDENTIAL, perOrganization: MAX_STREAMS_PER_ORGANIZATION };
  const watchers = new Set<Watcher>();

  /** Refuses a stream past the caps, counting the watchers this process holds. */
  function checkStreamCaps(principal: Principal): void {
    let ofCredential = 0;
    let ofOrganization = 0;
    for (const w of watchers) {
      if (w.orgId !== principal.orgId) continue;
      ofOrganization++;
      if (w.credentialId === principal.credentialId) ofCredential++;
    }
    const cap = ofCredential >= perCredential ? `${perCredential} per credential` : ofOrganization >= perOrganization ? `${perOrganization} per organization` : null;
    if (cap) throw new ProblemError(429, 'too_many_streams', `Too many open streams: at most ${cap}. Close one first.`, {}, { 'Retry-After': '5' });
  }

  /**
   * Ends the streams whose credential no longer holds since they opened: an API key revoked or expired, an
   * OAuth opaque token expired or its client revoked, a JWT expired, a user session logged out or expired or
   * its membership in the organization gone or changed. Asked of the resolvers, at most one query per kind
   * of credential per organization with open streams, every STREAM_CREDENTIAL_CHECK_MS.
   */
  async function closeRevokedStreams(): Promise<void> {
    const byOrg = new Map<string, CredentialSource[]>();
    for (const w of watchers) {
      const sources = byOrg.get(w.orgId);
      if (sources) sources.push(w.source);
      else byOrg.set(w.orgId, [w.source]);
    }
    for (const [orgId, sources] of byOrg) {
      const ended = await endedSources(deps.resolvers, orgId, sources);
      for (const w of watchers) {
        if (w.orgId === orgId && ended.has(w.source)) w.close('credential_revoked', 'The credential this stream was opened with was revoked, logged out or has expired, or no longer acts in this organization as it did.');
      }
    }
  }
  let credentialCheck: NodeJS.Timeout | undefined;
  /** Runs the check while any stream is open; a failed check is logged (revocation then waits for the next one). */
  const checkCredentialsWhileWatched = (log: FastifyBaseLogger) => {
    if (credentialCheck || watchers.size === 0) return;
    credentialCheck = setInterval(() => {
      if (watchers.size === 0) {
        clearInterval(credentialCheck);
        credentialCheck = undefined;
        return;
      }
      closeRevokedStreams().catch((error) => log.error({ err: error }, 'checking open streams’ credentials failed'));
    }, STREAM_CREDENTIAL_CHECK_MS);
    credentialCheck.unref();
  };

  /** The batch's open session in this organization; otherwise 404, or 409 when the batch exists but is not live. */
  async function liveSession(orgId: string, batchId: string): Promise<LiveSessionInfo> {
    if (!batchIdSchema.safeParse(batchId).success) throw notFound('roast batch', batchId, 'batchId');
    const session = await deps.liveSessions.get(orgId, batchId);
    if (session) return session;
    throw await notLive(orgId, batchId);
  }

  async function notLive(orgId: string, batchId: string): Promise<ProblemError> {
    const state = await storedBatchState(deps.db, orgId, batchId);
    if (state === null) return notFound('roast batch', batchId, 'batchId');
    // A batch still 'live' here is in the moment between startRoastBatch's commit and its session opening.
    const detail =
      state === 'live'
        ? `Roast batch ${batchId} is starting and its live session is not open yet; retry shortly.`
        : `Roast batch ${batchId} is ${state}; telemetry is taken only while it roasts.`;
    return conflict('batch_not_live', detail, { state });
  }

  return {
    async postSamples(request: BatchRequest, reply: FastifyReply, ingestLimiter: RateLimiter) {
      const principal = request.principal!;
      const cost = ingestPostPoints(request.rawBody?.length ?? 0);
      const drawn = announcedPoints(request);
      if (cost > drawn) await limit(ingestLimiter, principal.credentialId, cost - drawn, 'credential', reply, cost);
      const { batchId } = request.params;
      const session = await liveSession(principal.orgId, batchId);
      if (session.machineId !== principal.machineId) {
        throw new ProblemError(403, 'wrong_machine', `Roast batch ${batchId} is roasting on another machine than this bridge token’s.`);
      }
      const post = await receivedPost(request);
      const { seq } = post;
      let result;
      try {
        // The received text is exactly the valid post: the store keeps it rather than serialising it again.
        result = await deps.liveSessions.appendText(principal.orgId, batchId, post);
      } catch (error) {
        if (error instanceof SessionFullError) {
          throw conflict('live_session_full', `Roast batch ${batchId} has received the most telemetry a live session holds (${MAX_SESSION_MESSAGES} samples and events); nothing of this post was stored.`, {
            limit: MAX_SESSION_MESSAGES,
          });
        }
        if (!(error instanceof SessionClosedError)) throw error;
        // The batch is being completed or aborted (sealed), or was, between the lookup and the append.
        if (error.reason === 'gone') throw await notLive(principal.orgId, batchId);
        throw conflict('batch_not_live', `Roast batch ${batchId} is being completed or aborted; telemetry is taken only while it roasts.`, {
          state: 'completing',
        });
      }
      if (result.duplicate) return reply.code(200).send({ accepted: 0, seq, duplicate: true });
      return reply.code(202).send({ accepted: result.accepted, seq });
    },

    async createTicket(request: BatchRequest, reply: FastifyReply) {
      const principal = request.principal!;
      const input = NoInput.safeParse(request.body ?? {});
      if (!input.success) throw invalidInput(fieldErrors(input.error));
      const { batchId } = request.params;
      await liveSession(principal.orgId, batchId);
      return reply.code(201).send(await issueStreamTicket(deps.db, principal, batchId));
    },

    async stream(request: BatchRequest, reply: FastifyReply) {
      const { batchId } = request.params;
      const afterId = resumePoint(request);
      const principal = request.principal!;
      await liveSession(principal.orgId, batchId);
      checkStreamCaps(principal);

      reply.hijack();
      const raw = reply.raw;
      // The body runs until the connection closes (HTTP/1.1 allows it, and an event stream has no other end),
      // so each write is the frame itself, without chunk framing: the fan-out makes one write per watcher per
      // post, and framing them cost about a fifth of that.
      raw.useChunkedEncodingByDefault = false;
      raw.writeHead(200, {
        ...(reply.getHeaders() as Record<string, string>),
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-cache, no-transform',
        Connection: 'close',
        'X-Accel-Buffering': 'no',
        'X-Request-Id': request.id,
      });
      raw.flushHeaders();

      // Gone already (the watcher hung up while the stream was being opened): nothing to watch for.
      if (raw.socket === null || raw.socket.destroyed) return;
      const watcher = new Watcher(raw.socket, principal);
      watchers.add(watcher);
      checkCredentialsWhileWatched(request.log);
      let unsubscribe = () => {};
      let heartbeat: NodeJS.Timeout | undefined;
      const stop = () => {
        watchers.delete(watcher);
        clearInterval(heartbeat);
        unsubscribe();
      };
      raw.on('close', stop);
      try {
        unsubscribe = await deps.liveSessions.subscribe(principal.orgId, batchId, afterId, (run) => fanOut.send(watcher, run));
      } catch (error) {
        request.log.error({ err: error }, 'stream subscription failed');
        raw.destroy();
        return;
      }
      if (watcher.ended) return stop();
      heartbeat = setInterval(async () => {
        watcher.comment('heartbeat');
        // A session discarded without a final status (or whose status this process missed) ends the stream.
        const open = await deps.liveSessions.get(principal.orgId, batchId).catch(() => true);
        if (!open) watcher.end();
      }, heartbeatMs);
      heartbeat.unref();
    },

    /** Ends every open stream: they would hold the server open forever; ending them lets watchers reconnect to another process. */
    close() {
      clearInterval(credentialCheck);
      for (const watcher of watchers) watcher.end();
    },
  };
}

const NoInput = strict({});

/**
 * A post of more bytes than this (about 1,000 samples) is parsed and checked on a worker thread. On the
 * event loop a 2,000-sample post took about half a millisecond to parse, and its objects, alive while the post
 * was stored, were promoted and made the full collections that paused every other request. A bridge's usual
 * post (a second or two of samples) is checked in place, where a thread hand-off would cost more than it saves.
 */
export const OFF_THREAD_POST_BYTES = 64 * 1024;
/** The check of a large post, on a worker thread; a server keeps it loaded in a started thread (`serve`). */
export const checkPostOffThread = offThread<Uint8Array, PostCheck>(import.meta.url, './post-check-task');

/**
 * The request's post, valid (400 naming each bad field otherwise): its JSON on one line (the bytes received), and its objects when
 * it was parsed in place. From here the post is the store's alone: the request lets go of its body and text,
 * so what the store does not keep dies young.
 */
async function receivedPost(request: BatchRequest): Promise<PostText> {
  const body = request.body;
  const json = oneLine(request.rawBody!);
  request.body = undefined;
  request.rawBody = undefined;
  const refuse = (errors: FieldError[]) => invalidInput(errors.slice(0, MAX_LISTED_ERRORS), 'The post is not valid; nothing of it was stored.');
  if (body !== undefined) {
    const checked = checkTelemetryPost(body);
    if (!checked.ok) throw refuse(checked.errors);
    const { seq, samples, events = [] } = checked.post;
    return { seq, samples: samples.length, events: events.length, json, parsed: { samples, events } };
  }
  const checked = await checkPostOffThread(json);
  if (checked.ok) return { seq: checked.seq, samples: checked.samples, events: checked.events, json };
  throw 'malformed' in checked ? malformedJson(checked.malformed) : refuse(checked.errors);
}

/**
 * JSON on one line: outside strings a line break (CR, LF or both) is only whitespace, and inside them JSON
 * allows none raw. The stores keep a post as a line, and a watcher's `data:` lines are cut from it.
 */
const oneLine = (json: Buffer) => (json.includes(LF) || json.includes(CR) ? Buffer.from(json.toString('utf8').replace(/\r\n?|\n/g, ' ')) : json);
const LF = 0x0a;
const CR = 0x0d;

/** The id of the last message the watcher has: the Last-Event-ID header (an EventSource reconnecting) or ?lastEventId=. */
export function resumePoint(request: BatchRequest): number {
  const header = request.headers['last-event-id'];
  const given = header !== undefined ? header : request.query.lastEventId;
  if (given === undefined || given === '') return 0;
  if (typeof given !== 'string' || !resumeIdPattern.test(given)) {
    throw new ProblemError(400, 'invalid_last_event_id', 'Last-Event-ID must be the id of a message received on this stream.', {
      errors: [{ path: header !== undefined ? 'Last-Event-ID' : 'lastEventId', message: 'must be a non-negative integer' }],
    });
  }
  return Number(given);
}

/**
 * One slice of the fan-out hands this many bytes to sockets, or this many runs to watchers (most of them only
 * parked behind a stalled socket), before other requests get a turn.
 */
const FAN_OUT_SLICE_BYTES = 256 * 1024;
const FAN_OUT_SLICE_RUNS = 256;

/** What the fan-out writes to: an open stream. */
export interface Recipient {
  readonly ended: boolean;
  /** Takes a run into the watcher's backlog (true), or refuses it: the watcher has ended, or is cut off now. */
  admit(frames: Frames): boolean;
  /**
   * Writes an admitted run, in turn; `final` when it ends the batch (completed or aborted). Answers the bytes
   * handed to the socket now, which the kernel copies in this turn (none for a watcher behind).
   */
  send(frames: Frames, final: boolean): number;
}

/**
 * Hands runs of messages to watchers a slice at a time, yielding to the event loop between slices. The
 * kernel keeps taking writes to a socket whose peer does not read until its buffers fill (megabytes each on
 * a fast network), and the copy is made when the write is flushed: one post fanned out at once to hundreds
 * of such watchers held every other request for as long as those copies took (up to 0.9 s). One queue for
 * every watcher keeps each watcher's runs in order. A run waiting here counts in its watcher's backlog: when
 * posts come faster than the fan-out can hand them out, the watchers furthest behind are cut off rather
 * than the queue growing without bound.
 */
export class FanOut {
  private readonly queue: { watcher: Recipient; frames: Frames; final: boolean }[] = [];
  private head = 0;
  private scheduled = false;

  send(watcher: Recipient, run: LiveRun): void {
    const { frames, final } = run;
    if (!watcher.admit(frames)) return;
    this.queue.push({ watcher, frames, final });
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.drain);
    }
  }

  private readonly drain = () => {
    let sliced = 0;
    const until = Math.min(this.queue.length, this.head + FAN_OUT_SLICE_RUNS);
    while (this.head < until && sliced < FAN_OUT_SLICE_BYTES) {
      const { watcher, frames, final } = this.queue[this.head];
      this.queue[this.head++] = undefined!;
      sliced += watcher.send(frames, final);
    }
    if (this.head < this.queue.length) return void setImmediate(this.drain);
    this.queue.length = 0;
    this.head = 0;
    this.scheduled = false;
  };
}
const fanOut = new FanOut();

/**
 * One open stream, written to its socket directly (after the response's head): a response corks its socket
 * for the rest of the turn, so what the kernel takes could not be told write by write.
 *
 * Its backlog is what it was sent and the kernel has not yet taken: runs admitted to the fan-out's queue,
 * chunks waiting here (the socket is handed a chunk only once it has taken everything before it, so it
 * never holds more than one) and the socket's unsent bytes. A run that would take the backlog past
 * MAX_WATCHER_BACKLOG_BYTES is not admitted; the watcher is cut off instead, and lets go of every waiting
 * chunk (a run always goes to a watcher with no backlog, so a post larger than the limit still reaches a
 * watcher that keeps up).
 */
class Watcher implements Recipient {
  ended = false;
  readonly orgId: string;
  readonly credentialId: string;
  /** The token the stream was opened with (or its ticket asked for with), checked again while the stream lasts. */
  readonly source: CredentialSource;
  /** Bytes of runs admitted and still in the fan-out's queue. */
  private queuedBytes = 0;
  private waiting: Buffer[] = [];
  private waitingBytes = 0;
  /** Ending was asked for while chunks waited: the socket is ended once they are all handed over. */
  private ending = false;

  constructor(
    private readonly socket: Socket,
    principal: Principal,
  ) {
    this.orgId = principal.orgId;
    this.credentialId = principal.credentialId;
    this.source = principal.source;
  }

  admit(frames: Frames): boolean {
    if (this.ended) return false;
    const backlog = this.queuedBytes + this.waitingBytes + this.socket.writableLength;
    if (backlog > 0 && backlog + frames.bytes > MAX_WATCHER_BACKLOG_BYTES) {
      this.close('too_far_behind', `The stream fell more than ${MAX_WATCHER_BACKLOG_BYTES} bytes behind; reconnect with Last-Event-ID to resume.`);
      return false;
    }
    this.queuedBytes += frames.bytes;
    return true;
  }

  send(frames: Frames, final: boolean): number {
    this.queuedBytes -= frames.bytes;
    if (this.ended) return 0;
    let written = 0;
    for (const chunk of frames.chunks) written += this.write(chunk);
    // Nothing more will come, and a closed session is no longer resumable.
    if (final) this.end();
    return written;
  }

  comment(text: string): void {
    if (!this.ended) this.write(Buffer.from(`: ${text}\n\n`));
  }

  /** Hands the chunk to the socket (answering its size) or, while the socket holds unsent bytes, parks it (0). */
  private write(chunk: Buffer): number {
    if (this.waiting.length === 0 && this.socket.writableLength === 0) {
      this.socket.write(chunk, this.handOn);
      return chunk.length;
    }
    this.waiting.push(chunk);
    this.waitingBytes += chunk.length;
    return 0;
  }

  /** Called as each write has been taken: hands over the next waiting chunk once the socket holds nothing unsent. */
  private readonly handOn = (error?: Error | null) => {
    if (error || this.socket.writableLength > 0 || this.waiting.length === 0) return;
    const chunk = this.waiting.shift()!;
    this.waitingBytes -= chunk.length;
    this.socket.write(chunk, this.handOn);
    if (this.waiting.length === 0 && this.ending) this.socket.end();
  };

  /** Ends the stream with a last `closed` event saying why; a watcher that does not read even that is dropped. */
  close(reason: string, detail: string): void {
    if (this.ended) return;
    // What waits was never sent: the watcher resumes from the last id it received.
    this.waiting = [];
    this.waitingBytes = 0;
    this.end(`event: closed\ndata: ${JSON.stringify({ reason, detail })}\n\n`);
    setTimeout(() => this.socket.destroy(), CLOSE_GRACE_MS).unref();
  }

  /** Ends the stream after what was sent to it, and `last`. */
  end(last = ''): void {
    if (this.ended) return;
    this.ended = true;
    if (last !== '') this.write(Buffer.from(last));
    // A socket ends after the writes it was handed; the waiting chunks are handed over first.
    if (this.waiting.length === 0) this.socket.end();
    else this.ending = true;
  }
}

/** The batch's stored state, read only when no live session answers, to tell a finished batch (409) from one that never existed (404). */
const storedBatchState = (db: Database, orgId: string, batchId: string): Promise<string | null> =>
  db.transaction((tx) => repo.batchState(tx, orgId, batchId), { orgId, readOnly: true });
