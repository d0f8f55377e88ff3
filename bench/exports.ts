// CSV export of a long list in constant memory (issue 38): one lot's ledger (listGreenLotTransactions) of
// 100,000 and 1,000,000 rows over HTTP at /rpc/v1/inventory.green.listGreenLotTransactions.csv, the service
// in a process of its own (bench/exports-server.ts) whose resident memory is sampled every 20 ms from
// /proc/<pid>/status while the file streams. Against the same rows out of bare `COPY (SELECT …) TO STDOUT`
// (psql on PostgreSQL, into a blob in the server process on PGlite), in the same run, alternating
// COPY / export / COPY so drift hits both. Prints, per row count: seconds, rows/s, the server process's CPU
// seconds (steadier than wall time on a shared machine), peak RSS above the RSS
// before (after a collection), and the ratio export / COPY (the COPYs' mean). EXPORT_BENCH_ROWS lists the row
// counts (default 100000,1000000); EXPORT_BENCH_PROF=<dir> writes the server's CPU profile there. Run alone:
// `DATABASE_URL=… node --import tsx bench/exports.ts`.
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { announce, printTable, record } from './lib.js';
import type { ExportServerMessage, ExportServerRequest } from './exports-server.js';

const ROW_COUNTS = (process.env.EXPORT_BENCH_ROWS ?? '100000,1000000').split(',').map(Number);
/** The goals: memory that does not grow with the list, and time within a small multiple of COPY's. */
const RSS_GOAL_MB = 30;
const COPY_RATIO_GOAL = 10;

function next<T extends ExportServerMessage['type']>(child: ChildProcess, type: T): Promise<Extract<ExportServerMessage, { type: T }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: ExportServerMessage) => {
      if (message.type !== type) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(message as Extract<ExportServerMessage, { type: T }>);
    };
    const onExit = (code: number | null) => reject(new Error(`the export server exited (${code}) before ${type}`));
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

const ask = (child: ChildProcess, request: ExportServerRequest) => child.send(request);

/** The process's CPU time (user + system) in milliseconds, read from /proc (Linux; clock ticks of 10 ms). */
const cpuMsOf = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

/** The process's resident set in bytes, read from /proc (Linux). */
const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

const copySql = (orgId: string, lotId: string) =>
  `copy (select id, lot_id, seq, kind, location_id, delta_kg, reserved_delta_kg, group_id, credential_id, comment, created_at
         from green_lot_ledger where org_id = '${orgId}' and lot_id = '${lotId}' order by seq) to stdout with (format csv, header)`;

/** Bare COPY of the same rows, read to the end by the client as the export is: milliseconds and bytes. */
async function copy(child: ChildProcess, ready: Extract<ExportServerMessage, { type: 'ready' }>, lotId: string): Promise<{ ms: number; bytes: number }> {
  const sql = copySql(ready.orgId, lotId);
  if (!ready.databaseUrl) {
    ask(child, { type: 'copy', sql });
    const { ms, bytes } = await next(child, 'copied');
    return { ms, bytes };
  }
  const started = performance.now();
  const psql = spawn('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', ready.databaseUrl, '-c', sql], { stdio: ['ignore', 'pipe', 'inherit'] });
  let bytes = 0;
  for await (const chunk of psql.stdout) bytes += (chunk as Buffer).length;
  const code = await new Promise<number | null>((resolve) => psql.once('close', resolve));
  if (code !== 0) throw new Error(`psql copy exited ${code}`);
  return { ms: performance.now() - started, bytes };
}

/** One export over HTTP, read to the end: milliseconds, bytes, rows, and the server's RSS before and at its peak. */
async function exportOnce(child: ChildProcess, ready: Extract<ExportServerMessage, { type: 'ready' }>, lotId: string) {
  ask(child, { type: 'gc' });
  await next(child, 'rss');
  const rssBefore = rssOf(child.pid!);
  let peak = rssBefore;
  const sampler = setInterval(() => void (peak = Math.max(peak, rssOf(child.pid!))), 20);
  const cpuBefore = cpuMsOf(child.pid!);
  const started = performance.now();
  const input = encodeURIComponent(JSON.stringify({ greenLotId: lotId }));
  const res = await fetch(`${ready.url}/rpc/v1/inventory.green.listGreenLotTransactions.csv?input=${input}`, { headers: { authorization: `Bearer ${ready.token}` } });
  if (res.status !== 200) throw new Error(`export: ${res.status} ${await res.text()}`);
  let bytes = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
  const ms = performance.now() - started;
  clearInterval(sampler);
  peak = Math.max(peak, rssOf(child.pid!));
  return { ms, bytes, rssBefore, peak, cpuMs: cpuMsOf(child.pid!) - cpuBefore };
}

export async function benchExports(): Promise<void> {
  announce('exports');
  const child = fork(fileURLToPath(new URL('./exports-server.ts', import.meta.url)), ROW_COUNTS.map(String), {
    execArgv: ['--import', 'tsx', '--expose-gc', ...(process.env.EXPORT_BENCH_PROF ? ['--cpu-prof', '--cpu-prof-dir=' + process.env.EXPORT_BENCH_PROF] : [])],
    env: process.env,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    const ready = await next(child, 'ready');
    const mb = (n: number) => n / 1024 / 1024;
    const rows: Record<string, string | number>[] = [];
    for (const count of ROW_COUNTS) {
      const lotId = ready.lots[count];
      const copyBefore = await copy(child, ready, lotId);
      const exported = await exportOnce(child, ready, lotId);
      const copyAfter = await copy(child, ready, lotId);
      const copyMs = (copyBefore.ms + copyAfter.ms) / 2;
      const ratio = exported.ms / copyMs;
      const growth = mb(exported.peak - exported.rssBefore);
      rows.push({
        rows: count,
        'export s': (exported.ms / 1000).toFixed(2),
        'export rows/s': Math.round(count / (exported.ms / 1000)),
        'export MB': mb(exported.bytes).toFixed(0),
        'server CPU s': (exported.cpuMs / 1000).toFixed(2),
        'COPY s': (copyMs / 1000).toFixed(2),
        'COPY MB': mb(copyBefore.bytes).toFixed(0),
        'export / COPY': ratio.toFixed(1),
        'RSS before MB': mb(exported.rssBefore).toFixed(0),
        'RSS growth MB': growth.toFixed(1),
      });
      const label = `${count.toLocaleString('en')} ledger rows`;
      const note = `${ready.kind}; ${Math.round(count / (exported.ms / 1000))} rows/s, ${(exported.ms / 1000).toFixed(1)} s (server CPU ${(exported.cpuMs / 1000).toFixed(1)} s); COPY ${(copyMs / 1000).toFixed(1)} s`;
      record({ measure: `CSV export of ${label}: peak RSS growth`, goal: `< ${RSS_GOAL_MB} MB`, figure: Number(growth.toFixed(1)), unit: 'MB', pass: growth < RSS_GOAL_MB, note });
      record({ measure: `CSV export of ${label}: time / bare COPY`, goal: `≤ ${COPY_RATIO_GOAL}×`, figure: Number(ratio.toFixed(1)), unit: '× COPY', pass: ratio <= COPY_RATIO_GOAL, note });
    }
    printTable(`CSV export over HTTP against bare COPY (${ready.kind}; the server in its own process)`, rows);
  } finally {
    child.disconnect();
    await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(null)));
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await benchExports();
