// The pipeline's cost per request, judged by CPU time rather than by rate (a shared machine's rates say more
// about its other work than about the code): a fixed number of requests from a separate process
// (autocannon, bench/load-child.ts) on each path, and around them the CPU time used by the server process,
// by its PostgreSQL backends, and by the minimal server (bench/minimal-server.ts, PostgreSQL only), with the
// round trips each request made: database statements (BEGIN, set_config and COMMIT among them) and Redis
// commands. Paths: getLocation through the full pipeline, the bare route (same SQL, the app's global hooks),
// the minimal server; and, with TRACE_BENCH_SCALE set (or PIPELINE_TRACE=1), the 496-node trace against its
// bare walk (bench/trace.ts's history).
//
//   node --import tsx bench/pipeline-cpu.ts            PGlite (in process: its CPU is the server's)
//   DATABASE_URL=… REDIS_URL=… node --import tsx bench/pipeline-cpu.ts
//   PIPELINE_REQUESTS=4000 PIPELINE_ROUNDS=3 PIPELINE_PROFILE=/tmp/full.cpuprofile …
import { fork } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { Redis } from 'ioredis';
import type autocannon from 'autocannon';
import { createOrganization } from '../src/auth/organizations.js';
import type { Database } from '../src/db/client.js';
import { announce, cpuSince, cpuSnapshot, median, printTable, startBenchApp } from './lib.js';
import { loadHistory } from './trace.js';

const REQUESTS = Number(process.env.PIPELINE_REQUESTS ?? 3000);
const ROUNDS = Number(process.env.PIPELINE_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.PIPELINE_CONNECTIONS ?? 8);
/** A trace costs tens of getLocations: fewer of them make a round. */
const TRACE_REQUESTS = Number(process.env.PIPELINE_TRACE_REQUESTS ?? Math.ceil(REQUESTS / 5));

// Round trips, counted where every statement and command leaves the process.
const counts = { statements: 0, redis: 0 };
const pgQuery = pg.Client.prototype.query;
(pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = function (this: pg.Client, ...args: unknown[]) {
  counts.statements++;
  return (pgQuery as (...a: unknown[]) => unknown).apply(this, args);
};
for (const method of ['query', 'exec'] as const) {
  const original = PGlite.prototype[method] as (...a: unknown[]) => unknown;
  (PGlite.prototype as unknown as Record<string, unknown>)[method] = function (this: PGlite, ...args: unknown[]) {
    counts.statements++;
    return original.apply(this, args);
  };
}
// A PGlite transaction's BEGIN and COMMIT are its own round trips into the engine.
const pgliteTransaction = PGlite.prototype.transaction;
PGlite.prototype.transaction = function (this: PGlite, work: Parameters<PGlite['transaction']>[0]) {
  counts.statements += 2;
  return pgliteTransaction.call(this, (tx) => {
    for (const method of ['query', 'exec'] as const) {
      const original = tx[method] as (...a: unknown[]) => unknown;
      (tx as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
        counts.statements++;
        return original.apply(tx, args);
      };
    }
    return work(tx);
  });
} as PGlite['transaction'];
const sendCommand = Redis.prototype.sendCommand;
Redis.prototype.sendCommand = function (this: Redis, ...args: Parameters<Redis['sendCommand']>) {
  counts.redis++;
  return sendCommand.apply(this, args);
} as Redis['sendCommand'];

/** CPU µs of another process so far (user + system), from /proc. */
function processCpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
}

let child: ReturnType<typeof fork> | undefined;
function generator() {
  child ??= fork(new URL('./load-child.ts', import.meta.url).pathname, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return child;
}
/** `amount` requests over `connections` connections, from the generator's process; answers non-2xx count. */
function drive(options: Partial<autocannon.Options>): Promise<{ non2xx: number; requestsPerSecond: number }> {
  const c = generator();
  return new Promise((resolve) => {
    const onMessage = (m: { type: string; non2xx: number; requestsPerSecond: number }) => {
      if (m.type !== 'result') return;
      c.off('message', onMessage);
      resolve(m);
    };
    c.on('message', onMessage);
    c.send({ type: 'load', options: { connections: CONNECTIONS, ...options } });
  });
}

interface PathResult {
  serverUs: number;
  databaseUs: number;
  statements: number;
  redis: number;
  rate: number;
}

async function measurePath(name: string, url: string, amount: number, headers: Record<string, string> | undefined, db: Database | undefined, otherPid?: number, profile?: string): Promise<PathResult> {
  const dbQueries = db?.kind === 'postgres' ? db : undefined;
  const before = await cpuSnapshot(dbQueries);
  const otherBefore = otherPid ? processCpuMicros(otherPid) : 0;
  const counted = { ...counts };
  let session: Session | undefined;
  if (profile) {
    session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
    await session.post('Profiler.start');
  }
  const run = await drive({ url, headers, amount });
  if (session) {
    const { profile: p } = await session.post('Profiler.stop');
    writeFileSync(profile!, JSON.stringify(p));
    session.disconnect();
  }
  const used = await cpuSince(before, dbQueries);
  // The snapshot queries themselves are not the path's.
  const statements = counts.statements - counted.statements - (dbQueries ? 1 : 0);
  if (run.non2xx) throw new Error(`${name}: ${run.non2xx} requests failed`);
  const server = otherPid ? processCpuMicros(otherPid) - otherBefore : used.server;
  return { serverUs: server / amount, databaseUs: used.database / amount, statements: statements / amount, redis: (counts.redis - counted.redis) / amount, rate: run.requestsPerSecond };
}

const bench = await startBenchApp(
  {
    plugins: [
      (app) => {
        app.get<{ Querystring: { org: string; id: string } }>('/bench/bare/location', async (request) => {
          const [row] = await bare!.query(`select * from locations where org_id = $1 and id = $2`, [request.query.org, request.query.id]);
          return row;
        });
        app.get<{ Querystring: { org: string; kind: string; id: string } }>('/bench/bare/trace', async (request) => {
          const { org, kind, id } = request.query;
          return { nodes: await bare!.query(BARE_FORWARD, [org, kind, id]) };
        });
      },
    ],
  },
  process.env.REDIS_URL ? { redisUrl: process.env.REDIS_URL } : {},
);
const bare: Database = bench.app.databases.owner;
const BARE_FORWARD = `
  with recursive walk (kind, id, depth) as (
    select $2::text, $3::text, 0
    union
    select e.to_kind, e.to_id, w.depth + 1
    from walk w join lineage_edges e on e.org_id = $1 and e.from_kind = w.kind and e.from_id = w.id
    where w.depth < 50
  )
  select kind, id from walk group by kind, id`;
announce(`pipeline CPU per request on ${bench.kind}${process.env.REDIS_URL ? ' + Redis' : ''}, ${REQUESTS} requests × ${ROUNDS} rounds, ${CONNECTIONS} connections`);

const { organizationId, apiKey, keyId } = await createOrganization(bench.app.databases.owner, 'Bench roastery', 'enterprise');
const auth = { authorization: `Bearer ${apiKey}` };
const created = await fetch(`${bench.url}/rpc/v1/catalog.location.createLocation`, {
  method: 'POST',
  headers: { ...auth, 'content-type': 'application/json' },
  body: JSON.stringify({ name: 'Bench warehouse', code: 'BENCH', kind: 'warehouse' }),
});
const location = (await created.json()) as { id: string };

let minimal: ReturnType<typeof fork> | undefined;
let minimalUrl: string | undefined;
if (bench.databaseUrl) {
  minimal = fork(fileURLToPath(new URL('./minimal-server.ts', import.meta.url)), [bench.databaseUrl, String(bench.poolSize)], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  minimalUrl = await new Promise<string>((resolve) => minimal!.on('message', (m: { type: string; url: string }) => m.type === 'listening' && resolve(m.url)));
}

type Path = { name: string; url: string; amount: number; headers?: Record<string, string>; pid?: number };
const query = `org=${organizationId}&id=${location.id}`;
const paths: Path[] = [
  ...(minimalUrl ? [{ name: 'minimal server', url: `${minimalUrl}/location?${query}`, amount: REQUESTS, pid: minimal!.pid }] : []),
  { name: 'bare route', url: `${bench.url}/bench/bare/location?${query}`, amount: REQUESTS },
  { name: 'full getLocation', url: `${bench.url}/rpc/v1/catalog.location.getLocation?input=${encodeURIComponent(JSON.stringify({ id: location.id }))}`, amount: REQUESTS, headers: auth },
];

const traceScale = process.env.TRACE_BENCH_SCALE ?? (process.env.PIPELINE_TRACE === '1' ? (bench.kind === 'postgres' ? '1' : '0.05') : undefined);
if (traceScale !== undefined) {
  await loadHistory(bench.app.databases.owner, organizationId, keyId, Number(traceScale));
  // bench/trace.ts's widest forward trace: from a merged lot's producer (496 nodes at scale 1).
  const input = { kind: 'producer', id: 'pr_21' };
  if (process.env.PIPELINE_EXPLAIN === '1' && bench.kind === 'postgres') await explainTrace(organizationId, input);
  paths.push(
    { name: 'bare trace walk', url: `${bench.url}/bench/bare/trace?${new URLSearchParams({ org: organizationId, ...input })}`, amount: TRACE_REQUESTS },
    { name: 'full traceForward', url: `${bench.url}/rpc/v1/traceability.traceForward?input=${encodeURIComponent(JSON.stringify(input))}`, amount: TRACE_REQUESTS, headers: auth },
  );
}

/**
 * EXPLAIN (ANALYZE, BUFFERS) of the forward trace's statement as the service runs it (its role, under
 * row-level security, the generic plan its PL/pgSQL function keeps), and of the bare walk as the owner.
 */
async function explainTrace(orgId: string, start: { kind: string; id: string }) {
  const service = bench.app.databases.service;
  const [{ prosrc }] = await bench.app.databases.owner.query<{ prosrc: string }>(`select prosrc from pg_proc where proname = 'firstcrack_trace_forward'`);
  const body = prosrc.slice(prosrc.indexOf('return (') + 'return'.length, prosrc.lastIndexOf(';')).trim();
  const statement = body.replace(/\btrace_org\b/g, '$1').replace(/\btrace_kind\b/g, '$2').replace(/\btrace_id\b/g, '$3').replace(/\bwalk_depth_limit\b/g, '$4');
  for (let run = 0; run < 3; run++) {
    const plan = await service.transaction(
      async (tx) => {
        await tx.exec(`set local plan_cache_mode = force_generic_plan`);
        await tx.query(`prepare trace_explained (text, text, text, int) as select ${statement}`);
        const rows = await tx.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers) execute trace_explained('${orgId}', '${start.kind}', '${start.id}', 50)`);
        await tx.exec(`deallocate trace_explained`);
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      },
      { orgId },
    );
    if (run === 2) console.log(`\nEXPLAIN (ANALYZE, BUFFERS) forward trace, service role, generic plan:\n${plan}`);
  }
  const barePlan = await bench.app.databases.owner.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers) ${BARE_FORWARD}`.replace(/\$1/g, `'${orgId}'`).replace(/\$2::text/, `'${start.kind}'::text`).replace(/\$3::text/, `'${start.id}'::text`));
  console.log(`\nEXPLAIN (ANALYZE, BUFFERS) bare walk, owner:\n${barePlan.map((r) => r['QUERY PLAN']).join('\n')}`);
}

for (const p of paths) await drive({ url: p.url, headers: p.headers, amount: Math.min(p.amount, 1000) });
const results = new Map<string, PathResult[]>(paths.map((p) => [p.name, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const p of paths) {
    const profile = process.env.PIPELINE_PROFILE && round === ROUNDS - 1 && p.name.startsWith('full') ? process.env.PIPELINE_PROFILE.replace('.cpuprofile', `-${p.name.split(' ')[1]}.cpuprofile`) : undefined;
    results.get(p.name)!.push(await measurePath(p.name, p.url, p.amount, p.headers, bench.app.databases.service, p.pid, profile));
  }
}
const rows = paths.map((p) => {
  const r = results.get(p.name)!;
  const m = (f: (x: PathResult) => number) => median(r.map(f));
  return {
    path: p.name,
    'server µs/req (median)': Math.round(m((x) => x.serverUs)),
    'server µs/req (rounds)': r.map((x) => Math.round(x.serverUs)).join(' '),
    'db backend µs/req': bench.kind === 'postgres' ? Math.round(m((x) => x.databaseUs)) : '-',
    'statements/req': m((x) => x.statements).toFixed(2),
    'redis cmds/req': m((x) => x.redis).toFixed(2),
    'req/s (noise)': Math.round(m((x) => x.rate)),
  };
});
printTable(`CPU per request (${bench.kind}${process.env.REDIS_URL ? ' + Redis' : ''})`, rows);
announce('done');
minimal?.disconnect();
child?.kill();
await bench.close();
process.exit(0);
