import { importRoastLog } from './importers/index.js';
import type { CurveSample, RoastEvent } from './curve.js';

/**
 * The roast replayer (`firstcrack replay-roast`): reads a roast log with the importers, starts a batch with the
 * API (production.roast.startRoastBatch) and posts the log's samples and events through the bridge channel
 * (POST /ingest/v1/roast/{batchId}/samples, with the machine's bridge token) as they happened, `speed` times as
 * fast, so anyone can watch a real roast live in the console. Each post carries what fell due since the last
 * (one post per tick); a refused post is retried with the same seq, which the service stores once.
 */
export interface ReplayOptions {
  /** The service, e.g. http://127.0.0.1:8080 */
  baseUrl: string;
  /** An API key (or user access token) allowed production.roast.write and, without bridgeToken, catalog.machine.write. */
  token: string;
  /** X-Service-Org, for user access tokens. */
  organizationId?: string;
  machineId: string;
  /** The log's text (a binary Cropster .xls base64-encoded), as importRoastLog takes it. */
  content: string;
  speed?: number;
  /** The machine's bridge token; without it one is issued for this replay (catalog.machine.issueMachineBridgeToken). */
  bridgeToken?: string;
  batchNumber?: string;
  chargeWeightKg?: string;
  profileId?: string;
  greenLotId?: string;
  /** After the last sample: complete the batch (with this drop weight when given). Default false: it stays live. */
  complete?: boolean;
  dropWeightKg?: string;
  /** Wall time between posts (default 100 ms, the fastest loggers' rate). */
  tickMs?: number;
  fetch?: typeof fetch;
  onBatch?: (batch: { id: string; batchNumber: string }) => void;
  onProgress?: (progress: { seq: number; samplesSent: number; samplesTotal: number; events: string[] }) => void;
  signal?: AbortSignal;
}

export interface ReplayResult {
  batchId: string;
  batchNumber: string;
  posts: number;
  samples: number;
  events: number;
  completed: boolean;
}

export class ReplayError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });

export async function replayRoast(options: ReplayOptions): Promise<ReplayResult> {
  const http = options.fetch ?? fetch;
  const base = options.baseUrl.replace(/\/+$/, '');
  const speed = options.speed ?? 1;
  const tickMs = options.tickMs ?? 100;
  const roast = importRoastLog(options.content);
  const samples = roast.curve.samples.map(forIngest).sort((a, b) => a.t - b.t);
  const events = roast.curve.events.map((e) => ({ ...e, t: Math.round(e.t) })).sort((a, b) => a.t - b.t);
  if (samples.length === 0) throw new ReplayError('the log holds no samples');

  async function rpc<T>(operation: string, input: unknown): Promise<T> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${options.token}`,
      'content-type': 'application/json',
      'idempotency-key': crypto.randomUUID(),
    };
    if (options.organizationId) headers['x-service-org'] = options.organizationId;
    const response = await http(`${base}/rpc/v1/${operation}`, { method: 'POST', headers, body: JSON.stringify(input), signal: options.signal });
    const text = await response.text();
    const body = text ? JSON.parse(text) : {};
    if (!response.ok) {
      const fields = (body.errors ?? []).map((e: { path: string; message: string }) => `${e.path}: ${e.message}`).join('; ');
      throw new ReplayError(`${operation}: ${response.status} ${body.code ?? ''} ${body.detail ?? text}${fields ? ` (${fields})` : ''}`.trim(), response.status);
    }
    return body as T;
  }

  const bridgeToken =
    options.bridgeToken ?? (await rpc<{ token: string }>('catalog.machine.issueMachineBridgeToken', { machineId: options.machineId, expiresInHours: 24 })).token;
  const chargeWeightKg = options.chargeWeightKg ?? (roast.meta.greenWeightKg ? String(roast.meta.greenWeightKg) : '10');
  const batch = await rpc<{ id: string; batchNumber: string }>('production.roast.startRoastBatch', {
    batchNumber: options.batchNumber ?? `REPLAY-${new Date().toISOString().replace(/[-:]/g, '').slice(0, 15)}`,
    machineId: options.machineId,
    chargeWeightKg,
    ...(options.profileId ? { profileId: options.profileId } : {}),
    ...(options.greenLotId ? { greenLotId: options.greenLotId } : {}),
  });
  options.onBatch?.(batch);

  async function post(seq: number, postSamples: CurveSample[], postEvents: RoastEvent[]): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const response = await http(`${base}/ingest/v1/roast/${batch.id}/samples`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bridgeToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ seq, samples: postSamples, ...(postEvents.length ? { events: postEvents } : {}) }),
        signal: options.signal,
      });
      const text = await response.text();
      if (response.ok) return;
      const retryable = response.status === 429 || response.status >= 500 || (response.status === 409 && text.includes('"state":"live"'));
      if (!retryable || attempt >= 5) {
        const body = text ? JSON.parse(text) : {};
        throw new ReplayError(`ingest post ${seq}: ${response.status} ${body.code ?? ''} ${body.detail ?? text}`.trim(), response.status);
      }
      const after = Number(response.headers.get('retry-after'));
      await sleep(Number.isFinite(after) && after > 0 ? after * 1000 : 200 * 2 ** attempt, options.signal);
    }
  }

  const t0 = samples[0].t;
  const started = performance.now();
  let next = 0;
  let nextEvent = 0;
  let seq = 0;
  const sentEvents: string[] = [];
  while (next < samples.length || nextEvent < events.length) {
    const dueT = t0 + (performance.now() - started) * speed;
    const due: CurveSample[] = [];
    while (next < samples.length && samples[next].t <= dueT && due.length < 2000) due.push(samples[next++]);
    const dueEvents: RoastEvent[] = [];
    while (nextEvent < events.length && events[nextEvent].t <= dueT && dueEvents.length < 100) dueEvents.push(events[nextEvent++]);
    if (due.length || dueEvents.length) {
      seq++;
      await post(seq, due, dueEvents);
      sentEvents.push(...dueEvents.map((e) => e.type));
      options.onProgress?.({ seq, samplesSent: next, samplesTotal: samples.length, events: [...sentEvents] });
    }
    if (next < samples.length || nextEvent < events.length) await sleep(tickMs, options.signal);
  }

  let completed = false;
  if (options.complete) {
    await rpc('production.roast.completeRoastBatch', { id: batch.id, ...(options.dropWeightKg ? { dropWeightKg: options.dropWeightKg } : {}) });
    completed = true;
  }
  return { batchId: batch.id, batchNumber: batch.batchNumber, posts: seq, samples: samples.length, events: events.length, completed };
}

const CHANNEL_NAME = /[^A-Za-z0-9_.-]/g;

/** A sample as the ingest schema takes it: whole milliseconds, channel names of 1–64 letters, digits, _ . -, at most 32. */
function forIngest(sample: CurveSample): CurveSample {
  const out: CurveSample = { t: Math.round(sample.t), bt: sample.bt, et: sample.et };
  if (sample.channels) {
    const channels: Record<string, number | null> = {};
    for (const [name, value] of Object.entries(sample.channels).slice(0, 32)) {
      const clean = name.replace(CHANNEL_NAME, '_').slice(0, 64);
      if (clean) channels[clean] = value === null || Number.isFinite(value) ? value : null;
    }
    out.channels = channels;
  }
  return out;
}
