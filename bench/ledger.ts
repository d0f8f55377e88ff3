// The green-coffee ledger under load, two questions (run: node --import tsx bench/ledger.ts; DATABASE_URL set):
//
// (a) Write throughput. Concurrent adjustments and transfers through the whole HTTP pipeline (auth, rate
//     limit, validation, one transaction with lot lock, rule checks, ledger rows, balances, event, response)
//     against the same writes done as bare SQL transactions on the same pool: lock the lot FOR UPDATE, read
//     its balances for the rule, then append the ledger rows and update balances and totals in one statement.
//     Rounds alternate and are compared pairwise so drift hits both alike. Goal: HTTP ≥ 50% of bare. CPU per
//     write (this process + the database backends) is printed too: on a shared machine it is the steadier figure.
// (b) Read cost versus ledger length. getGreenLot, listGreenLots (with filters) and listGreenLotTransactions
//     for an organization with 100,000 lots and 5,000,000 ledger rows, bulk-loaded with generate_series and
//     analyzed, against one with 1,000 lots and 50,000 rows in the same database: median latency over HTTP
//     and the shared buffers each read's SQL touches (EXPLAIN BUFFERS). Materialised balances make reads
//     independent of ledger length, so the page counts match. LEDGER_BENCH_SCALE (default 1) scales the big
//     organization (e.g. 0.1); BENCH_ROUNDS and BENCH_SECONDS shape part (a). About 4 minutes on 2 cores.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type autocannon from 'autocannon';
import { announce, load, startBenchApp, median, printTable, record, settledNote, untilSettled } from './lib.js';
import { createOrganization } from '../src/auth/organizations.js';
import type { Database, Queryable } from '../src/db/client.js';
import { newId } from '../src/lib/ids.js';
import { grams } from '../src/lib/grams.js';
import * as green from '../src/modules/inventory/green/repository.js';
import { ledgerInvariantViolations } from '../src/modules/inventory/green/invariants.js';

const SCALE = Number(process.env.LEDGER_BENCH_SCALE ?? 1);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const ROUND_SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const CONNECTIONS = 32;
const WRITE_LOTS = 200;
const ROWS_PER_LOT = 50;

type BenchApp = Awaited<ReturnType<typeof startBenchApp>>;
let bench: BenchApp;
let owner: Database;
let service: Database;

async function rpc(apiKey: string, operation: string, input: unknown, method: 'GET' | 'POST' = 'POST') {
  const init: RequestInit = { method, headers: { authorization: `Bearer ${apiKey}` } };
  let path = `/rpc/v1/${operation}`;
  if (method === 'GET') path += `?input=${encodeURIComponent(JSON.stringify(input))}`;
  else Object.assign(init, { body: JSON.stringify(input), headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' } });
  const res = await fetch(bench.url + path, init);
  const body = (await res.json()) as any;
  if (res.status !== 200) throw new Error(`${operation}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

// ---------------------------------------------------------------------------------------------------
// (a) Write throughput

/**
 * The write mix both sides run: half adjustments (+/- a few hundred grams at one location, so stock
 * never runs out), half transfers of 100 g between the two locations. Same lot spread on both sides.
 */
function nextWrite(lots: string[], siteA: string, siteB: string) {
  const lot = lots[Math.floor(Math.random() * lots.length)];
  const r = Math.random();
  if (r < 0.5) {
    const deltaKg = r < 0.25 ? '-0.250' : '0.250';
    return { op: 'adjustGreenLotQuantity' as const, input: { id: lot, deltaKg, reason: 'adjust', locationId: r < 0.125 || r >= 0.375 ? siteA : siteB } };
  }
  const [fromLocationId, toLocationId] = r < 0.75 ? [siteA, siteB] : [siteB, siteA];
  return { op: 'transferGreenLotToLocation' as const, input: { id: lot, fromLocationId, toLocationId, weightKg: '0.100' } };
}

/**
 * The bare baseline: the same lock and rule read (the repository's statements), then the writes as one
 * hand-written statement (ledger rows, balance upserts, lot totals), without building any answer.
 */
const BARE_WRITE_SQL = `
  with input as (
    select * from unnest($3::text[], $4::text[], $5::text[], $6::numeric[], $7::text[]) with ordinality as m(id, kind, location_id, delta_kg, group_id, n)
  ),
  lot as (
    update green_lots set on_hand_kg = on_hand_kg + (select sum(delta_kg) from input),
                          ledger_seq = ledger_seq + (select count(*) from input), updated_at = now()
    where org_id = $1 and id = $2 returning ledger_seq - (select count(*) from input) as seq_before
  ),
  balances as (
    insert into green_lot_balances as b (org_id, lot_id, location_id, on_hand_kg)
    select $1, $2, location_id, delta_kg from input
    on conflict on constraint green_lot_balances_key do update set on_hand_kg = b.on_hand_kg + excluded.on_hand_kg, updated_at = now()
  )
  insert into green_lot_ledger (org_id, id, lot_id, seq, kind, location_id, delta_kg, group_id, credential_id)
  select $1, i.id, $2, lot.seq_before + i.n, i.kind, i.location_id, i.delta_kg, i.group_id, 'bench' from input i, lot`;

async function bareWrite(db: Database, orgId: string, write: ReturnType<typeof nextWrite>) {
  const legs =
    write.op === 'adjustGreenLotQuantity'
      ? [{ kind: 'adjust', locationId: write.input.locationId, deltaKg: write.input.deltaKg, groupId: null }]
      : (() => {
          const groupId = newId('grp');
          const { fromLocationId, toLocationId, weightKg } = write.input;
          return [
            { kind: 'transfer_out', locationId: fromLocationId, deltaKg: `-${weightKg}`, groupId },
            { kind: 'transfer_in', locationId: toLocationId, deltaKg: weightKg, groupId },
          ];
        })();
  await db.transaction(
    async (tx) => {
      const lot = await green.lockLot(tx, orgId, write.input.id);
      if (!lot) throw new Error('lot vanished');
      const { balances } = await green.readStock(tx, orgId, [lot.id]);
      for (const leg of legs) {
        const here = balances.find((b) => b.locationId === leg.locationId)?.onHand ?? 0n;
        if (here + grams(leg.deltaKg) < 0n) throw new Error('bench lot ran out');
      }
      await tx.query(BARE_WRITE_SQL, [
        orgId,
        lot.id,
        legs.map(() => newId('glt')),
        legs.map((l) => l.kind),
        legs.map((l) => l.locationId),
        legs.map((l) => l.deltaKg),
        legs.map((l) => l.groupId),
      ]);
    },
    { orgId },
  );
}

/**
 * CPU spent by this process (server and load generator) and by the PostgreSQL backends serving the bench
 * database, in ms: on a shared machine throughput moves with the neighbours' load, CPU per write much less.
 * Linux /proc and a local server only; undefined elsewhere.
 */
async function cpuMs(): Promise<{ node: number; db: number } | undefined> {
  try {
    const backends = await owner.query<{ pid: number }>(`select pid from pg_stat_activity where datname = current_database()`);
    const ticks = backends.reduce((sum, { pid }) => {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      return sum + Number(fields[11]) + Number(fields[12]); // utime + stime, in clock ticks (10 ms)
    }, 0);
    const own = process.cpuUsage();
    return { node: (own.user + own.system) / 1000, db: ticks * 10 };
  } catch {
    return undefined;
  }
}

interface CpuPerWrite {
  node: number;
  db: number;
  total: number;
}

async function withCpu<T extends { perSecond: number }>(seconds: number, run: () => Promise<T>): Promise<T & { cpu?: CpuPerWrite }> {
  const before = await cpuMs();
  const result = await run();
  const after = await cpuMs();
  if (!before || !after) return result;
  const writes = result.perSecond * seconds;
  const node = (after.node - before.node) / writes;
  const db = (after.db - before.db) / writes;
  return { ...result, cpu: { node, db, total: node + db } };
}

async function runBare(orgId: string, lots: string[], siteA: string, siteB: string, seconds: number) {
  const until = Date.now() + seconds * 1000;
  let done = 0;
  let failed = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (Date.now() < until) {
        try {
          await bareWrite(service, orgId, nextWrite(lots, siteA, siteB));
          done++;
        } catch {
          failed++;
        }
      }
    }),
  );
  return { perSecond: done / seconds, failed };
}

async function runHttp(apiKey: string, lots: string[], siteA: string, siteB: string, seconds: number) {
  const result = await load({}, { module: import.meta.url, name: 'ledgerWriteLoad', data: { url: bench.url, apiKey, lots, siteA, siteB, seconds } });
  return { perSecond: result.requestsPerSecond, failed: result.non2xx, p99Ms: result.p99Ms };
}

/** The API side's load, built in the generator's process (bench/load-child.ts). */
export function ledgerWriteLoad({ url, apiKey, lots, siteA, siteB, seconds }: { url: string; apiKey: string; lots: string[]; siteA: string; siteB: string; seconds: number }): autocannon.Options {
  return {
    url,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [
      {
        method: 'POST',
        setupRequest(request: any) {
          const write = nextWrite(lots, siteA, siteB);
          request.path = `/rpc/v1/inventory.green.${write.op}`;
          request.headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
          request.body = JSON.stringify(write.input);
          return request;
        },
      },
    ],
  };
}

async function benchWrites() {
  const { organizationId: orgId, apiKey } = await createOrganization(owner, 'Ledger bench (writes)', 'enterprise');
  const siteA = (await rpc(apiKey, 'catalog.location.createLocation', { name: 'Roastery', code: 'A', kind: 'the service' })).id;
  const siteB = (await rpc(apiKey, 'catalog.location.createLocation', { name: 'Warehouse', code: 'B', kind: 'warehouse' })).id;
  const lots: string[] = [];
  for (let i = 0; i < WRITE_LOTS; i++) {
    const { lot } = await rpc(apiKey, 'inventory.green.importGreenLot', { name: `Bench ${i}`, lotCode: `W-${i}`, weightKg: '2000000', locationId: siteA });
    await rpc(apiKey, 'inventory.green.transferGreenLotToLocation', { id: lot.id, fromLocationId: siteA, toLocationId: siteB, weightKg: '1000000' });
    lots.push(lot.id);
  }
  await runHttp(apiKey, lots, siteA, siteB, 2); // warm both paths: JIT, pool connections, caches
  await runBare(orgId, lots, siteA, siteB, 2);

  // Each round pairs a bare and an HTTP measurement taken back to back; the median of the paired ratios
  // resists the drift of a shared machine better than a ratio of medians.
  const ratios: number[] = [];
  const cpuRatios: number[] = [];
  const rows: Record<string, string | number>[] = [];
  const show = (c: CpuPerWrite | undefined) => (c ? `${c.total.toFixed(2)} (${c.node.toFixed(2)} + ${c.db.toFixed(2)})` : 'n/a');
  const settled = await untilSettled(async (round) => {
    const b = await withCpu(ROUND_SECONDS, () => runBare(orgId, lots, siteA, siteB, ROUND_SECONDS));
    const h = await withCpu(ROUND_SECONDS, () => runHttp(apiKey, lots, siteA, siteB, ROUND_SECONDS));
    ratios.push(h.perSecond / b.perSecond);
    if (b.cpu && h.cpu) cpuRatios.push(b.cpu.total / h.cpu.total);
    rows.push({
      round,
      'HTTP/bare': `${((h.perSecond / b.perSecond) * 100).toFixed(1)}%`,
      'bare tx/s': Math.round(b.perSecond),
      'bare CPU ms/write (node + db)': show(b.cpu),
      'HTTP req/s': Math.round(h.perSecond),
      'HTTP CPU ms/write (node + db)': show(h.cpu),
      'HTTP p99 ms': h.p99Ms,
      'failed bare/HTTP': `${b.failed}/${h.failed}`,
    });
    return h.perSecond / b.perSecond;
  }, { minRounds: Math.min(ROUNDS, 3) });
  printTable(`(a) adjust + transfer writes, ${CONNECTIONS} concurrent clients over ${WRITE_LOTS} lots, ${ROUND_SECONDS} s rounds`, rows);
  const ratio = settled.ratio;
  record({ measure: 'ledger writes (adjust + transfer) API / bare SQL', goal: '≥ 75%', figure: ratio, unit: 'ratio', pass: ratio >= 0.75, note: settledNote(settled) });
  if (cpuRatios.length > 0) {
    const cpuRatio = median(cpuRatios);
    console.log(
      `bare / HTTP CPU per write: ${(cpuRatio * 100).toFixed(1)}%   (node = the server process; db = the PostgreSQL ` +
        'backends; the throughput ratio a CPU-bound machine without neighbours converges to)',
    );
  }
  const violations = await ledgerInvariantViolations(owner, orgId);
  const [{ n }] = await owner.query<{ n: number }>(`select count(*)::int as n from green_lot_ledger where org_id = $1`, [orgId]);
  if (violations.length > 0) {
    console.log(`LEDGER CHECK FAILED:\n${violations.slice(0, 20).join('\n')}`);
    process.exitCode = 1;
  } else {
    console.log(`ledger check: ${n} rows written; every balance equals the sum of its ledger rows, nothing went below zero`);
  }
}

// ---------------------------------------------------------------------------------------------------
// (b) Reads versus ledger length

/**
 * Bulk-loads `lotCount` lots with ROWS_PER_LOT ledger rows each, exactly as the service would have
 * written them: a 1000 kg receive at A, 24 transfers of 2 kg to B (two rows sharing a group each) and a
 * 1 kg adjustment, with the lot totals and both balances equal to the sums of those rows.
 */
async function bulkLoad(orgId: string, prefix: string, lotCount: number, siteA: string, siteB: string, options: { rebuildIndexes: boolean }) {
  const chunk = 10_000;
  await owner.transaction(async (tx) => {
    // The loader is the tables' owner: when it is also a superuser, skip per-row FK triggers (the rows
    // reference only the lots and locations created here) as a bulk load normally would.
    const [{ superuser }] = await tx.query<{ superuser: boolean }>(`select rolsuper as superuser from pg_roles where rolname = current_user`);
    if (superuser) await tx.query(`set local session_replication_role = replica`);
    await tx.query(`set local synchronous_commit = off`);
    const rebuild = options.rebuildIndexes ? await dropLedgerIndexes(tx) : async () => {};
    // Lots in the outer loop (lateral), so rows arrive in key order and every index grows at its right edge.
    for (let from = 1; from <= lotCount; from += chunk) {
      const to = Math.min(lotCount, from + chunk - 1);
      const lotId = `format('gl_${prefix}%s', lpad(i::text, 9, '0'))`;
      await tx.query(
        `insert into green_lots (org_id, id, lot_code, name, state, quarantined, on_hand_kg, reserved_kg, opening_kg, ledger_seq, created_at, updated_at)
         select $1, ${lotId}, format('${prefix.toUpperCase()}-%s', i), format('Bench lot %s', i),
                case when i % 7 = 0 then 'parchment' else 'green' end, i % 50 = 0, 999, 0, 1000, ${ROWS_PER_LOT}, now(), now()
         from generate_series($2::int, $3::int) i`,
        [orgId, from, to],
      );
      await tx.query(
        `insert into green_lot_ledger (org_id, id, lot_id, seq, kind, location_id, delta_kg, reserved_delta_kg, group_id, credential_id, created_at)
         select $1, format('glt_${prefix}%sx%s', lpad(i::text, 9, '0'), lpad(s::text, 3, '0')), ${lotId}, s,
                case when s = 1 then 'receive' when s = ${ROWS_PER_LOT} then 'adjust' when s % 2 = 0 then 'transfer_out' else 'transfer_in' end,
                case when s = 1 or s = ${ROWS_PER_LOT} or s % 2 = 0 then $4 else $5 end,
                case when s = 1 then 1000 when s = ${ROWS_PER_LOT} then -1 when s % 2 = 0 then -2 else 2 end,
                0,
                case when s between 2 and ${ROWS_PER_LOT - 1} then format('grp_${prefix}%sx%s', i, s - s % 2) end,
                'bench', now() - make_interval(mins => ${ROWS_PER_LOT} - s)
         from generate_series($2::int, $3::int) i cross join lateral generate_series(1, ${ROWS_PER_LOT}) s`,
        [orgId, from, to, siteA, siteB],
      );
      await tx.query(
        `insert into green_lot_balances (org_id, lot_id, location_id, on_hand_kg)
         select $1, ${lotId}, l.location_id, l.kg
         from generate_series($2::int, $3::int) i, (values ($4, 951), ($5, 48)) as l(location_id, kg)`,
        [orgId, from, to, siteA, siteB],
      );
    }
    await rebuild();
  });
  await owner.exec(`analyze green_lots; analyze green_lot_ledger; analyze green_lot_balances`);
}

/**
 * The usual recipe for a large load: drop the ledger's indexes and unique constraints, load, rebuild them
 * once (a sorted build instead of millions of single inserts). Their definitions are read from the
 * catalog, so the rebuild is exactly what the migrations created; rebuilding the unique ones also proves
 * the loaded rows unique. Returns the rebuild.
 */
async function dropLedgerIndexes(tx: Queryable): Promise<() => Promise<void>> {
  const constraints = await tx.query<{ name: string; definition: string }>(
    `select conname as name, pg_get_constraintdef(oid) as definition from pg_constraint
     where conrelid = 'green_lot_ledger'::regclass and contype in ('p', 'u')`,
  );
  const indexes = await tx.query<{ name: string; definition: string }>(
    `select i.relname as name, pg_get_indexdef(i.oid) as definition
     from pg_index x join pg_class i on i.oid = x.indexrelid
     where x.indrelid = 'green_lot_ledger'::regclass and not exists (select 1 from pg_constraint c where c.conindid = i.oid)`,
  );
  for (const c of constraints) await tx.query(`alter table green_lot_ledger drop constraint ${c.name}`);
  for (const i of indexes) await tx.query(`drop index ${i.name}`);
  return async () => {
    await tx.query(`set local maintenance_work_mem = '256MB'`);
    for (const c of constraints) await tx.query(`alter table green_lot_ledger add constraint ${c.name} ${c.definition}`);
    for (const i of indexes) await tx.query(i.definition);
  };
}

interface ReadCase {
  label: string;
  /** The HTTP call, with a lot picked at random (and a cursor at a random lot for deep pages). */
  http: (pick: () => string) => [operation: string, input: unknown];
  /** The same read's repository statements, as the handler runs them, for counting buffers. */
  sql: (q: Queryable, orgId: string, lotId: string) => Promise<unknown>;
}

const cursorAt = (lotId: string) => Buffer.from(JSON.stringify([lotId])).toString('base64url');
const page = (after?: string) => ({ limit: 50, ...(after ? { cursor: cursorAt(after) } : {}) });

function readCases(siteB: string): ReadCase[] {
  return [
    {
      label: 'getGreenLot',
      http: (pick) => ['inventory.green.getGreenLot', { id: pick() }],
      sql: (q, orgId, lotId) => green.findLotDetail(q, orgId, lotId),
    },
    {
      label: 'listGreenLots, first page',
      http: () => ['inventory.green.listGreenLots', { page: page() }],
      sql: (q, orgId) => green.listLots(q, orgId, {}, page()),
    },
    {
      label: 'listGreenLots, page deep in the list',
      http: (pick) => ['inventory.green.listGreenLots', { page: page(pick()) }],
      sql: (q, orgId, lotId) => green.listLots(q, orgId, {}, page(lotId)),
    },
    {
      label: 'listGreenLots, hasStock + state',
      http: (pick) => ['inventory.green.listGreenLots', { filter: { hasStock: true, state: 'green' }, page: page(pick()) }],
      sql: (q, orgId, lotId) => green.listLots(q, orgId, { hasStock: true, state: 'green' }, page(lotId)),
    },
    {
      label: 'listGreenLots, locationId',
      http: (pick) => ['inventory.green.listGreenLots', { filter: { locationId: siteB }, page: page(pick()) }],
      sql: (q, orgId, lotId) => green.listLots(q, orgId, { locationId: siteB }, page(lotId)),
    },
    {
      label: 'listGreenLotTransactions, 50 rows',
      http: (pick) => ['inventory.green.listGreenLotTransactions', { greenLotId: pick(), page: { limit: 50 } }],
      sql: async (q, orgId, lotId) => {
        await green.findLot(q, orgId, lotId);
        await green.listLedger(q, orgId, lotId, { limit: 50 });
      },
    },
  ];
}

interface ReadCost {
  ms: number;
  pages: number;
}

interface LoadedOrg {
  organizationId: string;
  apiKey: string;
  prefix: string;
  lots: number;
  siteB: string;
}

/**
 * Per read and organization: the median latency of sequential GETs through the HTTP API (lots picked at
 * random; the organizations' requests interleaved so the machine's drift hits them alike) and the shared
 * buffers the read's statements touch for the lot in the middle of the organization.
 */
async function measureReads(orgs: LoadedOrg[], samples = 100): Promise<Map<string, ReadCost>[]> {
  const lotAt = (o: LoadedOrg, n: number) => `gl_${o.prefix}${String(n).padStart(9, '0')}`;
  const pickers = orgs.map((o) => () => lotAt(o, 1 + Math.floor(Math.random() * o.lots)));
  const cases = orgs.map((o) => readCases(o.siteB));
  const results = orgs.map(() => new Map<string, ReadCost>());
  for (let c = 0; c < cases[0].length; c++) {
    for (const [k, o] of orgs.entries()) {
      for (let i = 0; i < 10; i++) await rpc(o.apiKey, ...cases[k][c].http(pickers[k]), 'GET'); // warm
    }
    const ms = orgs.map(() => [] as number[]);
    for (let i = 0; i < samples; i++) {
      for (const [k, o] of orgs.entries()) {
        const [operation, input] = cases[k][c].http(pickers[k]);
        const t0 = performance.now();
        await rpc(o.apiKey, operation, input, 'GET');
        ms[k].push(performance.now() - t0);
      }
    }
    for (const [k, o] of orgs.entries()) {
      const read = cases[k][c];
      const pages = await buffersTouched(o.organizationId, (q) => read.sql(q, o.organizationId, lotAt(o, Math.ceil(o.lots / 2))));
      results[k].set(read.label, { ms: median(ms[k]), pages });
    }
  }
  return results;
}

/**
 * Shared buffers (8 kB pages) the statements of one read touch, from EXPLAIN (ANALYZE, BUFFERS): a cost
 * that does not move with caches or neighbours.
 */
async function buffersTouched(orgId: string, read: (q: Queryable) => Promise<unknown>): Promise<number> {
  let pages = 0;
  await service.transaction(
    async (tx) => {
      const explaining: Queryable = {
        async query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
          const [row] = await tx.query<{ 'QUERY PLAN': { Plan: Record<string, number> }[] }>(`explain (analyze, buffers, format json) ${sql}`, params);
          const plan = row['QUERY PLAN'][0].Plan;
          pages += plan['Shared Hit Blocks'] + plan['Shared Read Blocks'];
          return [];
        },
        exec: (sql) => tx.exec(sql),
      };
      await read(explaining);
    },
    { orgId, readOnly: true },
  );
  return pages;
}

async function benchReads() {
  const bigLots = Math.max(1000, Math.round(100_000 * SCALE));
  const orgs = [
    { label: `${bigLots.toLocaleString('en')} lots / ${(bigLots * ROWS_PER_LOT).toLocaleString('en')} rows`, prefix: 'big', lots: bigLots },
    { label: `1,000 lots / ${(1000 * ROWS_PER_LOT).toLocaleString('en')} rows`, prefix: 'small', lots: 1000 },
  ];
  // Both organizations are loaded before either is measured, so both are read from the same tables. The
  // small one goes first: the big load then rebuilds the ledger's indexes once for everything.
  const loaded: LoadedOrg[] = [];
  for (const o of [...orgs].reverse()) {
    const { organizationId, apiKey } = await createOrganization(owner, `Ledger bench (${o.prefix})`, 'enterprise');
    const siteA = (await rpc(apiKey, 'catalog.location.createLocation', { name: 'Roastery', code: 'A', kind: 'the service' })).id;
    const siteB = (await rpc(apiKey, 'catalog.location.createLocation', { name: 'Warehouse', code: 'B', kind: 'warehouse' })).id;
    const t0 = Date.now();
    await bulkLoad(organizationId, o.prefix, o.lots, siteA, siteB, { rebuildIndexes: o.lots >= 10_000 });
    console.log(`loaded ${o.label} in ${((Date.now() - t0) / 1000).toFixed(1)} s, then ANALYZE`);
    // The loaded rows must be what the service itself would have written.
    const sample = await rpc(apiKey, 'inventory.green.getGreenLot', { id: `gl_${o.prefix}${'1'.padStart(9, '0')}` }, 'GET');
    if (sample.onHandKg !== '999.000' || sample.balances.length !== 2) throw new Error(`bulk load is inconsistent: ${JSON.stringify(sample)}`);
    loaded.unshift({ organizationId, apiKey, prefix: o.prefix, lots: o.lots, siteB });
  }
  const measured = await measureReads(loaded);
  const [big, small] = measured;
  const [bigLabel, smallLabel] = orgs.map((o) => o.label);
  const rows = [...big.keys()].map((read) => ({
    read,
    [`ms, ${bigLabel}`]: big.get(read)!.ms.toFixed(2),
    [`ms, ${smallLabel}`]: small.get(read)!.ms.toFixed(2),
    'ms ratio': (big.get(read)!.ms / small.get(read)!.ms).toFixed(2),
    'pages, big': big.get(read)!.pages,
    'pages, small': small.get(read)!.pages,
  }));
  printTable('(b) one read through the HTTP API: median latency (sequential GETs) and shared buffers its SQL touches', rows);
  const worst = Math.max(...rows.map((r) => Number(r['ms ratio'])));
  console.log(`worst latency ratio big/small: ${worst.toFixed(2)}; equal page counts mean the work does not grow with ledger length`);
}

/** `LEDGER_BENCH=writes` (what `npm run bench` runs) or `=reads`; both by default when run alone. */
export async function benchLedger(parts = (process.env.LEDGER_BENCH ?? 'writes,reads').split(',')) {
  announce('ledger');
  if (!process.env.DATABASE_URL) {
    console.log('bench/ledger.ts measures PostgreSQL: set DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/postgres); skipped.');
    return;
  }
  const started = Date.now();
  bench = await startBenchApp();
  ({ owner, service } = bench.app.databases);
  try {
    console.log(`Ledger benchmark on ${bench.kind}, LEDGER_BENCH_SCALE=${SCALE}`);
    if (parts.includes('writes')) await benchWrites();
    if (parts.includes('reads')) await benchReads();
    console.log(`\ntotal ${((Date.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    await bench.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await benchLedger();
