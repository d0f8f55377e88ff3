// allocateOrder throughput under concurrency (run: node --import tsx bench/allocation.ts; DATABASE_URL set
// for the goal, which is stated for PostgreSQL): confirmed orders, one 3 kg line each, against roasted stock
// of 2,000 kg per scenario (2,400 kg ordered), allocated by 32 callers at once through the whole pipeline,
// the load generated in another process (autocannon in bench/load-child.ts, each request the next order).
// Contended: one green coffee, 20 roasted lots, so every allocation competes for the same rows. Spread: 100
// green coffees with 2 roasted lots each. After each round, a check that no kilogram was promised twice and
// that exactly the 2,000 kg of stock was claimed. Rounds: BENCH_ROUNDS (default 3), each on fresh orders.
import { fileURLToPath } from 'node:url';
import type autocannon from 'autocannon';
import { createOrganization } from '../src/auth/organizations.js';
import type { Database } from '../src/db/client.js';
import { announce, load, median, printTable, record, startBenchApp } from './lib.js';

const ORDERS = 800;
const RACERS = 32;

export async function benchAllocation(rounds = Number(process.env.BENCH_ROUNDS ?? 3)) {
  announce('orders.allocateOrder');
  const bench = await startBenchApp();
  const owner = bench.app.databases.owner;
  const { organizationId: orgId, apiKey, keyId } = await createOrganization(owner, 'Bench allocation', 'enterprise');
  const rows: Record<string, string | number>[] = [];
  const contended: number[] = [];
  // Round 0 warms up (JIT, plans, pools) and is not counted.
  for (let round = 0; round <= rounds; round++) {
    for (const scenario of [
      { name: 'contended', coffees: 1, lotsPerCoffee: 20 },
      { name: 'spread', coffees: 100, lotsPerCoffee: 2 },
    ]) {
      // Ids are '<prefix>_<scenario><n>': the API's id format has one underscore.
      const p = `${scenario.name}r${round}x`;
      await seed(owner, orgId, keyId, p, scenario.coffees, scenario.lotsPerCoffee);
      await owner.query('analyze roasted_lots, order_allocations, orders, order_lines');
      const started = performance.now();
      const result = await load({}, { module: fileURLToPath(import.meta.url), name: 'allocationLoad', data: { url: bench.url, apiKey, prefix: p } });
      const seconds = (performance.now() - started) / 1000;
      if (result.non2xx > 0) throw new Error(`${scenario.name}: ${result.non2xx} allocations answered other than 200`);
      const [check] = await owner.query<{ claimed: string; over: number; allocated: number }>(
        `select (select coalesce(sum(quantity_kg), 0)::numeric(14, 3)::text from order_allocations where org_id = $1 and order_id like 'so_' || $2 || '%') as claimed,
                (select count(*)::int from roasted_lots r where r.org_id = $1 and r.id like 'rl_' || $2 || '%' and r.on_hand_kg <
                   (select coalesce(sum(a.quantity_kg), 0) from order_allocations a where a.org_id = $1 and a.roasted_lot_id = r.id and a.released_at is null)) as over,
                (select count(*)::int from orders where org_id = $1 and id like 'so_' || $2 || '%' and state = 'allocated') as allocated`,
        [orgId, p],
      );
      if (check.over > 0) throw new Error(`${scenario.name}: ${check.over} roasted lots were promised beyond their stock`);
      if (check.claimed !== '2000.000') throw new Error(`${scenario.name}: ${check.claimed} kg claimed of 2,000 kg of stock`);
      const perSecond = ORDERS / seconds;
      if (round === 0) continue;
      if (scenario.name === 'contended') contended.push(perSecond);
      rows.push({
        round,
        scenario: scenario.name,
        'roasted lots': scenario.coffees * scenario.lotsPerCoffee,
        'orders allocated in full': check.allocated,
        'kg claimed (of 2,000)': check.claimed,
        'allocations/s': Math.round(perSecond),
        'p50 ms': result.p50Ms.toFixed(1),
        'p99 ms': result.p99Ms.toFixed(1),
      });
    }
  }
  printTable(`allocateOrder on ${bench.kind}, ${RACERS} concurrent callers, ${ORDERS} orders of 3 kg (2,400 kg ordered against 2,000 kg of stock)`, rows);
  const figure = median(contended);
  record({
    measure: 'allocateOrder, 32 racers on 20 lots',
    goal: '≥ 300/s, exact',
    figure: Math.round(figure),
    unit: '/s',
    pass: figure >= 300,
    note: `median of ${contended.length} rounds (${contended.map(Math.round).join(', ')}); each exact: 2,000 kg claimed, no lot over`,
  });
  await bench.close();
  return figure;
}

async function seed(owner: Database, orgId: string, keyId: string, p: string, coffees: number, lotsPerCoffee: number) {
  const lots = coffees * lotsPerCoffee;
  const lotKg = 2000 / lots;
  await owner.query(`insert into green_lots (org_id, id, lot_code, name) select $1, 'gl_' || $2 || i, 'GL-' || $2 || i, 'Green' from generate_series(1, $3) i`, [orgId, p, coffees]);
  await owner.query(
    `insert into roasted_lots (org_id, id, lot_code, form, green_lot_id, roasted_at, on_hand_kg, opening_kg, ledger_seq)
     select $1, 'rl_' || $2 || j, 'R-' || $2 || j, 'loose', 'gl_' || $2 || (j % $3 + 1), now() - j * interval '1 hour', $4, $4, 1 from generate_series(1, $5) j`,
    [orgId, p, coffees, lotKg, lots],
  );
  await owner.query(
    `insert into roasted_lot_ledger (org_id, id, lot_id, seq, kind, delta_kg, credential_id)
     select $1, 'rlt_' || $2 || j, 'rl_' || $2 || j, 1, 'roast_output', $3, $4 from generate_series(1, $5) j`,
    [orgId, p, lotKg, keyId, lots],
  );
  await owner.query(`insert into customers (org_id, id, code, name, currency) values ($1, 'cus_' || $2, 'C-' || $2, 'Bench customer', 'EUR')`, [orgId, p]);
  await owner.query(
    `insert into orders (org_id, id, order_number, customer_id, channel, currency, state, confirmed_at, credential_id)
     select $1, 'so_' || $2 || i, 'SO-' || $2 || i, 'cus_' || $2, 'direct', 'EUR', 'confirmed', now(), $4 from generate_series(1, $3) i`,
    [orgId, p, ORDERS, keyId],
  );
  await owner.query(
    `insert into order_lines (org_id, id, order_id, line_number, green_lot_id, quantity_kg, unit_price, line_total)
     select $1, 'sol_' || $2 || i, 'so_' || $2 || i, 1, 'gl_' || $2 || (i % $3 + 1), 3, 20, 60 from generate_series(1, $4) i`,
    [orgId, p, coffees, ORDERS],
  );
}

/** The load, built in the generator's process (bench/load-child.ts): 32 connections, each request the next order, 800 in all. */
export function allocationLoad({ url, apiKey, prefix }: { url: string; apiKey: string; prefix: string }): autocannon.Options {
  let next = 0;
  return {
    url,
    connections: RACERS,
    amount: ORDERS,
    duration: 600, // ignored: autocannon stops after `amount` requests
    requests: [
      {
        method: 'POST',
        path: '/rpc/v1/orders.allocateOrder',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        setupRequest(request) {
          request.body = JSON.stringify({ id: `so_${prefix}${++next}` });
          return request;
        },
      },
    ],
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await benchAllocation();
