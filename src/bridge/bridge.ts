import { randomUUID } from 'node:crypto';
import { ApiError, BridgeApi, postPoints } from './api.js';
import type { BridgeConfig } from './config.js';
import { Detector } from './detector.js';
import { Journal, type DataRecord, type Recording } from './journal.js';
import { openSource, type Readings, type Source } from './sources/index.js';

/**
 * `firstcrack bridge`: reads the machine at the poll rate, journals every reading, marks charge, turning point
 * and drop as Artisan does, and posts the journal to the service in order (journal.ts says why nothing is
 * lost or stored twice). A recording is one batch: from when the bridge starts (or the previous batch ended)
 * until after_drop_s after drop; then the next begins.
 */

export interface BridgeStatus {
  state: 'waiting for a batch' | 'recording' | 'posting what is left' | 'done';
  batch?: string;
  elapsedS: number;
  bt: number | null;
  et: number | null;
  /** BT's rate of rise over the last 30 s, °C/min. */
  ror: number | null;
  /** Samples and events journaled but not yet acknowledged by the service. */
  backlog: number;
  /** Why the service or the machine cannot be reached right now. */
  offline?: string;
}

export interface BridgeOptions {
  config: BridgeConfig;
  /** Attach to this batch rather than finding or starting one. */
  batchId?: string;
  /** Stop once one batch is recorded and posted. */
  once?: boolean;
  /** Roast time runs this many times as fast as wall time (simulators and tests). */
  speed?: number;
  signal?: AbortSignal;
  /** A source already open (benchmarks); default: the configured one. */
  source?: Source;
  onStatus?: (status: BridgeStatus) => void;
  log?: (line: string) => void;
}

export interface RecordingResult {
  batchId?: string;
  batchNumber?: string;
  samples: number;
  events: { type: string; t: number; by: string }[];
  posts: number;
  /** Why posting stopped early (the batch was completed or aborted in the console, or refused). */
  stopped?: string;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

const MAX_EVENTS_PER_POST = 100;
const RETRY_MAX_MS = 5000;

/** Today's date parts and the counter in a batch-number pattern: `R{yyyy}{mm}{dd}-{n:2}`. */
export function expandPattern(pattern: string, n: number, now = new Date()): string {
  const pad = (v: number, w = 2) => String(v).padStart(w, '0');
  return pattern
    .replaceAll('{yyyy}', String(now.getFullYear()))
    .replaceAll('{yy}', pad(now.getFullYear() % 100))
    .replaceAll('{mm}', pad(now.getMonth() + 1))
    .replaceAll('{dd}', pad(now.getDate()))
    .replace(/\{n(?::(\d))?\}/, (_, width) => pad(n, width ? Number(width) : 1));
}

/** The counter a batch number made from `pattern` today carries, or undefined when it was not made from it. */
export function counterOf(pattern: string, batchNumber: string, now = new Date()): number | undefined {
  const [before, after] = splitAtCounter(pattern, now);
  if (!batchNumber.startsWith(before) || !batchNumber.endsWith(after)) return undefined;
  const middle = batchNumber.slice(before.length, batchNumber.length - after.length);
  return /^\d+$/.test(middle) ? Number(middle) : undefined;
}

function splitAtCounter(pattern: string, now: Date): [string, string] {
  const marker = '\u0000';
  const [before, after] = expandPattern(pattern.replace(/\{n(:\d)?\}/, marker), 0, now).split(marker);
  return [before, after ?? ''];
}

export class Bridge {
  private readonly api: BridgeApi;
  private readonly speed: number;
  private journal!: Journal;
  private detector!: Detector;
  private source?: Source;
  private readonly recent: { t: number; bt: number }[] = [];
  private last: Readings = {};
  private offline?: string;
  private lastBudget?: { remaining: number; resetS: number };
  private readonly finishedBatches = new Set<string>();
  private stopRecording = new AbortController();

  constructor(private readonly options: BridgeOptions) {
    const s = options.config.service;
    this.api = new BridgeApi(s.url, s.bridge_token!, s.api_key, s.organization);
    this.speed = options.speed ?? 1;
  }

  private log(line: string) {
    this.options.log?.(line);
  }

  private get signal() {
    return this.options.signal;
  }

  /** Records batch after batch (or one, with `once`) until the signal. */
  async run(): Promise<RecordingResult[]> {
    const config = this.options.config;
    this.source = this.options.source ?? (await openSource(config));
    const results: RecordingResult[] = [];
    try {
      while (!this.signal?.aborted) {
        const unfinished = Journal.unfinished(config.journal.dir);
        if (unfinished) {
          this.journal = Journal.resume(config.journal.dir, unfinished, config.journal.fsync_interval_ms);
          this.log(`Resuming the journal's recording${unfinished.batch ? ` of batch ${unfinished.batch.batchNumber}` : ''}: ${unfinished.data.length} records, ${this.backlog()} not yet acknowledged.`);
        } else {
          this.journal = Journal.begin(config.journal.dir, { startedAt: Date.now(), speed: this.speed, idempotencyKey: randomUUID() }, config.journal.fsync_interval_ms);
        }
        results.push(await this.record());
        if (this.options.once) break;
      }
    } finally {
      if (!this.options.source) await this.source.close();
    }
    return results;
  }

  /** Marks an event by hand (a key pressed beside the roaster): it counts as the event, and is never marked again automatically. */
  markByHand(type: string): void {
    if (!this.journal || this.journal.recording.ended || this.detector.has(type)) return;
    const t = this.now();
    this.detector.mark(type, t);
    this.journal.append({ k: 'e', type, t, by: 'hand' });
    this.log(`${type} marked by hand at ${(t / 1000).toFixed(1)} s.`);
  }

  /** Roast time: ms since the recording began, on the recording's own clock. */
  private now(): number {
    const r = this.journal.recording;
    return Math.round((Date.now() - r.startedAt) * r.speed);
  }

  private backlog(): number {
    const r = this.journal.recording;
    const acknowledgedTo = r.posts.filter((p) => r.acknowledged.has(p.seq)).at(-1)?.to ?? 0;
    return r.data.length - acknowledgedTo;
  }

  private async record(): Promise<RecordingResult> {
    const recording = this.journal.recording;
    this.stopRecording = new AbortController();
    this.detector = new Detector(this.options.config.detect);
    this.recent.length = 0;
    // Rebuild the detector from the journal: known events first, then every reading again.
    for (const record of recording.data) if (record.k === 'e') this.detector.mark(record.type, record.t);
    for (const record of recording.data) if (record.k === 's') this.detector.add(record.t, record.bt);
    const stopped = { reason: undefined as string | undefined };
    const tasks = [this.acquireBatch(), this.readLoop(), this.postLoop(stopped)];
    const statusTimer = setInterval(() => this.report(), 250);
    try {
      await Promise.all(tasks);
    } finally {
      clearInterval(statusTimer);
      this.stopRecording.abort();
    }
    this.report();
    const events = recording.data.filter((d): d is Extract<DataRecord, { k: 'e' }> => d.k === 'e').map(({ type, t, by }) => ({ type, t, by }));
    const result: RecordingResult = {
      batchId: recording.batch?.id,
      batchNumber: recording.batch?.batchNumber,
      samples: recording.data.filter((d) => d.k === 's').length,
      events,
      posts: recording.posts.length,
      stopped: stopped.reason,
    };
    if (recording.done) {
      if (recording.batch) this.finishedBatches.add(recording.batch.id);
      this.log(`Batch ${recording.batch?.batchNumber ?? '(none)'}: ${result.samples} samples and ${events.length} events posted in ${result.posts} posts${stopped.reason ? `; stopped: ${stopped.reason}` : ''}.`);
    } else {
      this.journal.close();
    }
    return result;
  }

  private report(): void {
    const r = this.journal.recording;
    const bt = this.last.bt ?? null;
    let ror: number | null = null;
    const first = this.recent[0];
    const latest = this.recent.at(-1);
    if (first && latest && latest.t - first.t >= 5000) ror = Math.round(((latest.bt - first.bt) / ((latest.t - first.t) / 60000)) * 10) / 10;
    const state = r.done ? 'done' : r.ended ? 'posting what is left' : r.batch ? 'recording' : 'waiting for a batch';
    this.options.onStatus?.({ state, batch: r.batch?.batchNumber, elapsedS: this.now() / 1000, bt, et: this.last.et ?? null, ror, backlog: this.backlog(), offline: this.offline });
  }

  /** Finds, starts or takes the recording's batch, retrying while the service is unreachable; samples are journaled meanwhile. */
  private async acquireBatch(): Promise<void> {
    const recording = this.journal.recording;
    const config = this.options.config;
    for (let attempt = 0; !recording.batch && !this.signal?.aborted && !recording.done && !this.nothingToAttach(); attempt++) {
      try {
        if (this.options.batchId && !this.finishedBatches.has(this.options.batchId)) {
          this.journal.append({ k: 'batch', id: this.options.batchId, batchNumber: this.options.batchId });
        } else if (this.options.batchId) {
          // The given batch was recorded; nothing more to attach to.
          this.journal.append({ k: 'end', reason: 'the given batch was recorded' });
          return;
        } else if (config.batch.mode === 'start') {
          if (!recording.batchNumber) this.journal.append({ k: 'number', batchNumber: await this.nextBatchNumber() });
          const b = config.batch;
          // The journal's idempotency key: a retry after a lost answer or a restart gets the batch the first call started.
          const started = await this.api.call<{ id: string; batchNumber: string }>(
            'production.roast.startRoastBatch',
            {
              batchNumber: recording.batchNumber,
              machineId: config.service.machine,
              chargeWeightKg: b.charge_kg,
              ...(b.profile ? { profileId: b.profile } : {}),
              ...(b.green_lot ? { greenLotId: b.green_lot } : {}),
            },
            recording.idempotencyKey,
          );
          this.journal.append({ k: 'batch', id: started.id, batchNumber: started.batchNumber });
        } else {
          const live = await this.api.call<{ items: { id: string; batchNumber: string }[] }>('production.roast.listRoastBatches', {
            filter: { state: 'live', machineId: config.service.machine },
            page: { limit: 20 },
          });
          const found = live.items.find((item) => !this.finishedBatches.has(item.id));
          if (!found) {
            await sleep(1000, this.signal);
            continue;
          }
          this.journal.append({ k: 'batch', id: found.id, batchNumber: found.batchNumber });
        }
        this.offline = undefined;
        this.log(`Recording batch ${recording.batch!.batchNumber} (${recording.batch!.id}).`);
        await this.learnServiceEvents();
      } catch (error) {
        if (!(error instanceof ApiError) || !error.retryable) throw error;
        this.offline = error.message;
        await sleep(Math.min(250 * 2 ** attempt, RETRY_MAX_MS), this.signal);
      }
    }
    if (recording.batch && recording.data.length > 0) await this.learnServiceEvents().catch(() => undefined);
  }

  /** An attaching bridge whose recording ended (drop and cooling) before any batch was started in the console. */
  private nothingToAttach(): boolean {
    const recording = this.journal.recording;
    return recording.ended !== undefined && !recording.batch && this.options.config.batch.mode === 'attach' && !this.options.batchId;
  }

  /** Events the batch already holds that this journal did not post (marked elsewhere) count: they are never marked again. */
  private async learnServiceEvents(): Promise<void> {
    const batch = this.journal.recording.batch;
    if (!batch || !this.api.canCallOperations) return;
    const curve = await this.api.call<{ events: { type: string; t: number }[] }>('production.roast.getRoastCurve', { id: batch.id });
    for (const event of curve.events) this.detector.mark(event.type, event.t);
  }

  private async nextBatchNumber(): Promise<string> {
    const pattern = this.options.config.batch.number_pattern;
    const [prefix] = splitAtCounter(pattern, new Date());
    const page = await this.api.call<{ items: { batchNumber: string }[] }>('production.roast.listRoastBatches', {
      filter: prefix.trim() ? { q: prefix.trim().slice(0, 100) } : {},
      page: { limit: 200 },
    });
    const highest = Math.max(0, ...page.items.map((item) => counterOf(pattern, item.batchNumber) ?? 0));
    return expandPattern(pattern, highest + 1);
  }

  /** Reads the source at the poll rate until after_drop_s past drop, journaling each reading and any event it completes. */
  private async readLoop(): Promise<void> {
    const recording = this.journal.recording;
    const config = this.options.config;
    const intervalMs = 1000 / config.source.poll_hz;
    let due = performance.now();
    while (!recording.ended && !recording.done && !this.signal?.aborted && !this.stopRecording.signal.aborted) {
      due += intervalMs;
      try {
        const readings = await this.source!.read();
        this.last = readings;
        const t = this.now();
        const { bt = null, et = null, ...rest } = readings;
        const sample = { k: 's' as const, t, bt, et, ...(Object.keys(rest).length ? { ch: rest } : {}) };
        this.journal.append(sample);
        if (bt !== null) {
          this.recent.push({ t, bt });
          while (this.recent.length > 1 && this.recent[0].t < t - 30_000) this.recent.shift();
        }
        for (const event of this.detector.add(t, bt)) {
          this.journal.append({ k: 'e', type: event.type, t: event.t, by: 'auto' });
          this.log(`${event.type} at ${(event.t / 1000).toFixed(1)} s (BT ${bt?.toFixed(1)} °C).`);
        }
        const drop = recording.data.find((d) => d.k === 'e' && d.type === 'drop');
        if (drop && t >= drop.t + config.batch.after_drop_s * 1000) this.journal.append({ k: 'end', reason: 'drop' });
      } catch (error) {
        this.log(`reading ${this.source!.label}: ${(error as Error).message}`);
        due = Math.max(due, performance.now() + 1000);
      }
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait, this.signal);
      else due = performance.now();
    }
    this.journal.sync();
  }

  /** Posts the journal in order, resending unacknowledged posts with their seq, within the ingest budget. */
  private async postLoop(stopped: { reason?: string }): Promise<void> {
    const recording = this.journal.recording;
    const config = this.options.config;
    let failures = 0;
    let lastPostAt = 0;
    while (!recording.done) {
      if (this.signal?.aborted) return;
      const batch = recording.batch;
      if (!batch) {
        if (this.nothingToAttach()) {
          stopped.reason = 'no batch was started on this machine while it roasted';
          this.log(`Recording ended without a batch: ${stopped.reason}; its readings stay in the journal.`);
          this.journal.finish(stopped.reason);
          return;
        }
        await sleep(100, this.signal);
        continue;
      }
      let post = recording.posts.find((p) => !recording.acknowledged.has(p.seq));
      if (!post) {
        const from = recording.posts.at(-1)?.to ?? 0;
        const pending = recording.data.length - from;
        if (pending === 0) {
          if (recording.ended) {
            this.journal.finish(recording.ended);
            return;
          }
          await sleep(Math.min(config.post.interval_ms, 100), this.signal);
          continue;
        }
        // While live, what arrived goes out every interval_ms; a backlog goes out back to back.
        const sinceLast = performance.now() - lastPostAt;
        if (pending < config.post.max_samples && sinceLast < config.post.interval_ms && !recording.ended) {
          await sleep(config.post.interval_ms - sinceLast, this.signal);
          continue;
        }
        let to = from;
        let samples = 0;
        let events = 0;
        while (to < recording.data.length) {
          const kind = recording.data[to].k;
          if (kind === 's' && samples === config.post.max_samples) break;
          if (kind === 'e' && events === MAX_EVENTS_PER_POST) break;
          if (kind === 's') samples++;
          else events++;
          to++;
        }
        // A recording's seqs start from its start time (ms × 1000), so they never meet another sender's to the
        // same batch (a replay, an earlier recording whose journal was lost): a shared seq would be taken as a duplicate.
        const seq = (recording.posts.at(-1)?.seq ?? recording.startedAt * 1000) + 1;
        this.journal.append({ k: 'p', seq, to });
        post = recording.posts.at(-1)!;
      }
      // The post's records (and the post itself) are durable before the service can store them.
      this.journal.sync();
      const body = postBody(post.seq, recording.data.slice(post.from, post.to));
      const points = postPoints(Buffer.byteLength(body));
      if (this.lastBudget && this.lastBudget.remaining < points) {
        await sleep(Math.max(this.lastBudget.resetS, 1) * 1000, this.signal);
        this.lastBudget = undefined;
        continue;
      }
      try {
        lastPostAt = performance.now();
        const answer = await this.api.post(batch.id, body);
        this.lastBudget = answer.budget;
        this.journal.append({ k: 'a', seq: post.seq });
        if (this.offline) this.log(`The service answers again; posting the backlog (${this.backlog()} records).`);
        this.offline = undefined;
        failures = 0;
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        if (error.retryable) {
          if (!this.offline) this.log(`Posting paused, readings are journaled: ${error.message}`);
          this.offline = error.message;
          await sleep(error.retryAfterS ? error.retryAfterS * 1000 : Math.min(250 * 2 ** failures++, RETRY_MAX_MS), this.signal);
          continue;
        }
        // The batch was completed or aborted in the console, or the token refused: this batch takes no more.
        stopped.reason = error.message;
        this.log(`The service refuses this batch's posts: ${error.message}`);
        if (!recording.ended) this.journal.append({ k: 'end', reason: error.message });
        this.stopRecording.abort();
        this.journal.finish(error.message);
        return;
      }
    }
  }
}

/** A post as the ingest takes it (README "Live telemetry"). */
export function postBody(seq: number, records: DataRecord[]): string {
  const samples = [];
  const events = [];
  for (const r of records) {
    if (r.k === 's') samples.push(r.ch ? { t: r.t, bt: r.bt, et: r.et, channels: r.ch } : { t: r.t, bt: r.bt, et: r.et });
    else events.push({ type: r.type, t: r.t });
  }
  return JSON.stringify(events.length ? { seq, samples, events } : { seq, samples });
}

/** Reads every channel once (`firstcrack bridge --check`). */
export async function checkChannels(config: BridgeConfig): Promise<{ label: string; readings: Readings }> {
  const source = await openSource(config);
  try {
    // An MQTT source needs its topics' next messages: give them up to a few seconds.
    let readings = await source.read();
    for (let i = 0; i < 30 && config.source.kind === 'mqtt' && Object.values(readings).some((v) => v === null); i++) {
      await sleep(100);
      readings = await source.read();
    }
    return { label: source.label, readings };
  } finally {
    await source.close();
  }
}

export type { Recording };
