import type { LiveMessage } from './messages.js';

/**
 * A run's SSE bytes. A chunk holds whole messages, FRAME_CHUNK_BYTES or a message more, and has memory of its
 * own (never a slice of a shared pool): a socket that has not taken all it was handed keeps that chunk alive,
 * so a stalled watcher holds at most one chunk, not a whole post (see Watcher in http.ts).
 */
export interface Frames {
  readonly chunks: readonly Buffer[];
  readonly bytes: number;
}

/**
 * Consecutive messages of one batch (one stored post's, a status, or a catch-up), framed for the wire once
 * however many watchers receive them. `starts[i]` is where message `firstId + i` begins in the run's bytes,
 * so the run can be cut at any id (runFrom) without framing it again.
 */
export interface LiveRun {
  readonly firstId: number;
  readonly lastId: number;
  /** It ends the batch: it holds a `completed` or `aborted` status, after which nothing more comes. */
  readonly final: boolean;
  readonly frames: Frames;
  readonly starts: Uint32Array;
}

export const FRAME_CHUNK_BYTES = 16 * 1024;

/** Batch states after which a session takes nothing more (roast_batches.state). */
const FINAL_STATES = new Set(['completed', 'aborted']);

/**
 * Frames a run message by message: `id:` and `event:` lines and a `data:` line holding the message's JSON,
 * given as text or as bytes of a larger text (a stored post, whose samples are copied out of it as they are,
 * without parsing it).
 */
export class RunFramer {
  private readonly chunks: Buffer[] = [];
  private readonly starts: number[] = [];
  private firstId = 0;
  private lastId = 0;
  private bytes = 0;
  private final = false;
  /** The messages of the chunk being filled: its header, its JSON (text, or bytes from..to of a Buffer). */
  private readonly heads: string[] = [];
  private readonly datas: (string | Buffer)[] = [];
  private readonly froms: number[] = [];
  private readonly tos: number[] = [];
  private waitingBytes = 0;

  /** Adds a message (each one's id the one after the last), serialising its data; a final status makes the run final. */
  addMessage({ id, event, data }: LiveMessage): void {
    if (event === 'status' && FINAL_STATES.has((data as { state: string }).state)) this.final = true;
    const json = JSON.stringify(data);
    this.push(id, event, json, 0, Buffer.byteLength(json, 'utf8'));
  }

  /** Adds the sample or event `id` whose JSON is `source`'s bytes from..to. */
  addBytes(id: number, event: 'sample' | 'roast_event', source: Buffer, from: number, to: number): void {
    this.push(id, event, source, from, to - from);
  }

  private push(id: number, event: LiveMessage['event'], data: string | Buffer, from: number, dataBytes: number): void {
    const head = `id: ${id}\nevent: ${event}\ndata: `;
    const size = head.length + dataBytes + 2;
    if (this.starts.length === 0) this.firstId = id;
    this.lastId = id;
    this.starts.push(this.bytes);
    this.bytes += size;
    this.heads.push(head);
    this.datas.push(data);
    this.froms.push(from);
    this.tos.push(from + dataBytes);
    this.waitingBytes += size;
    if (this.waitingBytes >= FRAME_CHUNK_BYTES) this.cut();
  }

  /** The run of the messages added; null when none was. */
  finish(): LiveRun | null {
    if (this.starts.length === 0) return null;
    if (this.waitingBytes > 0) this.cut();
    const frames = { chunks: this.chunks, bytes: this.bytes };
    return { firstId: this.firstId, lastId: this.lastId, final: this.final, frames, starts: Uint32Array.from(this.starts) };
  }

  private cut(): void {
    const chunk = Buffer.allocUnsafeSlow(this.waitingBytes);
    let at = 0;
    this.heads.forEach((head, i) => {
      at += chunk.write(head, at, 'latin1');
      const data = this.datas[i];
      at += typeof data === 'string' ? chunk.write(data, at, 'utf8') : data.copy(chunk, at, this.froms[i], this.tos[i]);
      chunk[at++] = NEWLINE;
      chunk[at++] = NEWLINE;
    });
    this.chunks.push(chunk);
    this.heads.length = this.datas.length = this.froms.length = this.tos.length = 0;
    this.waitingBytes = 0;
  }
}

const NEWLINE = 0x0a;

/** The messages (consecutive ids, at least one) framed as one run. */
export function frameRun(messages: readonly LiveMessage[]): LiveRun {
  const framer = new RunFramer();
  for (const message of messages) framer.addMessage(message);
  return framer.finish()!;
}

/** The run's messages from id `from` on: the run itself when it starts there or later, null when it ends before. */
export function runFrom(run: LiveRun, from: number): LiveRun | null {
  if (from <= run.firstId) return run;
  if (from > run.lastId) return null;
  const skip = run.starts[from - run.firstId];
  const chunks: Buffer[] = [];
  let offset = 0;
  for (const chunk of run.frames.chunks) {
    if (offset + chunk.length > skip) chunks.push(offset >= skip ? chunk : chunk.subarray(skip - offset));
    offset += chunk.length;
  }
  return {
    firstId: from,
    lastId: run.lastId,
    final: run.final,
    frames: { chunks, bytes: run.frames.bytes - skip },
    starts: run.starts.subarray(from - run.firstId).map((start) => start - skip),
  };
}
