import { fork, execFile, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type autocannon from 'autocannon';
import { loadConfig, type Config } from '../src/config.js';
import { createApp, type AppOptions, type RunningApp } from '../src/app.js';
import { MODULES } from '../src/modules/index.js';
import { appRoleUrl } from '../src/config.js';
import { PgliteDatabase, PostgresDatabase } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { limitHeapGrowth } from '../src/lib/heap.js';
import { keepWorkerThreadStarted } from '../src/lib/off-thread.js';
import { checkPostOffThread } from '../src/modules/production/roast/telemetry/http.js';
import type { Databases } from '../src/db/open.js';
import { GENEROUS_WINDOWS } from '../src/testing/harness.js';
import { preparePostgresTemplate, withDatabase } from '../src/testing/template.js';
import type { LoadAnswer, LoadRequest } from './load-child.js';

const execFileAsync = promisify(execFile);

/**
 * Benchmarks run the real service on a fresh database: PostgreSQL when DATABASE_URL is set (the
 * configuration the goals are stated for), otherwise in-memory PGlite. Rate limits are raised so the
 * limiter is exercised but never refuses.
 */
export async function startBenchApp(
  options: Partial<AppOptions> = {},
  /** e.g. `{ redisUrl }` for a benchmark that measures the server-mode stores, or a scratch `dataDir`. */
  configOverrides: Partial<Config> = {},
): Promise<{ app: RunningApp; url: string; kind: string; poolSize: number; /** The bench database's owner URL (PostgreSQL only). */ databaseUrl?: string; close(): Promise<void> }> {
  const base = loadConfig();
  // A server needs its secret key (sealed page cursors, encrypted secrets): a benchmark's own when none is set.
  const secretKey = base.secretKey ?? (base.databaseUrl ? randomBytes(32).toString('base64') : undefined);
  const config = { ...base, secretKey, logLevel: process.env.BENCH_LOG_LEVEL ?? 'silent', redisUrl: undefined, ...configOverrides };
  // As `firstcrack serve` runs: measured with the heap setting it ships with.
  limitHeapGrowth(config.heapGrowthPercent);
  keepWorkerThreadStarted(checkPostOffThread);
  let databases: Databases;
  let drop = async () => {};
  let databaseUrl: string | undefined;
  if (config.databaseUrl) {
    const template = await preparePostgresTemplate(config.databaseUrl);
    const name = `fc_bench_${Date.now().toString(36)}`;
    const admin = PostgresDatabase.open(config.databaseUrl, 1);
    await admin.query(`create database ${name} template ${template}`);
    // Both pools alike: a bare route reading through the owner is measured on the same footing as the service.
    databaseUrl = withDatabase(config.databaseUrl, name);
    const owner = PostgresDatabase.open(databaseUrl, config.databasePoolSize);
    const service = PostgresDatabase.open(appRoleUrl(withDatabase(config.databaseUrl, name)), config.databasePoolSize);
    databases = { owner, service, close: async () => void (await Promise.all([owner.close(), service.close()])) };
    drop = async () => {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.close();
    };
  } else {
    const db = await PgliteDatabase.open({});
    await migrate(db);
    databases = { owner: db, service: db, close: () => db.close() };
  }
  const app = await createApp(config, { modules: MODULES, rateWindows: GENEROUS_WINDOWS, ...options, databases });
  const url = await app.server.listen({ port: 0, host: '127.0.0.1' });
  return {
    app,
    url,
    kind: databases.owner.kind,
    poolSize: config.databasePoolSize,
    databaseUrl,
    async close() {
      await app.close();
      await databases.close();
      await drop();
    },
  };
}

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  /** The generator that made the load: `wrk` or `autocannon` (each in its own process). */
  generator?: string;
}

/**
 * Load from a separate process, never the server's: `wrk` (Debian's package; C, so it takes the least of
 * the machine's cores) for a fixed request, autocannon in a forked child (bench/load-child.ts) otherwise,
 * or when wrk is not installed. `scenario` names a module's exported function that builds autocannon's
 * options from plain data in the child, for load that needs code per request (a body per post).
 */
export async function load(options: Partial<autocannon.Options>, scenario?: { module: string; name: string; data: unknown }): Promise<LoadResult> {
  const merged = { connections: 32, duration: 5, ...options } as autocannon.Options;
  if (!scenario && wrkPath() && wrkCanRun(merged)) return wrk(merged);
  return autocannonChild(scenario ? { scenario } : { options: merged });
}

let wrkFound: string | null | undefined;
function wrkPath(): string | null {
  if (wrkFound === undefined) {
    wrkFound = process.env.BENCH_GENERATOR === 'autocannon' ? null : ['/usr/bin/wrk', '/usr/local/bin/wrk'].find((p) => existsSync(p)) ?? null;
  }
  return wrkFound;
}

/** wrk takes one fixed request: a URL, headers, and a method and body set by a small Lua script. */
function wrkCanRun(options: autocannon.Options): boolean {
  const allowed = new Set(['url', 'connections', 'duration', 'headers', 'method', 'body', 'workers']);
  return Object.keys(options).every((k) => allowed.has(k)) && (options.body === undefined || typeof options.body === 'string');
}

async function wrk(options: autocannon.Options): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), 'fc-wrk-'));
  const script = join(dir, 'request.lua');
  const lua = [
    `wrk.method = ${JSON.stringify(options.method ?? 'GET')}`,
    ...(options.body !== undefined ? [`wrk.body = ${luaString(String(options.body))}`] : []),
    ...Object.entries(options.headers ?? {}).map(([k, v]) => `wrk.headers[${luaString(k)}] = ${luaString(String(v))}`),
    `done = function(summary, latency, requests)`,
    `  local non2xx = summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout`,
    `  io.write(string.format("FCRESULT %d %d %d %d %d\\n", summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), non2xx))`,
    `end`,
  ].join('\n');
  writeFileSync(script, lua);
  try {
    const connections = options.connections ?? 32;
    const { stdout } = await execFileAsync(wrkPath()!, ['-t', '1', '-c', String(connections), '-d', `${options.duration ?? 5}s`, '--timeout', '10s', '-s', script, String(options.url)], { maxBuffer: 1 << 20 });
    const match = /FCRESULT (\d+) (\d+) (\d+) (\d+) (\d+)/.exec(stdout);
    if (!match) throw new Error(`wrk printed no result: ${stdout}`);
    const [requests, durationUs, p50Us, p99Us, non2xx] = match.slice(1).map(Number);
    return { requestsPerSecond: requests / (durationUs / 1e6), p50Ms: p50Us / 1000, p99Ms: p99Us / 1000, non2xx, generator: 'wrk' };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const luaString = (text: string) => JSON.stringify(text).replace(/\\u([0-9a-fA-F]{4})/g, (_, hex) => `\\u{${hex}}`);

let child: ChildProcess | undefined;
/** One forked generator for the whole run (its JIT warm), started on first use and let go at exit. */
function loadChild(): ChildProcess {
  if (child && child.exitCode === null) return child;
  child = fork(new URL('./load-child.ts', import.meta.url).pathname, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  child.unref();
  (child as unknown as { channel?: { unref(): void } }).channel?.unref();
  return child;
}

function autocannonChild(request: Omit<LoadRequest, 'type'>): Promise<LoadResult> {
  const c = loadChild();
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`the load generator exited ${code}`));
    const onMessage = (message: LoadAnswer | { type: string }) => {
      if (message.type !== 'result') return;
      c.off('message', onMessage);
      c.off('exit', onExit);
      const { requestsPerSecond, p50Ms, p99Ms, non2xx } = message as LoadAnswer;
      resolve({ requestsPerSecond, p50Ms, p99Ms, non2xx, generator: 'autocannon (child process)' });
    };
    c.on('message', onMessage);
    c.once('exit', onExit);
    c.send({ type: 'load', ...request });
  });
}

/** The machine as a bench starts: its cores and load, said first so a figure can be read against them. */
export function machineState(): { cores: number; loadavg: [number, number, number]; note: string } {
  const [one, five, fifteen] = loadavg();
  const cores = availableParallelism();
  const note = `${cores} cores, load average ${one.toFixed(2)} / ${five.toFixed(2)} / ${fifteen.toFixed(2)} (1 / 5 / 15 min)`;
  return { cores, loadavg: [one, five, fifteen], note };
}

export function announce(title: string): void {
  console.log(`\n=== ${title}: ${machineState().note}`);
}

/** The spread of a set of ratios: (max − min) / median. */
export const spread = (values: number[]) => (Math.max(...values) - Math.min(...values)) / median(values);

/**
 * Paired rounds until the ratios' spread is below `bound` (at least `minRounds`, at most `maxRounds`):
 * each round measures both sides back to back, so drift on a shared machine hits both alike. Answers the
 * median ratio, the rounds, and whether the spread settled.
 */
export async function untilSettled(
  round: (n: number) => Promise<number>,
  { bound = Number(process.env.BENCH_SPREAD ?? 0.15), minRounds = Number(process.env.BENCH_ROUNDS ?? 3), maxRounds = Number(process.env.BENCH_MAX_ROUNDS ?? 8) } = {},
): Promise<{ ratio: number; ratios: number[]; spread: number; settled: boolean; bound: number }> {
  const ratios: number[] = [];
  for (let n = 1; n <= maxRounds; n++) {
    ratios.push(await round(n));
    if (n >= minRounds && spread(lastN(ratios, minRounds)) <= bound) break;
  }
  // Settled: the last minRounds rounds, whose spread was checked. Not settled: the median of every round.
  const window = lastN(ratios, minRounds);
  const s = spread(window);
  const settled = s <= bound;
  return { ratio: median(settled ? window : ratios), ratios, spread: s, settled, bound };
}
const lastN = <T>(values: T[], n: number) => values.slice(Math.max(0, values.length - n));

export interface Measure {
  measure: string;
  goal: string;
  figure: number;
  unit: string;
  pass: boolean;
  /** How it was measured and how settled it is (rounds, spread, generator, machine). */
  note?: string;
}

const measures: Measure[] = [];
/** Records a measure for the summary `npm run bench` ends with (bench/run.ts). */
export function record(m: Measure): Measure {
  measures.push(m);
  console.log(`→ ${m.measure}: ${formatFigure(m)} (goal ${m.goal}) ${m.pass ? 'PASS' : 'MISS'}${m.note ? `  [${m.note}]` : ''}`);
  return m;
}
export const recorded = (): readonly Measure[] => measures;
export const formatFigure = (m: Pick<Measure, 'figure' | 'unit'>) =>
  m.unit === 'ratio' ? `${(m.figure * 100).toFixed(1)}%` : `${Number.isInteger(m.figure) ? m.figure : m.figure.toFixed(1)} ${m.unit}`;

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export function printTable(title: string, rows: Record<string, string | number>[]) {
  console.log(`\n${title}`);
  console.table(rows);
}

/** How a settled ratio was reached, for a measure's note. */
export const settledNote = (s: { ratios: number[]; spread: number; settled: boolean; bound: number }) =>
  `${s.ratios.length} rounds, spread ${(s.spread * 100).toFixed(0)}% ${s.settled ? '≤' : '> (not settled)'} ${(s.bound * 100).toFixed(0)}%`;

type Queries = { query<T>(sql: string, params?: unknown[]): Promise<T[]> };
export interface CpuSnapshot {
  server: NodeJS.CpuUsage;
  /** µs per backend pid. */
  backends: Map<number, number>;
}

/**
 * CPU time used so far by this process (the server) and by each PostgreSQL backend serving `database`'s
 * database (read from /proc: PostgreSQL on this machine only; none otherwise). On a machine that other work
 * keeps busy, a path's CPU per request is steadier than its throughput, and what the database does for a
 * request counts as much as what the server does, as both share the cores.
 */
export async function cpuSnapshot(database?: Queries): Promise<CpuSnapshot> {
  const backends = new Map<number, number>();
  if (database) {
    const rows = await database.query<{ pid: number }>(`select pid from pg_stat_activity where datname = current_database()`);
    for (const { pid } of rows) {
      try {
        // utime and stime: fields 14 and 15, the 12th and 13th after the command's closing parenthesis.
        const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        backends.set(pid, ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS);
      } catch {
        // Not on this machine, or gone.
      }
    }
  }
  return { server: process.cpuUsage(), backends };
}

/** CPU µs used since `before`: the server's, and the database backends' (a backend started meanwhile counts whole; one gone, not at all). */
export async function cpuSince(before: CpuSnapshot, database?: Queries): Promise<{ server: number; database: number }> {
  const used = process.cpuUsage(before.server);
  const after = await cpuSnapshot(database);
  let backends = 0;
  for (const [pid, micros] of after.backends) backends += micros - (before.backends.get(pid) ?? 0);
  return { server: used.user + used.system, database: backends };
}
/** The kernel's clock ticks per second for /proc's CPU times (USER_HZ: 100 on Linux). */
const CLOCK_TICKS = 100;
