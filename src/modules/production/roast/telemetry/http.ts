import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CredentialResolver } from '../../../../auth/credentials.js';
import type { Database } from '../../../../db/client.js';
import { limit } from '../../../../http/guards.js';
import type { RateLimiter } from '../../../../ratelimit/limiter.js';
import { offThread } from '../../../../lib/off-thread.js';
import { ProblemError, conflict, invalidInput, malformedJson, notFound, type FieldError } from '../../../../rpc/errors.js';
import { fieldErrors, id, strict } from '../../../../rpc/schemas.js';
import { streamHub, type StreamCaps } from '../../../../streaming/fan-out.js';
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

/** At most this many field errors are listed for one refused post (a post can hold 2,000 bad samples). */
const MAX_LISTED_ERRORS = 50;

export interface TelemetryChannelDeps {
  /** The service database (row-level security per organization). */
  db: Database;
  /** Asked, while a stream lasts, whether the credential it was opened with still holds. */
  resolvers: readonly CredentialResolver[];
  liveSessions: LiveSessionStore;
  heartbeatMs?: number;
  /** Open streams per credential and per organization in this process (src/streaming/fan-out.ts's caps where unset). */
  streamCaps?: StreamCaps;
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
  const streams = streamHub({ resolvers: deps.resolvers, heartbeatMs: deps.heartbeatMs, caps: deps.streamCaps });

  /** The batch's open session in this organization; otherwise 404, or 409 when the batch exists but is not live. */
  async function liveSession(orgId: string, batchId: string, fresh = false): Promise<LiveSessionInfo> {
    if (!batchIdSchema.safeParse(batchId).success) throw notFound('roast batch', batchId, 'batchId');
    const session = await deps.liveSessions.get(orgId, batchId, fresh);
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
      // Looked up in the store itself, not remembered: with Redis away the stream answers 503 with Retry-After
      // (the watcher tries again) instead of opening and then being dropped by its failed subscription.
      await liveSession(principal.orgId, batchId, true);
      streams.checkCaps(principal);
      await streams.open(request, reply, {
        subscribe: (onRun) => deps.liveSessions.subscribe(principal.orgId, batchId, afterId, onRun),
        // A session discarded without a final status (or whose status this process missed) ends the stream.
        stillOpen: async () => Boolean(await deps.liveSessions.get(principal.orgId, batchId)),
      });
    },

    /** Ends every open stream: they would hold the server open forever; ending them lets watchers reconnect to another process. */
    close() {
      streams.close();
    },
  };
}

const NoInput = strict({});

/**
 * A post of more bytes than this (about 1,000 samples) is parsed and checked on a worker thread: parsed on the
 * event loop, a large post's objects, alive while the post is stored, are promoted and make the full
 * collections that pause every other request (bench/README.md, "Telemetry posts"). A bridge's usual
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

/** The batch's stored state, read only when no live session answers, to tell a finished batch (409) from one that never existed (404). */
const storedBatchState = (db: Database, orgId: string, batchId: string): Promise<string | null> =>
  db.transaction((tx) => repo.batchState(tx, orgId, batchId), { orgId, readOnly: true });
