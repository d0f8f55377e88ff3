// The platform's overhead: an authenticated GET of catalog.location.getLocation through the full
// pipeline (auth, rate limit, lookup, module, permission, validation, transaction with the organization
// set, ETag) against a bare route running the same SQL on the same pool, in the same process and run.
// Rounds alternate so drift on a noisy machine hits both sides alike. Goal: full ≥ 60% of bare.
import { startBenchApp, load, median, printTable } from './lib.js';
import { createOrganization } from '../src/auth/organizations.js';

export async function benchCatalogRead(rounds = Number(process.env.BENCH_ROUNDS ?? 5)) {
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

  const fullPath = `/rpc/v1/catalog.location.getLocation?input=${encodeURIComponent(JSON.stringify({ id: location.id }))}`;
  const barePath = `/bench/bare/location?org=${organizationId}&id=${location.id}`;
  const ratios: number[] = [];
  const details: Record<string, string | number>[] = [];
  // Warm both paths (JIT, pool connections) before measuring.
  await load({ url: bench.url + fullPath, headers: { authorization: `Bearer ${apiKey}` }, duration: 2 });
  await load({ url: bench.url + barePath, duration: 2 });
  for (let round = 1; round <= rounds; round++) {
    const b = await load({ url: bench.url + barePath });
    const f = await load({ url: bench.url + fullPath, headers: { authorization: `Bearer ${apiKey}` } });
    ratios.push(f.requestsPerSecond / b.requestsPerSecond);
    details.push({ round, 'full/bare': `${((f.requestsPerSecond / b.requestsPerSecond) * 100).toFixed(1)}%`, 'bare req/s': b.requestsPerSecond, 'bare p99 ms': b.p99Ms, 'full req/s': f.requestsPerSecond, 'full p99 ms': f.p99Ms, 'full non-2xx': f.non2xx, 'bare non-2xx': b.non2xx });
  }
  // Each round pairs a bare and a full measurement taken back to back; the median of those paired
  // ratios resists the drift of a shared machine better than a ratio of medians.
  const ratio = median(ratios);
  printTable(`catalog.location.getLocation on ${bench.kind}: full pipeline vs bare route (32 connections, 5 s rounds)`, details);
  console.log(`ratio full/bare (median of ${rounds} paired rounds): ${(ratio * 100).toFixed(1)}%  (goal ≥ 60%)`);
  await bench.close();
  return ratio;
}

if (import.meta.url === `file://${process.argv[1]}`) await benchCatalogRead();
