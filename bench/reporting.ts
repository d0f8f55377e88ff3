// Reports under load (run: DATABASE_URL=… node --import tsx bench/reporting.ts). An inventory valuation over
// an organization with 100,000 green lots and 5,000,000 ledger rows (REPORT_BENCH_SCALE scales both, e.g.
// 0.2), bulk-loaded with generate_series in the shape a roastery's ledger has (a receive, transfers between
// two sites, an adjustment per lot, spread over time), each lot with a landed cost. Measured: the render time
// (queued → ready, from the report's own timestamps), and the API's p99 for a cheap read
// (catalog.location.getLocation over HTTP) while a report renders against the same read with no report
// running, in the same process and run. Goal: ≤ 1.25x. The worker runs in the API's own process (the
// embedded shape, the harder case: rendering shares the event loop), one report job at a time.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startBenchApp, load, printTable, record, machineState } from './lib.js';
import { createOrganization } from '../src/auth/organizations.js';

const SCALE = Number(process.env.REPORT_BENCH_SCALE ?? 1);
const ROWS_PER_LOT = 50;
const CONNECTIONS = 8;

async function rpc(url: string, apiKey: string, operation: string, input: unknown) {
  const res = await fetch(`${url}/rpc/v1/${operation}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(input),
  });
  const body = (await res.json()) as any;
  if (res.status !== 200) throw new Error(`${operation}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

export async function benchReporting() {
  const bench = await startBenchApp({ jobWorkers: { pollingIntervalSeconds: 0.5 } });
  const { owner } = bench.app.databases;
  const { organizationId: orgId, apiKey } = await createOrganization(owner, 'Bench roastery', 'enterprise');
  const siteA = (await rpc(bench.url, apiKey, 'catalog.location.createLocation', { name: 'Roastery', code: 'A', kind: 'warehouse' })).id;
  const siteB = (await rpc(bench.url, apiKey, 'catalog.location.createLocation', { name: 'Warehouse', code: 'B', kind: 'warehouse' })).id;

  const lots = Math.max(100, Math.round(100_000 * SCALE));
  const loadStarted = Date.now();
  const chunk = 5_000;
  await owner.transaction(async (tx) => {
    const [{ superuser }] = await tx.query<{ superuser: boolean }>(`select rolsuper as superuser from pg_roles where rolname = current_user`);
    if (superuser) await tx.query(`set local session_replication_role = replica`);
    await tx.query(`set local synchronous_commit = off`);
    for (let from = 1; from <= lots; from += chunk) {
      const to = Math.min(lots, from + chunk - 1);
      const lotId = `format('gl_b%s', lpad(i::text, 9, '0'))`;
      await tx.query(
        `insert into green_lots (org_id, id, lot_code, name, on_hand_kg, opening_kg, ledger_seq)
         select $1, ${lotId}, format('B-%s', i), format('Bench lot %s', i), 999, 1000, ${ROWS_PER_LOT} from generate_series($2::int, $3::int) i`,
        [orgId, from, to],
      );
      await tx.query(
        `insert into green_lot_ledger (org_id, id, lot_id, seq, kind, location_id, delta_kg, group_id, credential_id, created_at)
         select $1, format('glt_b%sx%s', lpad(i::text, 9, '0'), lpad(s::text, 3, '0')), ${lotId}, s,
                case when s = 1 then 'receive' when s = ${ROWS_PER_LOT} then 'adjust' when s % 2 = 0 then 'transfer_out' else 'transfer_in' end,
                case when s = 1 or s = ${ROWS_PER_LOT} or s % 2 = 0 then $4 else $5 end,
                case when s = 1 then 1000 when s = ${ROWS_PER_LOT} then -1 when s % 2 = 0 then -2 else 2 end,
                case when s between 2 and ${ROWS_PER_LOT - 1} then format('grp_b%sx%s', i, s - s % 2) end,
                'bench', now() - make_interval(mins => ${ROWS_PER_LOT} - s)
         from generate_series($2::int, $3::int) i cross join lateral generate_series(1, ${ROWS_PER_LOT}) s`,
        [orgId, from, to, siteA, siteB],
      );
      await tx.query(
        `insert into green_lot_balances (org_id, lot_id, location_id, on_hand_kg)
         select $1, ${lotId}, l.location_id, l.kg from generate_series($2::int, $3::int) i, (values ($4, 951), ($5, 48)) as l(location_id, kg)`,
        [orgId, from, to, siteA, siteB],
      );
      await tx.query(
        `insert into green_lot_landed_costs (org_id, lot_id, version, currency, price, freight, duty, carry, other, total, weight_basis_kg, per_kg)
         select $1, ${lotId}, 1, 'EUR', 5250, 0, 0, 0, 0, 5250, 1000, 5.25 from generate_series($2::int, $3::int) i`,
        [orgId, from, to],
      );
    }
  });
  await owner.exec(`analyze green_lots; analyze green_lot_ledger; analyze green_lot_balances; analyze green_lot_landed_costs`);
  const loadSeconds = (Date.now() - loadStarted) / 1000;
  console.log(`loaded ${lots.toLocaleString('en')} lots and ${(lots * ROWS_PER_LOT).toLocaleString('en')} ledger rows in ${loadSeconds.toFixed(0)} s`);

  const render = async () => {
    const report = await rpc(bench.url, apiKey, 'reporting.generateReport', { kind: 'inventory_valuation' });
    for (;;) {
      const current = await rpc(bench.url, apiKey, 'reporting.getReport', { id: report.id });
      if (current.status === 'ready' || current.status === 'failed') return current;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const seconds = (r: any) => (Date.parse(r.completedAt) - Date.parse(r.startedAt)) / 1000;

  // A render alone, to know how long the loaded window must be (and to warm the caches both runs share).
  const aloneCpu = process.cpuUsage();
  const alone = await render();
  const renderCpu = process.cpuUsage(aloneCpu);
  if (alone.status !== 'ready') throw new Error(`the report failed: ${alone.failureReason}`);
  const expectedKg = `${(999 * lots).toFixed(3)}`;
  if (alone.summary.greenKg !== expectedKg) throw new Error(`valuation ${alone.summary.greenKg} kg, expected ${expectedKg}`);
  const renderAlone = seconds(alone);

  const read = { url: `${bench.url}/rpc/v1/catalog.location.getLocation?input=${encodeURIComponent(JSON.stringify({ id: siteA }))}`, headers: { authorization: `Bearer ${apiKey}` }, connections: CONNECTIONS };
  await load({ ...read, duration: 2 });
  const window = Math.max(2, Math.floor(renderAlone * 0.8));
  const idle = await load({ ...read, duration: window });
  // The event loop's delay while the report renders: how long a request could wait for the render's work.
  const delay = monitorEventLoopDelay({ resolution: 10 });
  const cpuBefore = process.cpuUsage();
  delay.enable();
  const rendering = render();
  const busy = await load({ ...read, duration: window });
  const during = await rendering;
  delay.disable();
  const cpu = process.cpuUsage(cpuBefore);
  const ratio = busy.p99Ms / idle.p99Ms;
  printTable(`inventory_valuation on ${bench.kind}: ${lots.toLocaleString('en')} lots, ${(lots * ROWS_PER_LOT).toLocaleString('en')} ledger rows; getLocation p99 (${CONNECTIONS} connections, ${window} s)`, [
    { run: 'render alone', 'render s': renderAlone.toFixed(2), 'pdf bytes': alone.files.pdfBytes, 'csv bytes': alone.files.csvBytes },
    { run: 'no report', 'read req/s': idle.requestsPerSecond, 'read p50 ms': idle.p50Ms, 'read p99 ms': idle.p99Ms },
    { run: 'while rendering', 'render s': seconds(during).toFixed(2), 'read req/s': busy.requestsPerSecond, 'read p50 ms': busy.p50Ms, 'read p99 ms': busy.p99Ms },
  ]);
  const ms = (ns: number) => (ns / 1e6).toFixed(1);
  console.log(`event-loop delay while rendering: p50 ${ms(delay.percentile(50))} ms, p99 ${ms(delay.percentile(99))} ms, max ${ms(delay.max)} ms; process CPU ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s (the render and the reads); the render alone ${((renderCpu.user + renderCpu.system) / 1e6).toFixed(2)} s of this process's CPU (the database's own not counted on PostgreSQL); ${machineState().note}`);
  record({ measure: `getLocation p99 while a ${lots.toLocaleString('en')}-lot valuation renders / idle`, goal: '≤ 1.25×', figure: ratio, unit: '×', pass: ratio <= 1.25, note: `p99 ${busy.p99Ms.toFixed(1)} vs ${idle.p99Ms.toFixed(1)} ms` });
  await bench.close();
  return ratio;
}

if (import.meta.url === `file://${process.argv[1]}`) await benchReporting();
