import assert from 'node:assert/strict';
import type { Queryable } from '../../db/client.js';
import type { CallResult, TestOrg } from '../../testing/harness.js';
import { makeGreenLot } from '../inventory/green/testing.js';
import { assertProblem, assertRefusedWithout } from '../../testing/problems.js';

/** Test fixtures for sales orders, shared by the orders and traceability tests and their tenancy cases. */

let counter = 0;
export const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++counter}`;

export async function makeCustomer(org: TestOrg, input: Record<string, unknown> = {}): Promise<any> {
  const res = await org.call('orders.createCustomer', { name: 'Café Nord', code: unique('C'), currency: 'EUR', ...input });
  if (res.status !== 200) throw new Error(`createCustomer: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/**
 * An Artisan JSON roast log (the importer's smallest honest input): two minutes of samples, charge at 0
 * and drop at 120 s, recorded at `roastedAt`.
 */
export function artisanLog(roastedAt: Date): string {
  const timex = Array.from({ length: 121 }, (_, s) => s);
  return JSON.stringify({
    mode: 'C',
    roastepoch: Math.floor(roastedAt.getTime() / 1000),
    timex,
    temp1: timex.map((s) => 230 + s / 10),
    temp2: timex.map((s) => (s < 30 ? 200 - s * 2 : 140 + (s - 30) * 0.7)),
    timeindex: [0, 0, 0, 0, 0, 0, 120, 0],
  });
}

export interface RoastedLotFixture {
  roastedLotId: string;
  lotCode: string;
  batchId: string;
  greenLotId: string;
}

/**
 * A roasted lot of `kg` made the way the service makes one: a logger roast imported against a green lot
 * (a new 100 kg lot unless one is given), charged with 1.25 × kg, so the lineage green lot → batch →
 * roasted lot exists.
 */
export async function roastLot(
  org: TestOrg,
  options: { kg: string; greenLotId?: string; profileId?: string; roastedAt?: Date; batchNumber?: string },
): Promise<RoastedLotFixture> {
  const greenLotId = options.greenLotId ?? (await makeGreenLot(org));
  const dropGrams = BigInt(Math.round(Number(options.kg) * 1000));
  const charge = (dropGrams * 5n) / 4n;
  const res = await org.call('production.roast.importLoggerRoast', {
    content: artisanLog(options.roastedAt ?? new Date()),
    batchNumber: options.batchNumber ?? unique('B'),
    greenLotId,
    chargeWeightKg: `${charge / 1000n}.${String(charge % 1000n).padStart(3, '0')}`,
    dropWeightKg: options.kg,
    ...(options.profileId ? { profileId: options.profileId } : {}),
  });
  if (res.status !== 200) throw new Error(`importLoggerRoast: ${res.status} ${JSON.stringify(res.body)}`);
  const lot = res.body.roastedLot;
  return { roastedLotId: lot.id, lotCode: lot.lotCode, batchId: res.body.id, greenLotId };
}

export async function createOrder(org: TestOrg, input: Record<string, unknown>): Promise<any> {
  const res = await org.call('orders.createOrder', { orderNumber: unique('SO'), ...input });
  if (res.status !== 200) throw new Error(`createOrder: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A confirmed order of one line per entry, for customer `customerId` (a new one unless given). */
export async function confirmedOrder(
  org: TestOrg,
  lines: Record<string, unknown>[],
  input: Record<string, unknown> = {},
): Promise<any> {
  const customerId = (input.customerId as string | undefined) ?? (await makeCustomer(org)).id;
  const order = await createOrder(org, { customerId, lines: lines.map((l) => ({ unitPrice: '20', ...l })), ...input });
  const res = await org.call('orders.confirmOrder', { id: order.id });
  if (res.status !== 200) throw new Error(`confirmOrder: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/**
 * Everything the orders module can write for an organization, as one comparable value: a refused call
 * must leave it exactly as it was.
 */
export async function ordersState(owner: Queryable, orgId: string): Promise<unknown> {
  const [row] = await owner.query<{ state: unknown }>(
    `select jsonb_build_object(
       'customers', (select count(*) from customers where org_id = $1),
       'orders', (select coalesce(jsonb_agg(jsonb_build_array(id, state, updated_at) order by id), '[]') from orders where org_id = $1),
       'lines', (select count(*) from order_lines where org_id = $1),
       'claims', (select coalesce(jsonb_agg(jsonb_build_array(id, quantity_kg, released_at, fulfilled_at) order by id), '[]') from order_allocations where org_id = $1),
       'fulfillments', (select count(*) from fulfillments where org_id = $1),
       'roastedLots', (select coalesce(jsonb_agg(jsonb_build_array(id, on_hand_kg, ledger_seq) order by id), '[]') from roasted_lots where org_id = $1),
       'lineage', (select count(*) from lineage_edges where org_id = $1),
       'events', (select count(*) from events where org_id = $1)
     ) as state`,
    [orgId],
  );
  return row.state;
}

/** Runs a call that must be refused and proves it changed nothing this module stores. */
export const refusedUnchanged = (owner: Queryable, org: TestOrg, call: () => Promise<CallResult>, status: number, code: string, path?: string) =>
  assertRefusedWithout(() => ordersState(owner, org.id), call, status, code, path);
