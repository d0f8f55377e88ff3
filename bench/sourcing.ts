// Sourcing, two measurements (run: node --import tsx bench/sourcing.ts; DATABASE_URL set: goals are stated for PostgreSQL).
//
// 1. listOpenPositions as history grows: an organization with 10,000 contracts and 100,000 lines (100 of them
//    open, the rest closed or fully received: a buyer's years of history) against one with 100 contracts and
//    1,000 lines, all open: the same open book. Seeded with bare SQL. The median answer time of each,
//    alternating; goal: large / small ≤ 1.5x. (An answer listing every open contract grows with the open book
//    itself; what must not grow it is the history.)
// 2. receiveContractShipment of 100 lines through the API (auth, validation, the green seam, ledger, cost,
//    lineage, events, one transaction) against the same rows written by bare SQL in one transaction of
//    multi-row inserts on the same database. Goal: API ≥ 40% of bare (bare time / API time).
import { fileURLToPath } from 'node:url';
import { createOrganization } from '../src/auth/organizations.js';
import type { Database } from '../src/db/client.js';
import { startBenchApp, median, printTable, record } from './lib.js';

export async function benchSourcing(rounds = Number(process.env.BENCH_ROUNDS ?? 5)) {
  const bench = await startBenchApp();
  const db = bench.app.databases.owner;
  const large = await createOrganization(db, 'Large book', 'enterprise');
  const small = await createOrganization(db, 'Small book', 'enterprise');
  await seedContracts(db, large.organizationId, 10_000, 100);
  await seedContracts(db, small.organizationId, 100, 100);
  await db.query('analyze');

  const call = async (apiKey: string, operation: string, input: unknown) => {
    const started = performance.now();
    const res = await fetch(`${bench.url}/rpc/v1/${operation}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(input),
    });
    const body = (await res.json()) as any;
    if (res.status !== 200) throw new Error(`${operation}: ${res.status} ${JSON.stringify(body)}`);
    return { body, ms: performance.now() - started };
  };

  // 1. Open positions.
  const check = (await call(large.apiKey, 'sourcing.contract.listOpenPositions', {})).body;
  if (check.totals.contracts !== 100) throw new Error(`expected 100 open contracts, got ${check.totals.contracts}`);
  const timesOf = async (apiKey: string, n: number) => {
    const times: number[] = [];
    for (let i = 0; i < n; i++) times.push((await call(apiKey, 'sourcing.contract.listOpenPositions', {})).ms);
    return median(times);
  };
  await timesOf(large.apiKey, 20);
  await timesOf(small.apiKey, 20);
  const positionRows: Record<string, string | number>[] = [];
  const positionRatios: number[] = [];
  for (let round = 1; round <= rounds; round++) {
    const s = await timesOf(small.apiKey, 50);
    const l = await timesOf(large.apiKey, 50);
    positionRatios.push(l / s);
    positionRows.push({ round, 'small median ms': s.toFixed(2), 'large median ms': l.toFixed(2), 'large/small': (l / s).toFixed(2) });
  }
  const positionRatio = median(positionRatios);
  printTable(`listOpenPositions on ${bench.kind}: 10,000 contracts / 100,000 lines (100 open) vs 100 contracts / 1,000 lines (all open)`, positionRows);
  record({ measure: 'listOpenPositions large / small', goal: '≤ 1.5×', figure: positionRatio, unit: '×', pass: positionRatio <= 1.5 });

  // 2. A receipt of 100 lines.
  const receiver = await createOrganization(db, 'Receiver', 'enterprise');
  const orgId = receiver.organizationId;
  const partnerId = (await call(receiver.apiKey, 'catalog.party.createPartner', { name: 'Importer', code: 'IMP', types: ['importer'] })).body.id as string;
  const receiptRows: Record<string, string | number>[] = [];
  const receiptRatios: number[] = [];
  for (let round = 0; round <= rounds; round++) {
    // Statistics as autovacuum keeps them on a live database: analyzed once while these tables were still empty, a
    // table's 0-row estimate ties the primary key with another unique index (org_id, lot_code) in the foreign-key
    // checks and the lineage labels, which then walk every lot of the organization per row, API and bare alike.
    await db.query(
      `analyze green_lots, green_lot_ledger, green_lot_balances, green_lot_cost_components, green_lot_landed_costs, lineage_edges,
               green_contracts, green_contract_lines, green_contract_shipments, green_contract_receipt_lines, events`,
    );
    const viaApi = await seedShipment(db, orgId, partnerId, `API${round}`);
    const lines = viaApi.lineIds.map((contractLineId, i) => ({ contractLineId, lotCode: `API${round}-${i}`, weightKg: '100', freight: '10' }));
    const api = (await call(receiver.apiKey, 'sourcing.contract.receiveContractShipment', { shipmentId: viaApi.shipmentId, lines })).ms;
    const viaSql = await seedShipment(db, orgId, partnerId, `SQL${round}`);
    const started = performance.now();
    await bareReceipt(db, orgId, partnerId, viaSql, `SQL${round}`);
    const bare = performance.now() - started;
    if (round === 0) continue; // warm-up
    receiptRatios.push(bare / api);
    receiptRows.push({ round, 'API ms': api.toFixed(1), 'bare SQL ms': bare.toFixed(1), 'bare/API': `${((bare / api) * 100).toFixed(1)}%` });
  }
  const receiptRatio = median(receiptRatios);
  printTable(`receiveContractShipment of 100 lines on ${bench.kind}: API vs bare SQL inserts`, receiptRows);
  record({ measure: 'receiveContractShipment bare / API', goal: '≥ 40%', figure: receiptRatio, unit: 'ratio', pass: receiptRatio >= 0.4 });
  await bench.close();
  return { positionRatio, receiptRatio };
}

/**
 * `total` contracts of 10 lines × 1,000 kg at 5 USD/kg; the first `open` confirmed and unreceived, the rest
 * (history) alternately closed and arrived-and-fully-received.
 */
async function seedContracts(db: Database, orgId: string, total: number, open: number) {
  const tag = orgId.slice(-8);
  await db.query(
    `insert into green_contracts (org_id, id, contract_number, partner_id, currency, price_type, status, total_kg, shipped_kg, received_kg,
                                  fixed_kg, fixed_value, fixed_received_value, credential_id)
     select $1, 'gc_' || $4 || lpad(i::text, 8, '0'), 'C-' || i, 'pt_bench', 'USD', 'fixed',
            case when i <= $3 then 'confirmed' when i % 2 = 0 then 'closed' else 'arrived' end,
            10000, case when i <= $3 then 0 else 10000 end, case when i <= $3 then 0 else 10000 end,
            10000, 50000, case when i <= $3 then 0 else 50000 end, 'cred_bench'
     from generate_series(1, $2) i`,
    [orgId, total, open, tag],
  );
  await db.query(
    `insert into green_contract_lines (org_id, id, contract_id, line_number, origin, weight_kg, price_per_kg, fixation_status, currency, received_kg)
     select $1, 'gcl_' || $4 || lpad(i::text, 8, '0') || lpad(n::text, 2, '0'), 'gc_' || $4 || lpad(i::text, 8, '0'), n,
            'Origin ' || (n % 7), 1000, 5, 'fixed', 'USD', case when i <= $3 then 0 else 1000 end
     from generate_series(1, $2) i, generate_series(1, 10) n`,
    [orgId, total, open, tag],
  );
}

/** A shipped contract of 100 lines × 100 kg at 5 USD/kg and its one shipment of 10,000 kg, booked. */
async function seedShipment(db: Database, orgId: string, partnerId: string, tag: string) {
  const contractId = `gc_r${tag.toLowerCase()}`;
  const shipmentId = `gcs_r${tag.toLowerCase()}`;
  await db.query(
    `insert into green_contracts (org_id, id, contract_number, partner_id, currency, price_type, status, total_kg, shipped_kg, fixed_kg, fixed_value, credential_id)
     values ($1, $2, $3, $4, 'USD', 'fixed', 'shipped', 10000, 10000, 10000, 50000, 'cred_bench')`,
    [orgId, contractId, `R-${tag}`, partnerId],
  );
  await db.query(
    `insert into green_contract_lines (org_id, id, contract_id, line_number, origin, weight_kg, price_per_kg, fixation_status, currency)
     select $1, $2 || 'l' || n, $2, n, 'Origin', 100, 5, 'fixed', 'USD' from generate_series(1, 100) n`,
    [orgId, contractId],
  );
  await db.query(
    `insert into green_contract_shipments (org_id, id, contract_id, reference, weight_kg, credential_id) values ($1, $2, $3, 'S', 10000, 'cred_bench')`,
    [orgId, shipmentId, contractId],
  );
  return { contractId, shipmentId, lineIds: Array.from({ length: 100 }, (_, i) => `${contractId}l${i + 1}`) };
}

/**
 * The rows a 100-line receipt writes, by multi-row inserts in one transaction: lots, ledger, balances, cost, lineage,
 * receipt, positions and the two events, each row as the API writes it (names, comments, descriptions, event payloads
 * of the same shape), so the ratio measures the service's overhead and not a difference in the rows.
 */
async function bareReceipt(db: Database, orgId: string, partnerId: string, s: { contractId: string; shipmentId: string; lineIds: string[] }, tag: string) {
  const t = tag.toLowerCase();
  await db.transaction(async (tx) => {
    await tx.query(
      `insert into green_lots (org_id, id, lot_code, name, partner_id, supplier_ref, state, unit_cost, currency, on_hand_kg, opening_kg, ledger_seq)
       select $1, 'gl_' || $2 || n, $3 || '-' || n, 'Origin (R-' || $3 || '/' || n || ')', $4, 'R-' || $3, 'green', 5, 'USD', 100, 100, 1
       from generate_series(1, 100) n`,
      [orgId, t, tag, partnerId],
    );
    await tx.query(
      `insert into green_lot_ledger (org_id, id, lot_id, seq, kind, location_id, delta_kg, reserved_delta_kg, credential_id, comment)
       select $1, 'glt_' || $2 || n, 'gl_' || $2 || n, 1, 'receive', null, 100, 0, 'cred_bench', 'contract R-' || $3 || ' shipment S'
       from generate_series(1, 100) n`,
      [orgId, t, tag],
    );
    await tx.query(
      `insert into green_lot_balances (org_id, lot_id, location_id, on_hand_kg) select $1, 'gl_' || $2 || n, null, 100 from generate_series(1, 100) n`,
      [orgId, t],
    );
    await tx.query(
      `insert into green_lot_cost_components (org_id, id, lot_id, version, position, bucket, amount, currency, basis, description)
       select $1, 'gcc_' || $2 || n || b, 'gl_' || $2 || n, 1, b, case b when 1 then 'price' else 'freight' end, case b when 1 then 5 else 10 end, 'USD',
              case b when 1 then 'per_kg' else 'total' end, case b when 1 then 'contract R-' || $3 || ' line ' || n else 'shipment S' end
       from generate_series(1, 100) n, generate_series(1, 2) b`,
      [orgId, t, tag],
    );
    await tx.query(
      `insert into green_lot_landed_costs (org_id, lot_id, version, currency, price, freight, duty, carry, other, total, weight_basis_kg, per_kg)
       select $1, 'gl_' || $2 || n, 1, 'USD', 500, 10, 0, 0, 0, 510, 100, 5.1 from generate_series(1, 100) n`,
      [orgId, t],
    );
    await tx.query(
      `insert into lineage_edges (org_id, id, from_kind, from_id, to_kind, to_id, weight_kg, group_id)
       select $1, 'lin_' || $2 || n, 'contract', $3, 'green_lot', 'gl_' || $2 || n, 100, $4 from generate_series(1, 100) n`,
      [orgId, t, s.contractId, s.shipmentId],
    );
    await tx.query(
      `insert into green_contract_receipt_lines (org_id, id, shipment_id, contract_id, contract_line_id, position, green_lot_id, weight_kg)
       select $1, 'gcr_' || $2 || n, $3, $4, $4 || 'l' || n, n, 'gl_' || $2 || n, 100 from generate_series(1, 100) n`,
      [orgId, t, s.shipmentId, s.contractId],
    );
    await tx.query(`update green_contract_lines set received_kg = received_kg + 100 where org_id = $1 and contract_id = $2`, [orgId, s.contractId]);
    await tx.query(
      `update green_contracts set received_kg = received_kg + 10000, fixed_received_value = fixed_received_value + 50000, status = 'arrived' where org_id = $1 and id = $2`,
      [orgId, s.contractId],
    );
    await tx.query(`update green_contract_shipments set status = 'received', received_at = now(), received_kg = 10000 where org_id = $1 and id = $2`, [orgId, s.shipmentId]);
    // The API's two events, with payloads of the same shape and size: the shipment, the contract and the 100 lots;
    // the contract's move to arrived.
    await tx.query(
      `insert into events (org_id, id, type, data)
       select $1, $2, 'sourcing.shipment.received', jsonb_build_object(
                'shipment', (select to_jsonb(s) from green_contract_shipments s where s.org_id = $1 and s.id = $4),
                'contract', (select to_jsonb(c) from green_contracts c where c.org_id = $1 and c.id = $5),
                'lots', (select jsonb_agg(jsonb_build_object('contractLineId', $5 || 'l' || n, 'greenLotId', 'gl_' || $3 || n, 'weightKg', '100.000',
                                                             'lotCode', $6 || '-' || n) order by n)
                         from generate_series(1, 100) n))
       union all
       select $1, $7, 'sourcing.contract.status_changed', jsonb_build_object(
                'contract', (select to_jsonb(c) from green_contracts c where c.org_id = $1 and c.id = $5), 'from', 'shipped', 'to', 'arrived', 'cause', 'receipt')`,
      [orgId, `evt_${t}`, t, s.shipmentId, s.contractId, tag, `evt_${t}_status`],
    );
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await benchSourcing();
