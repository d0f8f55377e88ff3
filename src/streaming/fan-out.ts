import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { endedSources, type CredentialResolver, type CredentialSource, type Principal } from '../auth/credentials.js';
import { ProblemError } from '../rpc/errors.js';
import type { Frames, LiveRun } from './frames.js';

/**
 * The streaming platform's fan-out (DESIGN.md, "The telemetry channel"): a live channel's open event streams
 * in this process and the writes of each run a live store publishes to each of them. A module's stream
 * surface admits a request (guards, its own lookups) and hands it to its channel's hub with what it follows.
 */

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


/** Open streams per API process: per credential, and per organization (429 `too_many_streams` past either), unless configured otherwise. */
export const MAX_STREAMS_PER_CREDENTIAL = 20;
export const MAX_STREAMS_PER_ORGANIZATION = 100;

/** How often a process checks that the credentials of its open streams are still valid (revocation, expiry). */
export const STREAM_CREDENTIAL_CHECK_MS = 2_000;



export interface StreamCaps {
  perCredential?: number;
  perOrganization?: number;
}

export interface StreamHubOptions {
  /** Asked, while a stream lasts, whether the credential it was opened with still holds. */
  resolvers: readonly CredentialResolver[];
  heartbeatMs?: number;
  /** Open streams per credential and per organization in this process; MAX_STREAMS_PER_CREDENTIAL and MAX_STREAMS_PER_ORGANIZATION where unset. */
  caps?: StreamCaps;
}

/** What a stream follows: its subscription to a live store, and whether what it follows is still there. */
export interface StreamSource {
  /** Subscribes the stream's runs (each handed to the fan-out); answers the unsubscribe. */
  subscribe(onRun: (run: LiveRun) => void): Promise<() => void>;
  /** Asked at each heartbeat: false ends the stream (its session discarded without a final status this process saw). */
  stillOpen(): Promise<boolean>;
}

export type StreamHub = ReturnType<typeof streamHub>;

/**
 * A process's open event streams of one channel: their caps per credential and organization, the periodic
 * check of their credentials (revocation, expiry), the response head, heartbeats, and the fan-out of the runs
 * a live store hands them. The module behind a channel decides what a stream follows (`StreamSource`) and
 * admits it (its guards, its own lookups); the hub does the rest.
 */
export function streamHub(options: StreamHubOptions) {
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  const perCredential = options.caps?.perCredential ?? MAX_STREAMS_PER_CREDENTIAL;
  const perOrganization = options.caps?.perOrganization ?? MAX_STREAMS_PER_ORGANIZATION;
  const watchers = new Set<Watcher>();

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
      const ended = await endedSources(options.resolvers, orgId, sources);
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

  return {
    /** Refuses a stream past the caps (429 `too_many_streams`), counting the watchers this process holds. */
    checkCaps(principal: Principal): void {
      let ofCredential = 0;
      let ofOrganization = 0;
      for (const w of watchers) {
        if (w.orgId !== principal.orgId) continue;
        ofOrganization++;
        if (w.credentialId === principal.credentialId) ofCredential++;
      }
      const cap = ofCredential >= perCredential ? `${perCredential} per credential` : ofOrganization >= perOrganization ? `${perOrganization} per organization` : null;
      if (cap) throw new ProblemError(429, 'too_many_streams', `Too many open streams: at most ${cap}. Close one first.`, {}, { 'Retry-After': '5' });
    },

    /** Answers an admitted request with an event stream of `source` (the caps checked before, with checkCaps). */
    async open(request: FastifyRequest, reply: FastifyReply, source: StreamSource): Promise<void> {
      const principal = request.principal!;
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
        unsubscribe = await source.subscribe((run) => fanOut.send(watcher, run));
      } catch (error) {
        request.log.error({ err: error }, 'stream subscription failed');
        raw.destroy();
        return;
      }
      if (watcher.ended) return stop();
      heartbeat = setInterval(async () => {
        watcher.comment('heartbeat');
        const open = await source.stillOpen().catch(() => true);
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

/**
 * One slice of the fan-out hands this many bytes to sockets, or this many runs to watchers (most of them only
 * parked behind a stalled socket), before other requests get a turn.
 */
const FAN_OUT_SLICE_BYTES = 256 * 1024;
const FAN_OUT_SLICE_RUNS = 256;
/**
 * A queue that never empties (posts arriving faster than the process hands them out) drops the runs it has
 * handed out once they are this many and at least half of it: otherwise its array grows for as long as the
 * process stays behind, holding a slot per run ever queued for the collector to scan.
 */
const FAN_OUT_COMPACT_AFTER = 4096;

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
 * of such watchers held every other request for as long as those copies took (bench/README.md, "Telemetry
 * posts"). One queue for
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
    if (this.head < this.queue.length) {
      if (this.head >= FAN_OUT_COMPACT_AFTER && this.head * 2 >= this.queue.length) {
        this.queue.splice(0, this.head);
        this.head = 0;
      }
      return void setImmediate(this.drain);
    }
    this.queue.length = 0;
    this.head = 0;
    this.scheduled = false;
  };
}
/** The process's one fan-out: every live channel's streams (roast telemetry, and any other module's) share its queue and slices. */
export const fanOut = new FanOut();

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
export class Watcher implements Recipient {
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
