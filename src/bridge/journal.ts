import { closeSync, existsSync, fdatasyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The bridge's journal: one append-only file of JSON lines per recording (`current.jsonl` while it runs,
 * renamed to `<batchId>.jsonl` once everything in it is acknowledged). Every reading and event is written
 * before it can be posted, and every post is written (its seq and how far it reaches) before it is sent, so
 * a restarted bridge resends exactly the posts the service may not have stored, with the same seq (the
 * service acknowledges a repeated seq without storing it twice), then continues.
 *
 * Durability: each record is written with one write(2) as it happens, so a killed process loses nothing; the
 * file is fdatasync'ed at least every `fsyncIntervalMs` and always before a post is sent, so a power cut loses
 * at most that interval of readings nobody has seen yet, never a post's contents the service has stored.
 */

export interface SampleRecord {
  k: 's';
  t: number;
  bt: number | null;
  et: number | null;
  ch?: Record<string, number | null>;
}
export interface EventRecord {
  k: 'e';
  type: string;
  t: number;
  by: 'auto' | 'hand' | 'service';
}
export type DataRecord = SampleRecord | EventRecord;

export type JournalRecord =
  | { k: 'start'; startedAt: number; speed: number; idempotencyKey: string }
  | { k: 'number'; batchNumber: string }
  | { k: 'batch'; id: string; batchNumber: string }
  | DataRecord
  /** A post: the data records from the previous post's `to` up to (not including) `to`. */
  | { k: 'p'; seq: number; to: number }
  | { k: 'a'; seq: number }
  /** Recording ended (after drop and the cooling time); what remains is posting. */
  | { k: 'end'; reason: string }
  /** Everything posted (or the batch stopped taking posts): the recording is closed. */
  | { k: 'done'; reason: string };

/** A recording as the journal holds it. */
export interface Recording {
  startedAt: number;
  speed: number;
  idempotencyKey: string;
  batchNumber?: string;
  batch?: { id: string; batchNumber: string };
  data: DataRecord[];
  posts: { seq: number; from: number; to: number }[];
  acknowledged: Set<number>;
  ended?: string;
  done?: string;
}

const CURRENT = 'current.jsonl';

/** Folds a journal's lines into its recording; a torn last line (a power cut mid-write) is ignored. */
export function readRecording(text: string): Recording | undefined {
  let recording: Recording | undefined;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!line) continue;
    let record: JournalRecord;
    try {
      record = JSON.parse(line);
    } catch (error) {
      if (i >= lines.length - 2) break;
      throw new Error(`journal line ${i + 1} is damaged: ${(error as Error).message}`);
    }
    if (record.k === 'start') {
      recording = { startedAt: record.startedAt, speed: record.speed, idempotencyKey: record.idempotencyKey, data: [], posts: [], acknowledged: new Set() };
      continue;
    }
    if (!recording) throw new Error('the journal does not begin with a start record');
    applyRecord(recording, record);
  }
  return recording;
}

function applyRecord(recording: Recording, record: JournalRecord): void {
  switch (record.k) {
    case 'number':
      recording.batchNumber = record.batchNumber;
      break;
    case 'batch':
      recording.batch = { id: record.id, batchNumber: record.batchNumber };
      break;
    case 's':
    case 'e':
      recording.data.push(record);
      break;
    case 'p':
      recording.posts.push({ seq: record.seq, from: recording.posts.at(-1)?.to ?? 0, to: record.to });
      break;
    case 'a':
      recording.acknowledged.add(record.seq);
      break;
    case 'end':
      recording.ended = record.reason;
      break;
    case 'done':
      recording.done = record.reason;
      break;
  }
}

export class Journal {
  private fd: number;
  private lastSync = 0;
  private dirty = false;

  private constructor(
    private readonly dir: string,
    readonly recording: Recording,
    private readonly fsyncIntervalMs: number,
  ) {
    this.fd = openSync(join(dir, CURRENT), 'a');
  }

  /** The unfinished recording in `dir`, if the last run left one. */
  static unfinished(dir: string): Recording | undefined {
    const path = join(dir, CURRENT);
    if (!existsSync(path)) return undefined;
    const recording = readRecording(readFileSync(path, 'utf8'));
    return recording && !recording.done ? recording : undefined;
  }

  /** Continues the unfinished recording in `dir`. */
  static resume(dir: string, recording: Recording, fsyncIntervalMs: number): Journal {
    return new Journal(dir, recording, fsyncIntervalMs);
  }

  /** Begins a new recording in `dir` (a finished one left there is moved aside first). */
  static begin(dir: string, start: { startedAt: number; speed: number; idempotencyKey: string }, fsyncIntervalMs: number): Journal {
    mkdirSync(dir, { recursive: true });
    const path = join(dir, CURRENT);
    if (existsSync(path)) renameSync(path, join(dir, `finished-${Date.now()}.jsonl`));
    const journal = new Journal(dir, { ...start, data: [], posts: [], acknowledged: new Set() }, fsyncIntervalMs);
    journal.write({ k: 'start', ...start });
    journal.sync();
    return journal;
  }

  append(record: JournalRecord): void {
    applyRecord(this.recording, record);
    this.write(record);
    if (this.fsyncIntervalMs === 0 || performance.now() - this.lastSync >= this.fsyncIntervalMs) this.sync();
  }

  private write(record: JournalRecord): void {
    writeSync(this.fd, `${JSON.stringify(record)}\n`);
    this.dirty = true;
  }

  /** Makes everything written so far durable. */
  sync(): void {
    if (this.dirty) fdatasyncSync(this.fd);
    this.dirty = false;
    this.lastSync = performance.now();
  }

  /** Closes the recording: the file keeps its batch's name. */
  finish(reason: string): void {
    this.append({ k: 'done', reason });
    this.sync();
    closeSync(this.fd);
    const name = this.recording.batch ? `${this.recording.batch.id}.jsonl` : `unposted-${this.recording.startedAt}.jsonl`;
    renameSync(join(this.dir, CURRENT), join(this.dir, name));
  }

  close(): void {
    this.sync();
    closeSync(this.fd);
  }
}
