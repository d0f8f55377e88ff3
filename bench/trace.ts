// Traceability at scale (run: node --import tsx bench/trace.ts; DATABASE_URL set for the
// goal, which is stated for PostgreSQL):
//
// (a) Trace cost. traceBackward and traceForward for an organization with 1,000,000 lineage edges,
//     bulk-loaded with generate_series in the shape of a roastery's history: 2,000 producers → 100,000
//     green lots (one in twenty receives two merged lots) → 200,000 roast batches → 200,000 roasted lots →
//     245,000 order lines fed by two roasted lots each, every node with its row (lot codes, batch numbers,
//     orders and customers) and every edge with the names of its ends that the insert trigger would have
//     written (checked on a sample), so a trace labels exactly as in service. Each trace through the whole
//     pipeline is measured against the bare recursive query (the same walk over lineage_edges, answering the
//     reached nodes) behind a bare route on the same server, both on pools sized to the host, in alternating
//     rounds, the load generator in a worker thread. Goal: full ≥ 50% of bare (within 2x).
// (Allocation throughput under concurrency, once measured here, is bench/allocation.ts.)
//
// TRACE_BENCH_SCALE scales (a)'s organization (default 1 on PostgreSQL, 0.05 on embedded PGlite).
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { createOrganization } from '../src/auth/organizations.js';
import type { Database } from '../src/db/client.js';
import { announce, load, median, printTable, record, startBenchApp } from './lib.js';

const CONNECTIONS = 16;
/**
 * PostgreSQL runs on this host, so both routes' pools are sized to it as PostgreSQL advises, about two
 * connections per core (DATABASE_POOL_SIZE overrides). With the service's default of 20 on a 2-core
 * machine, 16 busy backends take turns on the CPU with the one Node.js thread that must answer them, and
 * a route that does more in Node.js (as the full trace does) waits on the scheduler, not on its work.
 */
const HOST_POOL_SIZE = 2 * availableParallelism();
const ROUND_SECONDS = Number(process.env.BENCH_SECONDS ?? 3);

/** The bare baseline: the walk every trace makes, answering the reached nodes and nothing else. */
const bareWalk = (near: 'to' | 'from', far: 'to' | 'from') => `
  with recursive walk (kind, id, depth) as (
    select $2::text, $3::text, 0
    union
    select e.${far}_kind, e.${far}_id, w.depth + 1
    from walk w join lineage_edges e on e.org_id = $1 and e.${near}_kind = w.kind and e.${near}_id = w.id
    where w.depth < 50
  )
  select kind, id from walk group by kind, id`;

const BARE = { backward: bareWalk('to', 'from'), forward: bareWalk('from', 'to') };

/**
 * The organization's history at `scale` (1 = 1,000,000 edges), one generate_series statement per table.
 * Ids are derived from the row number so the edges can name them without lookups.
 */
export async function loadHistory(owner: Database, orgId: string, credentialId: string, scale: number) {
  const n = (count: number) => Math.max(1, Math.round(count * scale));
  const producers = n(2_000);
  const greenLots = n(100_000);
  const batches = 2 * greenLots;
  const lines = n(245_000);
  const customers = n(1_000);
  const orders = Math.ceil(lines / 5);
  const history: [string, unknown[]][] = [
    [`insert into producers (org_id, id, code, name, kind, country, region)
       select $1, 'pr_' || i, 'PR-' || i, 'Producer ' || i, 'farm', 'ET', 'Sidama' from generate_series(1, $2) i`, [producers]],
    [`insert into green_lots (org_id, id, lot_code, name, producer_id)
       select $1, 'gl_' || i, 'GL-' || i, 'Green ' || i, 'pr_' || (i % $3 + 1) from generate_series(1, $2) i`, [greenLots, producers]],
    [`insert into roast_batches (org_id, id, batch_number, source, state, green_lot_id, charge_weight_kg, drop_weight_kg, started_at, completed_at, credential_id)
       select $1, 'rb_' || j, 'B-' || j, 'import', 'completed', 'gl_' || (j % $3 + 1), 12.5, 10, now() - interval '1 day', now(), $4
       from generate_series(1, $2) j`, [batches, greenLots, credentialId]],
    [`insert into roasted_lots (org_id, id, lot_code, form, roast_batch_id, green_lot_id, roasted_at)
       select $1, 'rl_' || j, 'R-' || j, 'loose', 'rb_' || j, 'gl_' || (j % $3 + 1), now() from generate_series(1, $2) j`, [batches, greenLots]],
    [`insert into customers (org_id, id, code, name, currency) select $1, 'cus_' || i, 'C-' || i, 'Customer ' || i, 'EUR' from generate_series(1, $2) i`, [customers]],
    [`insert into orders (org_id, id, order_number, customer_id, channel, currency, state, confirmed_at, fulfilled_at, credential_id)
       select $1, 'so_' || i, 'SO-' || i, 'cus_' || (i % $3 + 1), 'direct', 'EUR', 'fulfilled', now(), now(), $4 from generate_series(1, $2) i`, [orders, customers, credentialId]],
    [`insert into order_lines (org_id, id, order_id, line_number, roasted_lot_id, quantity_kg, unit_price, line_total)
       select $1, 'sol_' || m, 'so_' || ((m - 1) / 5 + 1), (m - 1) % 5 + 1, 'rl_' || ((2 * m) % $3 + 1), 2, 20, 40 from generate_series(1, $2) m`, [lines, batches]],
    // The edges, in the order the history happened: origin, merges, roasts, roasted output, shipments.
    [`insert into lineage_edges (org_id, id, from_kind, from_id, to_kind, to_id, weight_kg, to_known)
       select $1, 'lin_p' || i, 'producer', 'pr_' || (i % $3 + 1), 'green_lot', 'gl_' || i, 100, array['GL-' || i || ' (Green ' || i || ')']
       from generate_series(1, $2) i`, [greenLots, producers]],
    [`insert into lineage_edges (org_id, id, from_kind, from_id, to_kind, to_id, weight_kg, from_known, to_known)
       select $1, 'lin_m' || t || '_' || s, 'green_lot', 'gl_' || (t + s), 'green_lot', 'gl_' || t, 100,
              array['GL-' || t + s || ' (Green ' || t + s || ')'], array['GL-' || t || ' (Green ' || t || ')']
       from generate_series(20, $2 - 2, 20) t, generate_series(1, 2) s`, [greenLots]],
    [`insert into lineage_edges (org_id, id, from_kind, from_id, to_kind, to_id, weight_kg, from_known, to_known)
       select $1, 'lin_g' || j, 'green_lot', 'gl_' || (j % $3 + 1), 'roast_batch', 'rb_' || j, 12.5,
              array['GL-' || j % $3 + 1 || ' (Green ' || j % $3 + 1 || ')'], array['B-' || j]
       from generate_series(1, $2) j`, [batches, greenLots]],
    [`insert into lineage_edges (org_id, id, from_kind, from_id, to_kind, to_id, weight_kg, from_known, to_known)
       select $1, 'lin_b' || j, 'roast_batch', 'rb_' || j, 'roasted_lot', 'rl_' || j, 10, array['B-' || j], array['R-' || j]
       from generate_series(1, $2) j`, [batches]],
    [`insert into lineage_edges (org_id, id, from_kind, from_id, to_kind, to_id, weight_kg, from_known, to_known)
       select $1, 'lin_o' || m || '_' || s, 'roasted_lot', 'rl_' || ((2 * m + s) % $3 + 1), 'order_line', 'sol_' || m, 1,
              array['R-' || (2 * m + s) % $3 + 1],
              array['SO-' || (m - 1) / 5 + 1 || ' line ' || (m - 1) % 5 + 1, 'so_' || (m - 1) / 5 + 1, 'cus_' || ((m - 1) / 5 + 1) % $4 + 1]
       from generate_series(1, $2) m, generate_series(0, 1) s`, [lines, batches, customers]],
  ];
  const started = Date.now();
  // One transaction; as a superuser with triggers off (the rows are built consistent, the edges with what
  // they know of their ends written out), which roughly halves the load. Without superuser rights the
  // triggers simply run.
  const [{ rolsuper }] = await owner.query<{ rolsuper: boolean }>(`select rolsuper from pg_roles where rolname = current_user`);
  await owner.transaction(async (tx) => {
    if (rolsuper) await tx.query(`set local session_replication_role = replica`);
    for (const [sql, params] of history) await tx.query(sql, [orgId, ...params]);
  });
  // The edges' copies of their ends' names must be what the insert trigger would have written.
  const [{ wrong }] = await owner.query<{ wrong: number }>(
    `select count(*)::int as wrong from (select * from lineage_edges where org_id = $1 order by random() limit 2000) e
     where from_known is distinct from firstcrack_lineage_known(org_id, from_kind, from_id)
        or to_known is distinct from firstcrack_lineage_known(org_id, to_kind, to_id)`,
    [orgId],
  );
  if (wrong > 0) throw new Error(`${wrong} of 2,000 sampled lineage edges know their ends wrongly`);
  // As autovacuum would leave them: statistics current, visibility maps set.
  await owner.exec('vacuum analyze');
  // The load's dirty pages written out now, not by the background writer during the measured rounds.
  if (rolsuper) await owner.exec('checkpoint');
  const [{ edges }] = await owner.query<{ edges: number }>(`select count(*)::int as edges from lineage_edges where org_id = $1`, [orgId]);
  console.log(`loaded ${edges.toLocaleString('en')} lineage edges (scale ${scale}) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { producers, greenLots, batches, lines };
}

export async function benchTrace(rounds = Number(process.env.BENCH_ROUNDS ?? 3)) {
  let bareDb: Database | undefined;
  const bench = await startBenchApp({
    plugins: [
      (app) => {
        app.get<{ Querystring: { org: string; direction: 'backward' | 'forward'; kind: string; id: string } }>('/bench/bare/trace', async (request) => {
          const { org, direction, kind, id } = request.query;
          return { nodes: await bareDb!.query(BARE[direction], [org, kind, id]) };
        });
      },
    ],
  }, process.env.DATABASE_POOL_SIZE ? {} : { databasePoolSize: HOST_POOL_SIZE });
  // As in catalog-read: the bare route has no transaction to set the organization in, so it reads
  // through the owner pool, which row-level security does not filter; the SQL names the organization.
  bareDb = bench.app.databases.owner;
  const owner = bench.app.databases.owner;
  const scale = Number(process.env.TRACE_BENCH_SCALE ?? (bench.kind === 'postgres' ? 1 : 0.05));
  const { organizationId: orgId, apiKey, keyId } = await createOrganization(owner, 'Bench roastery', 'enterprise');
  const shape = await loadHistory(owner, orgId, keyId, scale);

  const rpc = async (operation: string, input: unknown) => {
    const res = await fetch(`${bench.url}/rpc/v1/${operation}?input=${encodeURIComponent(JSON.stringify(input))}`, { headers: { authorization: `Bearer ${apiKey}` } });
    const body = (await res.json()) as any;
    if (res.status !== 200) throw new Error(`${operation}: ${res.status} ${JSON.stringify(body)}`);
    return body;
  };

  // A merged lot sits at every twentieth green lot; its producers' fan-out is the widest forward trace.
  const merged = Math.min(20, shape.greenLots);
  const cases = [
    { name: 'forward from a producer', direction: 'forward' as const, kind: 'producer', id: `pr_${(merged % shape.producers) + 1}` },
    { name: 'forward from a merged green lot', direction: 'forward' as const, kind: 'green_lot', id: `gl_${merged + 1}` },
    { name: 'backward from an order line', direction: 'backward' as const, kind: 'order_line', id: `sol_${Math.ceil(merged / 2)}` },
    { name: 'backward from a roasted lot', direction: 'backward' as const, kind: 'roasted_lot', id: `rl_${Math.max(1, merged - 1)}` },
  ];
  const rows: Record<string, string | number>[] = [];
  for (const c of cases) {
    const operation = c.direction === 'forward' ? 'traceability.traceForward' : 'traceability.traceBackward';
    const input = { kind: c.kind, id: c.id };
    const answer = await rpc(operation, input);
    const bareAnswer = (await (await fetch(`${bench.url}/bench/bare/trace?${new URLSearchParams({ org: orgId, direction: c.direction, ...input })}`)).json()) as { nodes: unknown[] };
    if (bareAnswer.nodes.length !== answer.nodes.length) throw new Error(`${c.name}: bare walk found ${bareAnswer.nodes.length} nodes, the operation ${answer.nodes.length}`);
    const fullUrl = `${bench.url}/rpc/v1/${operation}?input=${encodeURIComponent(JSON.stringify(input))}`;
    const bareUrl = `${bench.url}/bench/bare/trace?${new URLSearchParams({ org: orgId, direction: c.direction, ...input })}`;
    const headers = { authorization: `Bearer ${apiKey}` };
    // The load generator in a worker thread of its own: a trace's answer is several times the bare one's, and
    // reading it on the server's event loop would charge the client's work to the operation.
    const measure = (url: string, duration: number, headers?: Record<string, string>) => load({ url, headers, duration, connections: CONNECTIONS, workers: 1 });
    await measure(fullUrl, 1, headers);
    await measure(bareUrl, 1);
    const ratios: number[] = [];
    let last = { bare: 0, full: 0, bareP99: 0, fullP99: 0 };
    for (let round = 0; round < rounds; round++) {
      const b = await measure(bareUrl, ROUND_SECONDS);
      const f = await measure(fullUrl, ROUND_SECONDS, headers);
      if (b.non2xx || f.non2xx) throw new Error(`${c.name}: ${b.non2xx} bare and ${f.non2xx} full requests failed`);
      ratios.push(f.requestsPerSecond / b.requestsPerSecond);
      last = { bare: b.requestsPerSecond, full: f.requestsPerSecond, bareP99: b.p99Ms, fullP99: f.p99Ms };
    }
    rows.push({
      trace: c.name,
      nodes: answer.nodes.length,
      edges: answer.edges.length,
      customers: answer.customers.length,
      'bare req/s': last.bare,
      'full req/s': last.full,
      'bare p99 ms': last.bareP99,
      'full p99 ms': last.fullP99,
      'full/bare': `${(median(ratios) * 100).toFixed(1)}%`,
    });
    record({ measure: `trace ${c.name} (${answer.nodes.length} nodes) full / bare`, goal: '≥ 85%', figure: median(ratios), unit: 'ratio', pass: median(ratios) >= 0.85, note: `${rounds} rounds, spread ${((Math.max(...ratios) - Math.min(...ratios)) / median(ratios) * 100).toFixed(0)}%` });
  }
  printTable(`Traces on ${bench.kind} (pool of ${bench.poolSize}), ${CONNECTIONS} connections, median of ${rounds} paired ${ROUND_SECONDS} s rounds (goal full/bare ≥ 50%)`, rows);

  await bench.close();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await benchTrace();
