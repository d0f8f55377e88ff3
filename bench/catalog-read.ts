// The platform's overhead: an authenticated GET of catalog.location.getLocation through the full pipeline
// (auth, rate limit, lookup, module, permission, validation, transaction with the organization set, ETag),
// with the load generated from another process (bench/lib.ts `load`), against two baselines doing the same
// read on the same database:
//  - the minimal server: Fastify + pg in a process of its own, nothing else (bench/minimal-server.ts). The
//    goal is stated against it: full ≥ 85% of minimal.
//  - the bare route inside the app: the same SQL on the owner pool, paying the app's global hooks.
// Rounds alternate minimal, bare, full, and repeat until the full/minimal ratio's spread settles.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startBenchApp, load, median, printTable, announce, untilSettled, record } from './lib.js';
import { createOrganization } from '../src/auth/organizations.js';

const ROUND_SECONDS = Number(process.env.BENCH_SECONDS ?? 5);

export async function benchCatalogRead() {
  announce('catalog.location.getLocation');
  let bareDb: import('../src/db/client.js').Database | undefined;
  const bench = await startBenchApp({
    plugins: [
      (app) => {
        app.get<{ Querystring: { org: string; id: string } }>('/bench/bare/location', async (request) => {
          const [row] = await bareDb!.query(`select * from locations where org_id = $1 and id = $2`, [request.query.org, request.query.id]);
          return row;
        });
      },
    ],
  });
  // The bare route runs without a transaction to set the organization in, so it reads through the
  // owner pool (same size as the service pool), which row-level security does not filter.
  bareDb = bench.app.databases.owner;
  const { organizationId, apiKey } = await createOrganization(bench.app.databases.owner, 'Bench roastery', 'enterprise');
  const created = await fetch(`${bench.url}/rpc/v1/catalog.location.createLocation`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Bench warehouse', code: 'BENCH', kind: 'warehouse' }),
  });
  const location = (await created.json()) as { id: string };

  // The minimal server reads the bench's database as its owner, with a pool of the same size.
  let minimalUrl: string | undefined;
  const minimal = bench.databaseUrl
    ? fork(fileURLToPath(new URL('./minimal-server.ts', import.meta.url)), [bench.databaseUrl, String(bench.poolSize)], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    : undefined;
  if (minimal) minimalUrl = await new Promise<string>((resolve) => minimal.on('message', (m: { type: string; url: string }) => m.type === 'listening' && resolve(m.url)));

  const fullPath = `/rpc/v1/catalog.location.getLocation?input=${encodeURIComponent(JSON.stringify({ id: location.id }))}`;
  const query = `org=${organizationId}&id=${location.id}`;
  const full = (duration = ROUND_SECONDS) => load({ url: bench.url + fullPath, headers: { authorization: `Bearer ${apiKey}` }, duration });
  const bare = (duration = ROUND_SECONDS) => load({ url: `${bench.url}/bench/bare/location?${query}`, duration });
  const min = (duration = ROUND_SECONDS) => load({ url: `${minimalUrl}/location?${query}`, duration });
  // Warm every path (JIT, pool connections) before measuring.
  await full(2);
  await bare(2);
  if (minimalUrl) await min(2);
  const details: Record<string, string | number>[] = [];
  const bareRatios: number[] = [];
  const settled = await untilSettled(async (round) => {
    const m = minimalUrl ? await min() : undefined;
    const b = await bare();
    const f = await full();
    bareRatios.push(f.requestsPerSecond / b.requestsPerSecond);
    details.push({
      round,
      'full/minimal': m ? `${((f.requestsPerSecond / m.requestsPerSecond) * 100).toFixed(1)}%` : '-',
      'full/bare': `${((f.requestsPerSecond / b.requestsPerSecond) * 100).toFixed(1)}%`,
      'minimal req/s': m ? Math.round(m.requestsPerSecond) : '-',
      'bare req/s': Math.round(b.requestsPerSecond),
      'full req/s': Math.round(f.requestsPerSecond),
      'full p99 ms': f.p99Ms,
      'non-2xx': (m?.non2xx ?? 0) + b.non2xx + f.non2xx,
      generator: f.generator ?? '',
    });
    return m ? f.requestsPerSecond / m.requestsPerSecond : f.requestsPerSecond / b.requestsPerSecond;
  });
  printTable(`catalog.location.getLocation on ${bench.kind}: full pipeline vs minimal server and bare route (32 connections, ${ROUND_SECONDS} s rounds)`, details);
  const note = `${settled.ratios.length} rounds, spread ${(settled.spread * 100).toFixed(0)}% ${settled.settled ? '≤' : '> (did not settle within)'} ${(settled.bound * 100).toFixed(0)}%`;
  if (minimalUrl) record({ measure: 'getLocation full / minimal server', goal: '≥ 85%', figure: settled.ratio, unit: 'ratio', pass: settled.ratio >= 0.85, note });
  record({ measure: 'getLocation full / bare route', goal: 'reported', figure: median(bareRatios), unit: 'ratio', pass: true, note: minimalUrl ? undefined : note });
  minimal?.disconnect();
  await bench.close();
  return settled.ratio;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await benchCatalogRead();
