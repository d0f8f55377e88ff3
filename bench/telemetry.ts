// The telemetry channel under load, on the live-session store the configuration picks (disk embedded,
// Redis with REDIS_URL):
//  (a) ingest throughput: 50 machines, each its own bridge token and live batch, posting batches of 10–100
//      samples through the full ingest path (auth, ingest rate limit, session lookup, validation, durable
//      append, fan-out), against a bare route that only parses the same bodies and answers 202, in the same
//      process and run, rounds alternating. Goal: full ≥ 50% of bare.
//  (b) latency from post to watcher with 1,000 SSE watchers on one batch, the watchers in a worker thread so
//      their parsing does not share the server's event loop. Goal: p99 < 50 ms.
// `node --import tsx bench/telemetry.ts`; set DATABASE_URL (and REDIS_URL) for the server-mode numbers,
// TELEMETRY_BENCH=ingest or =fanout for one part, LATENCY_SECONDS for a longer latency run (at 5 posts/s, the
// p99 of a 10 s run is set by the worst one or two posts).
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import type autocannon from 'autocannon';
import { createOrganization } from '../src/auth/organizations.js';
import { loadConfig } from '../src/config.js';
import { newId } from '../src/lib/ids.js';
import { GENEROUS_WINDOWS } from '../src/testing/harness.js';
import { announce, load, median, printTable, record, settledNote, startBenchApp, untilSettled } from './lib.js';

const MACHINES = 50;
const WATCHERS = 1000;
const LATENCY_SECONDS = Number(process.env.LATENCY_SECONDS ?? 10);
/** A 10 Hz logger whose bridge posts every 200 ms: 10,000 messages a second to write across the watchers. */
const POSTS_PER_SECOND = 5;
const SAMPLES_PER_LATENCY_POST = 2;

/** Absolute time in ms with sub-millisecond precision, comparable across this process's threads. */
const now = () => performance.timeOrigin + performance.now();

interface Machine {
  token: string;
  machineId: string;
  batchId: string;
  seq: number;
}

export async function benchTelemetry(
  rounds = Number(process.env.BENCH_ROUNDS ?? 3),
  /** `TELEMETRY_BENCH=ingest` or `=fanout` runs one part alone (e.g. under a profiler). */
  parts = (process.env.TELEMETRY_BENCH ?? 'ingest,fanout').split(','),
) {
  announce('telemetry');
  const redisUrl = loadConfig().redisUrl;
  const dataDir = mkdtempSync(join(tmpdir(), 'fc-bench-telemetry-'));
  const bench = await startBenchApp(
    {
      ingestRateWindows: GENEROUS_WINDOWS,
      // As the rate limits are raised, so are the open-stream caps (100 per organization): the fan-out part
      // measures what 1,000 watchers of one batch cost, not the refusal of the 101st.
      streamCaps: { perCredential: WATCHERS, perOrganization: WATCHERS },
      plugins: [
        (app) => {
          app.post<{ Params: { batchId: string }; Body: { seq: number; samples: unknown[] } }>('/bench/bare/ingest/:batchId', async (request, reply) =>
            reply.code(202).send({ accepted: request.body.samples.length, seq: request.body.seq }),
          );
        },
      ],
    },
    { redisUrl, dataDir },
  );
  const store = redisUrl ? 'Redis' : 'disk';
  const { organizationId, apiKey } = await createOrganization(bench.app.databases.owner, 'Bench roastery', 'enterprise');
  const live = bench.app.services.liveSessions;
  const rpc = async (operation: string, input: unknown) => {
    const response = await fetch(`${bench.url}/rpc/v1/${operation}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(input),
    });
    if (!response.ok) throw new Error(`${operation}: ${response.status} ${await response.text()}`);
    return (await response.json()) as any;
  };
  const machines: Machine[] = [];
  for (let i = 0; i < MACHINES + 1; i++) {
    const machine = await rpc('catalog.machine.registerMachine', { name: `Bench roaster ${i}`, code: `BENCH-${i}`, connectivity: 'bridge' });
    const { token } = await rpc('catalog.machine.issueMachineBridgeToken', { machineId: machine.id });
    const batchId = newId('rb');
    await live.open({ orgId: organizationId, batchId, machineId: machine.id });
    machines.push({ token, machineId: machine.id, batchId, seq: 0 });
  }
  const latencyMachine = machines.pop()!;

  const ratio = parts.includes('ingest') ? await ingestThroughput() : NaN;
  const latency = parts.includes('fanout') ? await fanOutLatency() : { p50Ms: NaN, p99Ms: NaN };
  await bench.close();
  rmSync(dataDir, { recursive: true, force: true });
  return { ratio, ...latency };

  // (a) Ingest throughput. Each connection is one machine posting back to back; bodies are 10–100 samples.
  async function ingestThroughput() {
    const tails = Array.from({ length: 16 }, (_, i) => bodyTail(10 + Math.round((90 * i) / 15)));
    const run = async (target: 'full' | 'bare', duration: number) => {
      // Fresh sessions for each run: a session holds at most MAX_SESSION_MESSAGES, which back-to-back posts
      // of 50 machines would pass within seconds.
      for (const machine of machines) {
        await live.discard(organizationId, machine.batchId);
        machine.batchId = newId('rb');
        machine.seq = 0;
        await live.open({ orgId: organizationId, batchId: machine.batchId, machineId: machine.machineId });
      }
      const data: IngestLoad = { url: bench.url, target, duration, tails, machines: machines.map(({ token, batchId }) => ({ token, batchId })) };
      return measured(() => load({}, { module: import.meta.url, name: 'ingestLoad', data }), duration);
    };
    await run('bare', 2);
    await run('full', 2);
    const full: number[] = [];
    const bare: number[] = [];
    const fullCpu: number[] = [];
    const bareCpu: number[] = [];
    const details: Record<string, string | number>[] = [];
    const settled = await untilSettled(async (round) => {
      const b = await run('bare', 5);
      const f = await run('full', 5);
      bare.push(b.requestsPerSecond);
      full.push(f.requestsPerSecond);
      bareCpu.push(b.cpuMicrosPerRequest);
      fullCpu.push(f.cpuMicrosPerRequest);
      details.push({
        round,
        'bare posts/s': b.requestsPerSecond,
        'bare p99 ms': b.p99Ms,
        'bare CPU µs/post': b.cpuMicrosPerRequest,
        'full posts/s': f.requestsPerSecond,
        'full samples/s': Math.round(f.requestsPerSecond * 55),
        'full p99 ms': f.p99Ms,
        'full CPU µs/post': f.cpuMicrosPerRequest,
        'non-2xx': b.non2xx + f.non2xx,
      });
      return f.requestsPerSecond / b.requestsPerSecond;
    }, { minRounds: rounds });
    const ratio = settled.ratio;
    printTable(`telemetry ingest on ${bench.kind} + ${store} store: ${MACHINES} machines posting 10–100 samples, full path vs bare route (5 s rounds)`, details);
    const cpuRatio = median(bareCpu) / median(fullCpu);
    console.log(`by CPU per post (server process only): ${(cpuRatio * 100).toFixed(1)}%`);
    record({ measure: `telemetry ingest full / bare (${store})`, goal: '≥ 75%', figure: ratio, unit: 'ratio', pass: ratio >= 0.75, note: settledNote(settled) });
    // The throughput rounds left millions of samples buffered; drop them before measuring latency.
    await Promise.all(machines.map((m) => live.discard(organizationId, m.batchId)));
    return ratio;
  }

  // (b) Latency to 1,000 watchers of one batch.
  async function fanOutLatency() {
    // A worker does not inherit `--import tsx`: it registers tsx itself, then loads this file.
    const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
    const worker = new Worker(`import(${tsx}).then(({ register }) => { register(); return import(${JSON.stringify(import.meta.url)}); });`, {
      eval: true,
      workerData: { role: 'telemetry-watchers', url: `${bench.url}/stream/v1/roast/${latencyMachine.batchId}`, apiKey, watchers: WATCHERS },
    });
    const fromWorker = (type: string) =>
      new Promise<any>((resolve, reject) => {
        const onMessage = (message: { type: string }) => {
          if (message.type !== type) return;
          worker.off('message', onMessage);
          resolve(message);
        };
        worker.on('message', onMessage);
        worker.once('error', reject);
      });
    await fromWorker('ready');
    // A second of warm-up posts first, unstamped so the watchers do not count them: what is measured is the
    // steady state, not the first compilation of the path.
    const warmUp = POSTS_PER_SECOND;
    const posts = LATENCY_SECONDS * POSTS_PER_SECOND;
    for (let i = 0; i < warmUp + posts; i++) {
      const tick = sleep(1000 / POSTS_PER_SECOND);
      const sentAt = now();
      const samples = Array.from({ length: SAMPLES_PER_LATENCY_POST }, (_, j) => {
        const t = (i * SAMPLES_PER_LATENCY_POST + j) * 10;
        return { t, bt: 150 + t / 1000, et: 230, channels: i < warmUp ? {} : { sentAt } };
      });
      const response = await fetch(`${bench.url}/ingest/v1/roast/${latencyMachine.batchId}/samples`, {
        method: 'POST',
        headers: { authorization: `Bearer ${latencyMachine.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ seq: i, samples }),
      });
      if (response.status !== 202) throw new Error(`latency post ${i}: ${response.status}`);
      await response.arrayBuffer();
      await tick;
    }
    await sleep(1000);
    worker.postMessage({ type: 'stop' });
    const result = await fromWorker('latencies');
    await worker.terminate();
    const latencies = (result.latencies as Float64Array).sort();
    const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
    const expected = posts * SAMPLES_PER_LATENCY_POST * WATCHERS;
    printTable(`telemetry fan-out on ${bench.kind} + ${store} store: ${WATCHERS} SSE watchers of one batch, ${POSTS_PER_SECOND} posts/s of ${SAMPLES_PER_LATENCY_POST} samples for ${LATENCY_SECONDS} s`, [
      {
        'samples delivered': latencies.length,
        expected,
        'p50 ms': pct(50).toFixed(1),
        'p99 ms': pct(99).toFixed(1),
        'max ms': latencies[latencies.length - 1].toFixed(1),
      },
    ]);
    console.log(`post → watcher p99: ${pct(99).toFixed(1)} ms  (goal < 50 ms)${latencies.length === expected ? '' : '  — SOME SAMPLES NOT DELIVERED'}`);
    await live.discard(organizationId, latencyMachine.batchId);
    record({ measure: `post → watcher p99, ${WATCHERS} watchers, 1 process (${store})`, goal: '< 50 ms', figure: pct(99), unit: 'ms', pass: pct(99) < 50 && latencies.length === expected, note: `p50 ${pct(50).toFixed(1)} ms` });
    return { p50Ms: pct(50), p99Ms: pct(99) };
  }
}

export interface IngestLoad {
  url: string;
  target: 'full' | 'bare';
  duration: number;
  tails: string[];
  machines: { token: string; batchId: string }[];
}

/** The ingest load, built in the generator's process (bench/load-child.ts): each connection one machine posting back to back. */
export function ingestLoad({ url, target, duration, tails, machines }: IngestLoad): autocannon.Options {
  let next = 0;
  return {
    url,
    connections: machines.length,
    duration,
    setupClient(client) {
      const machine = machines[next++ % machines.length];
      let seq = 0;
      const path = target === 'full' ? `/ingest/v1/roast/${machine.batchId}/samples` : `/bench/bare/ingest/${machine.batchId}`;
      client.setRequests([
        {
          method: 'POST',
          path,
          headers: { authorization: `Bearer ${machine.token}`, 'content-type': 'application/json' },
          setupRequest(request) {
            const n = seq++;
            request.body = `{"seq":${n},${tails[n % tails.length]}`;
            return request;
          },
        },
      ]);
    },
  };
}

/**
 * A load run with the server process's CPU time per request beside the rates: on a shared machine the rates
 * swing with the neighbours' load, the CPU spent per post much less. The load generator runs in its own
 * process and is not counted, nor are the database and Redis.
 */
async function measured(run: () => ReturnType<typeof load>, seconds: number) {
  const before = process.cpuUsage();
  const result = await run();
  const used = process.cpuUsage(before);
  return { ...result, cpuMicrosPerRequest: Math.round((used.user + used.system) / Math.max(1, result.requestsPerSecond * seconds)) };
}

/** The rest of a post body after `{"seq":N,`: `count` samples with two extra channels, like a drum roaster's bridge. */
function bodyTail(count: number): string {
  const samples = Array.from({ length: count }, (_, i) => ({
    t: i * 100,
    bt: Math.round((150 + i * 0.3) * 10) / 10,
    et: Math.round((230 - i * 0.1) * 10) / 10,
    channels: { inlet: 260.5, burner: 65 },
  }));
  return `"samples":${JSON.stringify(samples)}}`;
}

/**
 * The watchers' thread: opens every stream, then records, for each sample received, the time since its post
 * was sent (stamped in the sample's `sentAt` channel), until told to stop.
 *
 * A real watcher has a machine of its own; these 1,000 share one thread, so what each costs to read is
 * queueing delay no real watcher sees, and it would dominate the measurement. Each is therefore a plain
 * socket that checks the response head once and then only picks the `sentAt` stamps out of the bytes, one
 * clock reading per arrival.
 */
async function runWatchers({ url, apiKey, watchers }: { url: string; apiKey: string; watchers: number }) {
  const latencies: number[] = [];
  const sockets: Socket[] = [];
  const { hostname, port, pathname } = new URL(url);
  const request = `GET ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${apiKey}\r\nAccept: text/event-stream\r\n\r\n`;
  const stamp = /"sentAt":([0-9.e+-]+)/g;
  const open = () =>
    new Promise<void>((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => socket.write(request));
      socket.setEncoding('latin1');
      socket.on('error', reject);
      let head = true;
      // Text after the last complete message, in case a message is split between two reads.
      let carry = '';
      socket.on('data', (chunk: string) => {
        const arrived = now();
        let text = carry + chunk;
        if (head) {
          if (!text.startsWith('HTTP/1.1 200 ')) return reject(new Error(`stream answered ${text.split('\r\n')[0]}`));
          head = false;
          resolve();
        }
        const complete = text.lastIndexOf('\n\n') + 2;
        carry = text.slice(complete);
        text = text.slice(0, complete);
        for (const match of text.matchAll(stamp)) latencies.push(arrived - Number(match[1]));
      });
      sockets.push(socket);
    });
  for (let i = 0; i < watchers; i += 50) await Promise.all(Array.from({ length: Math.min(50, watchers - i) }, open));
  parentPort!.postMessage({ type: 'ready' });
  parentPort!.on('message', (message: { type: string }) => {
    if (message.type !== 'stop') return;
    for (const socket of sockets) socket.destroy();
    const array = Float64Array.from(latencies);
    parentPort!.postMessage({ type: 'latencies', latencies: array }, [array.buffer]);
  });
}

if (!isMainThread && workerData?.role === 'telemetry-watchers') await runWatchers(workerData);
else if (import.meta.url === `file://${process.argv[1]}`) await benchTelemetry();
