// Fan-out across API processes (issue 40's goal: post → watcher p99 < 50 ms at 10,000 watchers over 2 API
// processes), on PostgreSQL + Redis as an operator runs them: FANOUT_PROCESSES (2) `serve --no-workers` on a
// fresh database cloned from the migrated template, Redis as the live store, the per-organization stream cap
// raised through FIRSTCRACK_STREAMS_PER_ORGANIZATION (the per-credential cap stays the default: the watchers
// hold one viewer key per 20 streams a process, as many people watching would). An organization, one live
// batch on a bridge machine; FANOUT_WATCHERS (10,000) SSE watchers of it spread evenly over the processes, in
// a child process of their own (FANOUT_WATCHER_THREADS worker threads, 1 by default) so their reading shares
// no server's event loop; the bridge posts to the first process at the 10 Hz logger rate of bench/telemetry.ts
// (5 posts a second of 2 samples) for FANOUT_SECONDS (20), after a second of unmeasured warm-up. Reported:
// post → watcher latency per sample received (each sample stamped with its post's send time), p50/p99 overall
// and per process, messages expected and received, and each API process's RSS and CPU from /proc.
// FANOUT_CPU_PROF=1 writes each API process's CPU profile (--cpu-prof) to bench/.results/, with the measured window
// on the profiles' clock (window.json).
//
// `DATABASE_URL=… REDIS_URL=… node --import tsx bench/fanout.ts`; `FANOUT_WATCHERS=1000` for a quick run.
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { createOrganization } from '../src/auth/organizations.js';
import { createApiKey } from '../src/auth/credentials.js';
import { PostgresDatabase } from '../src/db/client.js';
import { MAX_STREAMS_PER_CREDENTIAL } from '../src/streaming/fan-out.js';
import { API_ONLY_READY, startProcess, type StartedProcess } from '../src/testing/processes.js';
import { preparePostgresTemplate, withDatabase } from '../src/testing/template.js';
import { announce, printTable, record } from './lib.js';

const WATCHERS = Number(process.env.FANOUT_WATCHERS ?? 10_000);
const PROCESSES = Number(process.env.FANOUT_PROCESSES ?? 2);
const SECONDS = Number(process.env.FANOUT_SECONDS ?? 20);
const WATCHER_THREADS = Number(process.env.FANOUT_WATCHER_THREADS ?? 1);
/** A 10 Hz logger whose bridge posts every 200 ms, as in bench/telemetry.ts's fan-out part. */
const POSTS_PER_SECOND = 5;
const SAMPLES_PER_POST = 2;
/** Streams opened at once while connecting (spread over the processes). */
const OPENING_AT_ONCE = 100;
/** Seconds the open streams are left to settle, then watched with nothing posted, before the posts. */
const QUIET_SECONDS = 3;

/** Absolute time in ms with sub-millisecond precision: the wall clock at the process's start plus its monotonic clock, so comparable across processes of one machine. */
const now = () => performance.timeOrigin + performance.now();

interface WatchPlan {
  urls: string[];
  batchId: string;
  /** Watcher i uses key floor(i / (keyStreams × processes)) on process i % processes: at most the default per-credential cap on each. */
  keys: string[];
  watchers: number;
  /** This thread's watchers: i from `from` to `to` (exclusive). */
  from: number;
  to: number;
}

interface WatchResult {
  /** Latencies in ms, per API process. */
  latencies: Float64Array[];
  /** Watchers whose stream ended before the run did (cut off, closed by the server). */
  ended: number;
}

export async function benchFanOut() {
  announce(`fan-out, ${WATCHERS} watchers over ${PROCESSES} API processes`);
  const base = process.env.DATABASE_URL;
  const redisUrl = process.env.REDIS_URL;
  if (!base || !redisUrl) {
    console.log('skipped: the fan-out across API processes runs on PostgreSQL + Redis (set DATABASE_URL and REDIS_URL)');
    return null;
  }
  // Sockets: the watchers' process holds every watcher's, each API process its share and its pools.
  raiseOpenFileLimit(WATCHERS + 256);
  const template = await preparePostgresTemplate(base);
  const name = `fc_fanout_${Date.now().toString(36)}`;
  const admin = PostgresDatabase.open(base, 1);
  await admin.query(`create database ${name} template ${template}`);
  const databaseUrl = withDatabase(base, name);
  const perProcess = Math.ceil(WATCHERS / PROCESSES);
  const profileDir = fileURLToPath(new URL(`./.results/fanout-prof-${new Date().toISOString().replace(/[:.]/g, '-')}/`, import.meta.url));
  if (process.env.FANOUT_CPU_PROF === '1') mkdirSync(profileDir, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    DATABASE_APP_URL: undefined,
    REDIS_URL: redisUrl,
    FIRSTCRACK_SECRET_KEY: process.env.FIRSTCRACK_SECRET_KEY ?? randomBytes(32).toString('base64'),
    FIRSTCRACK_STREAMS_PER_ORGANIZATION: String(perProcess),
    PORT: '0',
    LOG_LEVEL: 'warn',
  };
  const nodeArgs = process.env.FANOUT_CPU_PROF === '1' ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const processes: StartedProcess[] = [];
  let watchers: ChildProcess | undefined;
  const owner = PostgresDatabase.open(databaseUrl, 2);
  try {
    for (let i = 0; i < PROCESSES; i++) processes.push(await startProcess(['serve', '--no-workers'], env, API_ONLY_READY, nodeArgs));
    const urls = processes.map((p) => p.url!);
    const pids = processes.map((p) => p.child.pid!);
    const idle = pids.map(procStats);

    // The organization, its watchers' keys (viewers), the machine, its bridge token and the live batch.
    const { organizationId: orgId, apiKey } = await createOrganization(owner, 'Fan-out roastery', 'enterprise');
    const keyStreams = MAX_STREAMS_PER_CREDENTIAL * PROCESSES;
    const keys = await owner.transaction(async (tx) => {
      const made: string[] = [];
      for (let k = 0; k < Math.ceil(WATCHERS / keyStreams); k++) made.push((await createApiKey(tx, orgId, 'viewer', [], `watcher ${k}`)).apiKey);
      return made;
    });
    const rpc = async (operation: string, input: unknown) => {
      const response = await fetch(`${urls[0]}/rpc/v1/${operation}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(input),
      });
      if (!response.ok) throw new Error(`${operation}: ${response.status} ${await response.text()}`);
      return (await response.json()) as any;
    };
    const machine = await rpc('catalog.machine.registerMachine', { name: 'Fan-out roaster', code: 'FANOUT-1', connectivity: 'bridge' });
    const { token } = await rpc('catalog.machine.issueMachineBridgeToken', { machineId: machine.id });
    const batch = await rpc('production.roast.startRoastBatch', { batchNumber: 'FANOUT-1', machineId: machine.id, chargeWeightKg: '12' });

    // The watchers, in their own process.
    watchers = fork(fileURLToPath(import.meta.url), ['watchers'], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'advanced' });
    const fromWatchers = <T>(type: string) =>
      new Promise<T>((resolve, reject) => {
        const onMessage = (message: { type: string }) => {
          if (message.type !== type) return;
          watchers!.off('message', onMessage);
          watchers!.off('exit', onExit);
          resolve(message as T);
        };
        const onExit = (code: number | null) => reject(new Error(`the watchers' process exited ${code}`));
        watchers!.on('message', onMessage);
        watchers!.once('exit', onExit);
      });
    watchers.send({ type: 'watch', plan: { urls, batchId: batch.id, keys, watchers: WATCHERS, from: 0, to: WATCHERS } satisfies WatchPlan });
    const { connectMs } = await fromWatchers<{ connectMs: number }>('ready');
    // What the open streams cost with nothing posted (heartbeats, credential checks, the connections' upkeep),
    // for comparison, once the connections' own work has settled.
    await sleep(QUIET_SECONDS * 1000);
    const connected = pids.map(procStats);
    const quietFrom = performance.now();
    await sleep(QUIET_SECONDS * 1000);
    const quiet = pids.map(procStats);
    const quietSeconds = (performance.now() - quietFrom) / 1000;

    // The bridge: a second of unstamped warm-up (not counted), then the measured posts.
    const warmUp = POSTS_PER_SECOND;
    const posts = SECONDS * POSTS_PER_SECOND;
    let before = connected;
    const rssPeak = connected.map((s) => s.rssMb);
    let measuredFrom = 0;
    let lateTicks = 0;
    /** The measured window on the monotonic clock a CPU profile's timestamps are on (µs). */
    let monotonicFrom = 0n;
    for (let i = 0; i < warmUp + posts; i++) {
      const tick = sleep(1000 / POSTS_PER_SECOND);
      if (i === warmUp) {
        before = pids.map(procStats);
        measuredFrom = performance.now();
        monotonicFrom = process.hrtime.bigint();
      }
      const sentAt = now();
      const samples = Array.from({ length: SAMPLES_PER_POST }, (_, j) => {
        const t = (i * SAMPLES_PER_POST + j) * 100;
        return { t, bt: 150 + t / 1000, et: 230, channels: i < warmUp ? {} : { sentAt } };
      });
      const response = await fetch(`${urls[0]}/ingest/v1/roast/${batch.id}/samples`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ seq: i, samples }),
      });
      if (response.status !== 202) throw new Error(`post ${i}: ${response.status} ${await response.text()}`);
      await response.arrayBuffer();
      pids.forEach((pid, p) => (rssPeak[p] = Math.max(rssPeak[p], procStats(pid).rssMb)));
      if (now() - sentAt > 1000 / POSTS_PER_SECOND) lateTicks++;
      await tick;
    }
    const postingSeconds = (performance.now() - measuredFrom) / 1000;
    watchers.send({ type: 'stop' });
    const result = await fromWatchers<WatchResult & { type: string; cpuMs: number; wallMs: number }>('latencies');
    // The processes' CPU is counted until the last sample arrived (a fan-out running behind works on after the posts end).
    const measuredSeconds = (performance.now() - measuredFrom) / 1000;
    const after = pids.map(procStats);
    if (process.env.FANOUT_CPU_PROF === '1') {
      const window = { fromUs: Number(monotonicFrom / 1000n), toUs: Number(process.hrtime.bigint() / 1000n), pids };
      writeFileSync(`${profileDir}window.json`, JSON.stringify(window) + '\n');
    }
    const load = loadavg();

    const all = sorted(concat(result.latencies));
    const expected = posts * SAMPLES_PER_POST * WATCHERS;
    const expectedPer = (p: number) => posts * SAMPLES_PER_POST * Math.ceil((WATCHERS - p) / PROCESSES);
    const rows = processes.map((_, p) => {
      const own = sorted(result.latencies[p]);
      const cpuS = after[p].cpuS - before[p].cpuS;
      return {
        process: `api ${p + 1}${p === 0 ? ' (bridge posts here)' : ''}`,
        watchers: Math.ceil((WATCHERS - p) / PROCESSES),
        'received / expected': `${own.length} / ${expectedPer(p)}`,
        'p50 ms': pct(own, 50).toFixed(1),
        'p99 ms': pct(own, 99).toFixed(1),
        'max ms': (own.at(-1) ?? NaN).toFixed(1),
        'CPU %': ((100 * cpuS) / measuredSeconds).toFixed(0),
        'of it sys %': ((100 * (after[p].sysS - before[p].sysS)) / measuredSeconds).toFixed(0),
        'quiet CPU %': ((100 * (quiet[p].cpuS - connected[p].cpuS)) / quietSeconds).toFixed(0),
        // One write per watcher per post; what the process spent above its quiet rate, per write.
        'CPU µs / write': (((cpuS - ((quiet[p].cpuS - connected[p].cpuS) * measuredSeconds) / quietSeconds) * 1e6) / Math.max(1, own.length / SAMPLES_PER_POST)).toFixed(1),
        'RSS idle MB': idle[p].rssMb.toFixed(0),
        'RSS watched MB': connected[p].rssMb.toFixed(0),
        'RSS peak MB': rssPeak[p].toFixed(0),
      };
    });
    printTable(
      `fan-out on PostgreSQL + Redis: ${WATCHERS} SSE watchers of one batch over ${PROCESSES} API processes, ${POSTS_PER_SECOND} posts/s of ${SAMPLES_PER_POST} samples to api 1 for ${SECONDS} s`,
      rows,
    );
    const p50 = pct(all, 50);
    const p99 = pct(all, 99);
    const loadNote = `load average ${load.map((l) => l.toFixed(1)).join(' / ')}`;
    console.log(
      `watchers connected in ${(connectMs / 1000).toFixed(1)} s; posts took ${postingSeconds.toFixed(1)} s, CPU counted over ${measuredSeconds.toFixed(1)} s; watchers' process CPU ${((100 * result.cpuMs) / result.wallMs).toFixed(0)} % while watching` +
        `${result.ended ? `; ${result.ended} streams ENDED early` : ''}${lateTicks ? `; ${lateTicks} posts answered later than their 200 ms tick` : ''}; ${loadNote}`,
    );
    console.log(`post → watcher p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms (goal < 50 ms); received ${all.length} of ${expected}${all.length === expected ? '' : ' — SOME SAMPLES NOT DELIVERED'}`);
    if (process.env.FANOUT_CPU_PROF === '1') console.log(`CPU profiles (written as the processes exit): ${profileDir}`);
    record({
      measure: `post → watcher p99, ${WATCHERS} watchers over ${PROCESSES} processes (Redis)`,
      goal: '< 50 ms',
      figure: p99,
      unit: 'ms',
      pass: p99 < 50 && all.length === expected,
      note:
        `p50 ${p50.toFixed(1)} ms; ${all.length}/${expected} received; ` +
        rows.map((r) => `${r.process.split(' (')[0]}: CPU ${r['CPU %']} %, RSS ${r['RSS idle MB']}→${r['RSS peak MB']} MB`).join('; ') +
        `; ${loadNote}`,
    });
    return { p50Ms: p50, p99Ms: p99, received: all.length, expected, processes: rows };
  } finally {
    watchers?.kill();
    await owner.close();
    await Promise.all(processes.map((p) => stop(p.child)));
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.close();
  }
}

/** Lets this process (and the processes it starts) hold `needed` files, up to the hard limit, as `ulimit -n` would. */
function raiseOpenFileLimit(needed: number) {
  const line = /Max open files\s+(\d+|unlimited)\s+(\d+|unlimited)/.exec(readFileSync('/proc/self/limits', 'utf8'));
  if (!line) return;
  const [soft, hard] = [line[1], line[2]].map((v) => (v === 'unlimited' ? Infinity : Number(v)));
  if (soft >= needed) return;
  if (hard < needed) throw new Error(`${needed} open files are needed and the hard limit is ${hard}: raise it (ulimit -Hn, limits.conf) or set FANOUT_WATCHERS lower`);
  execFileSync('prlimit', ['--pid', String(process.pid), `--nofile=${hard === Infinity ? 'unlimited' : hard}:${hard === Infinity ? 'unlimited' : hard}`]);
}

const TICKS = 100;
/** A process's CPU seconds (user + system, and system alone: the kernel's socket work) and RSS, from /proc. */
function procStats(pid: number): { cpuS: number; sysS: number; rssMb: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
  return { cpuS: (Number(fields[11]) + Number(fields[12])) / TICKS, sysS: Number(fields[12]) / TICKS, rssMb: rssKb / 1024 };
}

async function stop(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(35_000)]);
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

const concat = (arrays: Float64Array[]) => {
  const out = new Float64Array(arrays.reduce((n, a) => n + a.length, 0));
  let at = 0;
  for (const a of arrays) {
    out.set(a, at);
    at += a.length;
  }
  return out;
};
const sorted = (values: Float64Array) => Float64Array.from(values).sort();
const pct = (values: Float64Array, p: number) => (values.length === 0 ? NaN : values[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]);

/** A growable array of latencies. */
class Latencies {
  values = new Float64Array(1 << 16);
  length = 0;
  push(value: number) {
    if (this.length === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.length++] = value;
  }
  take = () => this.values.slice(0, this.length);
}

/**
 * One thread's watchers: opens each stream, then records, for every sample received, the time since its post
 * was sent (its `sentAt` channel), by the process the watcher is on, until told to stop.
 *
 * A real watcher has a machine of its own; these share a thread, so what each costs to read is queueing no
 * real watcher sees. Each is therefore a plain socket that checks the response head once and then only picks
 * the `sentAt` stamps out of the bytes, one clock reading per arrival.
 */
async function watch(plan: WatchPlan, port: { postMessage(message: unknown): void; on(event: 'message', listener: (message: { type: string }) => void): void }) {
  const { urls, batchId, keys, from, to } = plan;
  const processes = urls.length;
  const latencies = urls.map(() => new Latencies());
  const sockets: Socket[] = [];
  let stopping = false;
  let ended = 0;
  const stamp = /"sentAt":([0-9.e+-]+)/g;
  const keyStreams = MAX_STREAMS_PER_CREDENTIAL * processes;
  const open = (i: number) =>
    new Promise<void>((resolve, reject) => {
      const p = i % processes;
      const { hostname, port } = new URL(urls[p]);
      const request = `GET /stream/v1/roast/${batchId} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${keys[Math.floor(i / keyStreams)]}\r\nAccept: text/event-stream\r\n\r\n`;
      const socket = connect(Number(port), hostname, () => socket.write(request));
      socket.setEncoding('latin1');
      socket.on('error', reject);
      socket.on('close', () => {
        if (!stopping) ended++;
      });
      let head = true;
      // Text after the last complete message, in case a message is split between two reads.
      let carry = '';
      const own = latencies[p];
      socket.on('data', (chunk: string) => {
        const arrived = now();
        let text = carry + chunk;
        if (head) {
          if (!text.startsWith('HTTP/1.1 200 ')) return reject(new Error(`stream ${i} on api ${p + 1} answered: ${text.slice(0, 400)}`));
          head = false;
          resolve();
        }
        const end = text.lastIndexOf('\n\n');
        if (end < 0) {
          carry = text;
          return;
        }
        carry = text.slice(end + 2);
        text = text.slice(0, end + 2);
        for (const match of text.matchAll(stamp)) own.push(arrived - Number(match[1]));
      });
      sockets.push(socket);
    });
  const opening = performance.now();
  for (let i = from; i < to; i += OPENING_AT_ONCE) await Promise.all(Array.from({ length: Math.min(OPENING_AT_ONCE, to - i) }, (_, j) => open(i + j)));
  port.postMessage({ type: 'ready', connectMs: performance.now() - opening });
  port.on('message', async (message) => {
    if (message.type !== 'stop') return;
    // Samples still on their way are waited for (until none arrived for a second, at most 10 s), so that a
    // fan-out running behind counts as late, not as lost.
    const received = () => latencies.reduce((n, l) => n + l.length, 0);
    for (let last = -1, quiet = 0, waited = 0; quiet < 1000 && waited < 10_000; waited += 250) {
      await sleep(250);
      quiet = received() === last ? quiet + 250 : 0;
      last = received();
    }
    stopping = true;
    for (const socket of sockets) socket.destroy();
    port.postMessage({ type: 'latencies', latencies: latencies.map((l) => l.take()), ended } satisfies WatchResult & { type: string });
  });
}

/** The watchers' process: its watchers in WATCHER_THREADS threads (this one when 1), their results merged, with the process's CPU time from ready to stop. */
async function watchersProcess() {
  let cpuBefore = process.cpuUsage();
  let readyAt = performance.now();
  const send = (message: { type: string; [field: string]: unknown }) => {
    if (message.type === 'ready') {
      cpuBefore = process.cpuUsage();
      readyAt = performance.now();
    }
    if (message.type === 'latencies') {
      const cpu = process.cpuUsage(cpuBefore);
      message = { ...message, cpuMs: (cpu.user + cpu.system) / 1000, wallMs: performance.now() - readyAt };
    }
    process.send!(message);
  };
  process.on('message', async (message: { type: string; plan?: WatchPlan }) => {
    if (message.type !== 'watch') return;
    const plan = message.plan!;
    if (WATCHER_THREADS <= 1) {
      await watch(plan, { postMessage: (m) => send(m as { type: string }), on: (_event, listener) => process.on('message', listener) }).catch((error) => {
        console.error(error);
        process.exit(1);
      });
      return;
    }
    // A worker does not inherit `--import tsx`: it registers tsx itself, then loads this file.
    const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
    const share = Math.ceil(plan.watchers / WATCHER_THREADS);
    const workers = Array.from(
      { length: WATCHER_THREADS },
      (_, t) =>
        new Worker(`import(${tsx}).then(({ register }) => { register(); return import(${JSON.stringify(import.meta.url)}); });`, {
          eval: true,
          workerData: { role: 'fanout-watchers', plan: { ...plan, from: t * share, to: Math.min(plan.watchers, (t + 1) * share) } },
        }),
    );
    const all = (type: string) =>
      Promise.all(
        workers.map(
          (w) =>
            new Promise<any>((resolve, reject) => {
              const onMessage = (m: { type: string }) => {
                if (m.type !== type) return;
                w.off('message', onMessage);
                resolve(m);
              };
              w.on('message', onMessage);
              w.once('error', reject);
            }),
        ),
      );
    const ready = await all('ready').catch((error) => {
      console.error(error);
      process.exit(1);
    });
    send({ type: 'ready', connectMs: Math.max(...ready.map((r: { connectMs: number }) => r.connectMs)) });
    process.on('message', async (m: { type: string }) => {
      if (m.type !== 'stop') return;
      const results = all('latencies');
      for (const w of workers) w.postMessage({ type: 'stop' });
      const answers = (await results) as WatchResult[];
      send({
        type: 'latencies',
        latencies: plan.urls.map((_, p) => concat(answers.map((a) => a.latencies[p]))),
        ended: answers.reduce((n, a) => n + a.ended, 0),
      });
    });
  });
}

if (!isMainThread && workerData?.role === 'fanout-watchers') await watch(workerData.plan, parentPort!);
else if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === 'watchers') await watchersProcess();
else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await benchFanOut();
  process.exit(0);
}
