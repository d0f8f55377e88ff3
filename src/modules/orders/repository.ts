import type { Queryable } from '../../db/client.js';
import { SqlParams, iso, likePattern } from '../../db/sql.js';
import { newId } from '../../lib/ids.js';
import { decodeCursor, pageOf, type Page } from '../../db/paging.js';
import { grams } from '../../lib/grams.js';
import type {
  AllocationStrategy,
  Channel,
  CreateCustomerInput,
  CustomerType,
  CustomerFilterInput,
  OrderFilterInput,
  OrderState,
  ShippingAddress,
} from './schemas.js';

// ---------------------------------------------------------------------------------------------------
// Customers

interface CustomerRow {
  id: string;
  code: string;
  name: string;
  customer_type: CustomerType | null;
  currency: string | null;
  payment_terms_days: number | null;
  contact_email: string | null;
  shipping_address: ShippingAddress | null;
  created_at: Date;
  updated_at: Date;
}

export type Customer = ReturnType<typeof toCustomer>;

const toCustomer = (r: CustomerRow) => ({
  id: r.id,
  code: r.code,
  name: r.name,
  customerType: r.customer_type,
  currency: r.currency,
  paymentTermsDays: r.payment_terms_days,
  contactEmail: r.contact_email,
  shippingAddress: r.shipping_address,
  createdAt: iso(r.created_at)!,
  updatedAt: iso(r.updated_at)!,
});

export async function insertCustomer(q: Queryable, orgId: string, input: CreateCustomerInput): Promise<Customer> {
  const [row] = await q.query<CustomerRow>(
    `insert into customers (org_id, id, code, name, customer_type, currency, payment_terms_days, contact_email, shipping_address)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9) returning *`,
    [
      orgId,
      newId('cus'),
      input.code,
      input.name,
      input.customerType ?? null,
      input.currency ?? null,
      input.paymentTermsDays ?? null,
      input.contactEmail ?? null,
      input.shippingAddress ? JSON.stringify(input.shippingAddress) : null,
    ],
  );
  return toCustomer(row);
}

/** Which of these codes customers of this organization use. */
export async function customerCodesInUse(q: Queryable, orgId: string, codes: string[]): Promise<string[]> {
  if (codes.length === 0) return [];
  const rows = await q.query<{ code: string }>(`select code from customers where org_id = $1 and code = any($2::text[])`, [orgId, codes]);
  return rows.map((r) => r.code);
}

export async function findCustomer(q: Queryable, orgId: string, id: string): Promise<Customer | undefined> {
  const [row] = await q.query<CustomerRow>(`select * from customers where org_id = $1 and id = $2`, [orgId, id]);
  return row && toCustomer(row);
}

export async function listCustomers(q: Queryable, orgId: string, filter: CustomerFilterInput, page: Page) {
  const params = new SqlParams();
  const where = [`org_id = ${params.add(orgId)}`];
  if (filter.customerType) where.push(`customer_type = ${params.add(filter.customerType)}`);
  if (filter.q) {
    const p = params.add(likePattern(filter.q));
    where.push(`(name ilike ${p} or code ilike ${p} or contact_email ilike ${p})`);
  }
  const after = decodeCursor(page.cursor, 'customers', ['id']);
  if (after) where.push(`id > ${params.add(String(after[0]))}`);
  const rows = await q.query<CustomerRow>(
    `select * from customers where ${where.join(' and ')} order by id limit ${params.add(page.limit + 1)}`,
    params.values,
  );
  return pageOf(rows.map(toCustomer), page.limit, 'customers', (c) => [c.id]);
}

// ---------------------------------------------------------------------------------------------------
// Orders as answered: the header with its customer and totals, and (for getOrder) the lines with their claims.

interface OrderRow {
  id: string;
  order_number: string;
  customer_id: string;
  customer_code: string;
  customer_name: string;
  channel: Channel;
  external_order_id: string | null;
  currency: string;
  requested_ship_at: Date | null;
  state: OrderState;
  cancel_reason: string | null;
  shop_connection_id: string | null;
  draft_reason: string | null;
  confirmed_at: Date | null;
  fulfilled_at: Date | null;
  canceled_at: Date | null;
  created_at: Date;
  updated_at: Date;
  line_count: number;
  total_kg: string;
  total_amount: string;
  allocated_kg: string;
  fulfilled_kg: string;
}

/** A line as built in SQL (jsonb): numerics arrive as text so weights and money stay exact strings. */
interface LineJson {
  id: string;
  line_number: number;
  product_id: string | null;
  blend_id: string | null;
  roast_level: 'light' | 'medium' | 'dark' | null;
  quantity_units: number | null;
  roasted_lot_id: string | null;
  roasted_lot_code: string | null;
  green_lot_id: string | null;
  green_lot_code: string | null;
  profile_id: string | null;
  quantity_kg: string;
  unit_price: string;
  line_total: string;
  allocated_kg: string;
  fulfilled_kg: string;
  unallocated_kg: string;
  allocations: ClaimJson[];
}

interface ClaimJson {
  id: string;
  roasted_lot_id: string;
  lot_code: string;
  quantity_kg: string;
  strategy: AllocationStrategy;
  best_before: string;
  fulfillment_id: string | null;
  created_at: string;
}

const toClaim = (c: ClaimJson) => ({
  id: c.id,
  roastedLotId: c.roasted_lot_id,
  lotCode: c.lot_code,
  quantityKg: c.quantity_kg,
  strategy: c.strategy,
  /** roasted_at + the lot's shelf life, UTC day. */
  bestBefore: c.best_before,
  /** 'active' claims hold stock for the line; 'fulfilled' ones left with the fulfilment. */
  state: c.fulfillment_id ? ('fulfilled' as const) : ('active' as const),
  fulfillmentId: c.fulfillment_id,
  createdAt: iso(c.created_at)!,
});

const toLine = (l: LineJson, currency: string) => ({
  id: l.id,
  lineNumber: l.line_number,
  productId: l.product_id,
  blendId: l.blend_id,
  roastLevel: l.roast_level,
  quantityUnits: l.quantity_units,
  roastedLotId: l.roasted_lot_id,
  roastedLotCode: l.roasted_lot_code,
  greenLotId: l.green_lot_id,
  greenLotCode: l.green_lot_code,
  profileId: l.profile_id,
  quantityKg: l.quantity_kg,
  unitPrice: l.unit_price,
  currency,
  lineTotal: l.line_total,
  /** Claimed and not yet shipped. */
  allocatedKg: l.allocated_kg,
  fulfilledKg: l.fulfilled_kg,
  /** quantityKg less what is claimed or shipped: what allocation still has to find. */
  unallocatedKg: l.unallocated_kg,
  allocations: l.allocations.map(toClaim),
});

const toOrderSummary = (r: OrderRow) => ({
  id: r.id,
  orderNumber: r.order_number,
  customerId: r.customer_id,
  customer: { id: r.customer_id, code: r.customer_code, name: r.customer_name },
  channel: r.channel,
  externalOrderId: r.external_order_id,
  currency: r.currency,
  requestedShipAt: iso(r.requested_ship_at),
  state: r.state,
  lineCount: r.line_count,
  totalKg: r.total_kg,
  totalAmount: r.total_amount,
  allocatedKg: r.allocated_kg,
  fulfilledKg: r.fulfilled_kg,
  cancelReason: r.cancel_reason,
  shopConnectionId: r.shop_connection_id,
  draftReason: r.draft_reason,
  confirmedAt: iso(r.confirmed_at),
  fulfilledAt: iso(r.fulfilled_at),
  canceledAt: iso(r.canceled_at),
  createdAt: iso(r.created_at)!,
  updatedAt: iso(r.updated_at)!,
});

export type OrderSummary = ReturnType<typeof toOrderSummary>;
export type Order = OrderSummary & { lines: ReturnType<typeof toLine>[] };

const ACTIVE = `a.released_at is null and a.fulfilled_at is null`;

/** Orders aliased `o` with customer and totals; `extra` adds columns (getOrder adds the lines). */
const orderSelect = (extra = '') => `
  select o.*, c.code as customer_code, c.name as customer_name, t.*${extra ? `, ${extra}` : ''}
  from orders o
  join customers c on c.org_id = o.org_id and c.id = o.customer_id
  cross join lateral (
    select count(*)::int as line_count,
           coalesce(sum(l.quantity_kg), 0)::numeric(14, 3) as total_kg,
           coalesce(sum(l.line_total), 0)::numeric(20, 4) as total_amount,
           (select coalesce(sum(a.quantity_kg) filter (where ${ACTIVE}), 0)::numeric(14, 3)
            from order_allocations a where a.org_id = o.org_id and a.order_id = o.id) as allocated_kg,
           (select coalesce(sum(a.quantity_kg) filter (where a.fulfilled_at is not null), 0)::numeric(14, 3)
            from order_allocations a where a.org_id = o.org_id and a.order_id = o.id) as fulfilled_kg
    from order_lines l where l.org_id = o.org_id and l.order_id = o.id
  ) t`;

/** The lines of the order aliased `o`, with their claims (active and fulfilled; released ones are history), as one expression. */
const LINES_JSON = `
  (select coalesce(jsonb_agg(jsonb_build_object(
            'id', l.id, 'line_number', l.line_number, 'product_id', l.product_id,
            'blend_id', l.blend_id, 'roast_level', l.roast_level, 'quantity_units', l.quantity_units,
            'roasted_lot_id', l.roasted_lot_id, 'roasted_lot_code', l.roasted_lot_code,
            'green_lot_id', l.green_lot_id, 'green_lot_code', l.green_lot_code, 'profile_id', l.profile_id,
            'quantity_kg', l.quantity_kg::text, 'unit_price', l.unit_price::text, 'line_total', l.line_total::text,
            'allocated_kg', k.allocated_kg::text, 'fulfilled_kg', k.fulfilled_kg::text,
            'unallocated_kg', (l.quantity_kg - k.allocated_kg - k.fulfilled_kg)::numeric(14, 3)::text,
            'allocations', k.claims) order by l.line_number), '[]'::jsonb)
   from order_lines l
   cross join lateral (
     select coalesce(sum(a.quantity_kg) filter (where ${ACTIVE}), 0)::numeric(14, 3) as allocated_kg,
            coalesce(sum(a.quantity_kg) filter (where a.fulfilled_at is not null), 0)::numeric(14, 3) as fulfilled_kg,
            coalesce(jsonb_agg(jsonb_build_object(
              'id', a.id, 'roasted_lot_id', a.roasted_lot_id, 'lot_code', a.lot_code, 'quantity_kg', a.quantity_kg::text,
              'strategy', a.strategy, 'best_before', a.best_before::text,
              'fulfillment_id', a.fulfillment_id, 'created_at', a.created_at) order by a.seq)
              filter (where a.released_at is null), '[]'::jsonb) as claims
     from order_allocations a
     where a.org_id = l.org_id and a.order_line_id = l.id
   ) k
   where l.org_id = o.org_id and l.order_id = o.id) as lines`;

/** The order with its lines and claims, read in one statement so header and lines agree. */
export async function findOrder(q: Queryable, orgId: string, id: string): Promise<Order | undefined> {
  const [row] = await q.query<OrderRow & { lines: LineJson[] }>(
    `${orderSelect(LINES_JSON)} where o.org_id = $1 and o.id = $2`,
    [orgId, id],
  );
  return row && { ...toOrderSummary(row), lines: row.lines.map((l) => toLine(l, row.currency)) };
}

export async function listOrders(q: Queryable, orgId: string, filter: OrderFilterInput, page: Page) {
  const params = new SqlParams();
  const where = [`o.org_id = ${params.add(orgId)}`];
  if (filter.state) where.push(`o.state = ${params.add(filter.state)}`);
  if (filter.customerId) where.push(`o.customer_id = ${params.add(filter.customerId)}`);
  if (filter.channel) where.push(`o.channel = ${params.add(filter.channel)}`);
  if (filter.requestedShipFrom) where.push(`o.requested_ship_at >= ${params.add(filter.requestedShipFrom)}::date`);
  if (filter.requestedShipTo) where.push(`o.requested_ship_at < ${params.add(filter.requestedShipTo)}::date + 1`);
  if (filter.q) {
    const p = params.add(likePattern(filter.q));
    where.push(`(o.order_number ilike ${p} or o.external_order_id ilike ${p} or c.name ilike ${p})`);
  }
  const after = decodeCursor(page.cursor, 'orders', ['id']);
  if (after) where.push(`o.id < ${params.add(String(after[0]))}`);
  const rows = await q.query<OrderRow>(
    `${orderSelect()} where ${where.join(' and ')} order by o.id desc limit ${params.add(page.limit + 1)}`,
    params.values,
  );
  return pageOf(rows.map(toOrderSummary), page.limit, 'orders', (o) => [o.id]);
}

// ---------------------------------------------------------------------------------------------------
// Writing orders

export interface NewOrder {
  orderNumber: string;
  customerId: string;
  channel: string;
  externalOrderId: string | null;
  currency: string;
  requestedShipAt: string | null;
  /** An order from a web shop: its connection (the external id is the shop's order id), and why it stays a draft. */
  shopConnectionId?: string;
  draftReason?: string | null;
}

/**
 * Inserts the order unless another order already holds its number or its channel's external id; then
 * nothing is written and undefined comes back. Without a conflict target, a concurrent insert of the same
 * external order waits for the first to commit and then finds the conflict, so a re-import never fails on
 * whichever unique index it happens to meet first.
 */
export async function insertOrderUnlessTaken(q: Queryable, orgId: string, credentialId: string, order: NewOrder): Promise<string | undefined> {
  const [row] = await q.query<{ id: string }>(
    `insert into orders (org_id, id, order_number, customer_id, channel, external_order_id, currency, requested_ship_at, credential_id,
                         shop_connection_id, draft_reason)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
     on conflict do nothing returning id`,
    [
      orgId, newId('so'), order.orderNumber, order.customerId, order.channel, order.externalOrderId, order.currency, order.requestedShipAt, credentialId,
      order.shopConnectionId ?? null, order.draftReason ?? null,
    ],
  );
  return row?.id;
}

export async function findOrderIdByExternalId(q: Queryable, orgId: string, channel: string, externalOrderId: string): Promise<string | undefined> {
  const [row] = await q.query<{ id: string }>(
    `select id from orders where org_id = $1 and channel = $2 and external_order_id = $3 and shop_connection_id is null`,
    [orgId, channel, externalOrderId],
  );
  return row?.id;
}

/** The codes of the lots lines name, as their modules answered them (lot codes never change). */
export interface LineLotCodes {
  roastedLots: Map<string, string>;
  greenLots: Map<string, string>;
}

/** A line as stored (product lines resolved by product-lines.ts). */
export interface LineToInsert {
  productId: string | null;
  roastedLotId: string | null;
  greenLotId: string | null;
  profileId: string | null;
  blendId: string | null;
  roastLevel: string | null;
  quantityKg: string;
  quantityUnits: number | null;
  unitPrice: string;
}

/** Lines are numbered 1..n in the order given; line totals (kg or units × price) are computed exactly in SQL numeric. */
export async function insertOrderLines(q: Queryable, orgId: string, orderId: string, lines: LineToInsert[], codes: LineLotCodes): Promise<void> {
  await q.query(
    `insert into order_lines (org_id, id, order_id, line_number, product_id, roasted_lot_id, roasted_lot_code, green_lot_id, green_lot_code,
                              profile_id, blend_id, roast_level, quantity_units, quantity_kg, unit_price, line_total)
     select $1, x.id, $2, x.n, x.product_id, x.roasted_lot_id, x.roasted_lot_code, x.green_lot_id, x.green_lot_code, x.profile_id,
            x.blend_id, x.roast_level, x.units, x.qty, x.price, round(coalesce(x.units, x.qty) * x.price, 4)
     from unnest($3::text[], $4::int[], $5::text[], $6::text[], $7::text[], $8::text[], $9::numeric[], $10::numeric[], $11::text[], $12::text[],
                 $13::text[], $14::text[], $15::int[])
       as x(id, n, product_id, roasted_lot_id, green_lot_id, profile_id, qty, price, roasted_lot_code, green_lot_code, blend_id, roast_level, units)`,
    [
      orgId,
      orderId,
      lines.map(() => newId('sol')),
      lines.map((_, i) => i + 1),
      lines.map((l) => l.productId),
      lines.map((l) => l.roastedLotId),
      lines.map((l) => l.greenLotId),
      lines.map((l) => l.profileId),
      lines.map((l) => l.quantityKg),
      lines.map((l) => l.unitPrice),
      lines.map((l) => (l.roastedLotId ? codes.roastedLots.get(l.roastedLotId)! : null)),
      lines.map((l) => (l.greenLotId ? codes.greenLots.get(l.greenLotId)! : null)),
      lines.map((l) => l.blendId),
      lines.map((l) => l.roastLevel),
      lines.map((l) => l.quantityUnits),
    ],
  );
}

export interface LockedOrder {
  id: string;
  orderNumber: string;
  state: OrderState;
}

/** Every change to an order's state or claims happens under this row lock. */
export async function lockOrder(q: Queryable, orgId: string, id: string): Promise<LockedOrder | undefined> {
  const [row] = await q.query<{ id: string; order_number: string; state: OrderState }>(
    `select id, order_number, state from orders where org_id = $1 and id = $2 for no key update`,
    [orgId, id],
  );
  return row && { id: row.id, orderNumber: row.order_number, state: row.state };
}

export async function confirmOrder(q: Queryable, orgId: string, id: string): Promise<void> {
  await q.query(`update orders set state = 'confirmed', confirmed_at = now(), updated_at = now() where org_id = $1 and id = $2`, [orgId, id]);
}

export async function cancelOrder(q: Queryable, orgId: string, id: string, reason: string | null): Promise<void> {
  await q.query(
    `update orders set state = 'canceled', canceled_at = now(), cancel_reason = $3, updated_at = now() where org_id = $1 and id = $2`,
    [orgId, id, reason],
  );
}

/** The allocation state of the order whose lines' claims (`claimed`, against `quantity_kg`) are in `lines`. */
const STATE_FROM_LINES = `select case when bool_and(claimed >= quantity_kg) then 'allocated'
                                  when bool_or(claimed > 0) then 'partially_allocated'
                                  else 'confirmed' end
                      from lines`;

/**
 * Sets the allocation state from the claims: allocated when every line is claimed in full,
 * partially_allocated when something is claimed, confirmed when nothing is.
 */
export async function refreshAllocationState(q: Queryable, orgId: string, id: string): Promise<OrderState> {
  const [row] = await q.query<{ state: OrderState }>(
    `with lines as (
       select l.quantity_kg, coalesce(sum(a.quantity_kg) filter (where a.released_at is null), 0) as claimed
       from order_lines l
       left join order_allocations a on a.org_id = l.org_id and a.order_line_id = l.id
       where l.org_id = $1 and l.order_id = $2
       group by l.id, l.quantity_kg
     )
     update orders set updated_at = now(), state = (${STATE_FROM_LINES})
     where org_id = $1 and id = $2
     returning state`,
    [orgId, id],
  );
  return row.state;
}

// ---------------------------------------------------------------------------------------------------
// Allocation

export interface OpenLine {
  id: string;
  lineNumber: number;
  roastedLotId: string | null;
  greenLotId: string | null;
  profileId: string | null;
  /** A product line made of a blend (allocation splits it into its components: product-lines.ts). */
  blendId: string | null;
  quantity: bigint;
  /** Grams still to claim: the quantity less active and fulfilled claims. */
  remaining: bigint;
}

export async function openLines(q: Queryable, orgId: string, orderId: string): Promise<OpenLine[]> {
  const rows = await q.query<{
    id: string;
    line_number: number;
    roasted_lot_id: string | null;
    green_lot_id: string | null;
    profile_id: string | null;
    blend_id: string | null;
    quantity_kg: string;
    claimed_kg: string;
  }>(
    `select l.id, l.line_number, l.roasted_lot_id, l.green_lot_id, l.profile_id, l.blend_id, l.quantity_kg,
            coalesce(sum(a.quantity_kg) filter (where a.released_at is null), 0)::numeric(14, 3) as claimed_kg
     from order_lines l
     left join order_allocations a on a.org_id = l.org_id and a.order_line_id = l.id
     where l.org_id = $1 and l.order_id = $2
     group by l.org_id, l.id
     order by l.line_number`,
    [orgId, orderId],
  );
  return rows.map((r) => ({
    id: r.id,
    lineNumber: r.line_number,
    roastedLotId: r.roasted_lot_id,
    greenLotId: r.green_lot_id,
    profileId: r.profile_id,
    blendId: r.blend_id,
    quantity: grams(r.quantity_kg),
    remaining: grams(r.quantity_kg) - grams(r.claimed_kg),
  }));
}

/** The unreleased claims (active or shipped) of the lines, per claim. */
export async function unreleasedClaimsOf(q: Queryable, orgId: string, lineIds: string[]): Promise<{ orderLineId: string; roastedLotId: string; quantity: bigint }[]> {
  const rows = await q.query<{ order_line_id: string; roasted_lot_id: string; quantity_kg: string }>(
    `select order_line_id, roasted_lot_id, quantity_kg from order_allocations
     where org_id = $1 and order_line_id = any($2::text[]) and released_at is null`,
    [orgId, lineIds],
  );
  return rows.map((r) => ({ orderLineId: r.order_line_id, roastedLotId: r.roasted_lot_id, quantity: grams(r.quantity_kg) }));
}

/** What the active claims hold on each of the lots, in grams (lots without one are left out). */
export async function activeClaimsByLot(q: Queryable, orgId: string, lotIds: string[]): Promise<Map<string, bigint>> {
  const rows = await q.query<{ roasted_lot_id: string; kg: string }>(
    `select a.roasted_lot_id, sum(a.quantity_kg)::numeric(14, 3) as kg from order_allocations a
     where a.org_id = $1 and a.roasted_lot_id = any($2::text[]) and ${ACTIVE}
     group by a.roasted_lot_id`,
    [orgId, lotIds],
  );
  return new Map(rows.map((r) => [r.roasted_lot_id, grams(r.kg)]));
}

export interface NewClaim {
  orderLineId: string;
  roastedLotId: string;
  quantityKg: string;
  /** The lot's code and best-before day, kept with the claim (neither ever changes). */
  lotCode: string;
  bestBefore: string;
}

/**
 * Writes the claims and sets the order's allocation state from them, as refreshAllocationState does, in one
 * statement (the claims are written while their lots are locked, so every round trip here counts).
 */
export async function insertClaims(q: Queryable, orgId: string, orderId: string, strategy: AllocationStrategy, claims: NewClaim[]): Promise<string[]> {
  if (claims.length === 0) return [];
  const ids = claims.map(() => newId('alc'));
  await q.query(
    `with inserted as (
       insert into order_allocations (org_id, id, order_id, order_line_id, roasted_lot_id, quantity_kg, strategy, lot_code, best_before)
       select $1, x.id, $2, x.line, x.lot, x.qty, $3, x.code, x.best_before
       from unnest($4::text[], $5::text[], $6::text[], $7::numeric[], $8::text[], $9::date[]) with ordinality as x(id, line, lot, qty, code, best_before, n)
       order by x.n
       returning order_line_id, quantity_kg
     ),
     -- The statement's snapshot holds the claims made before it; the new ones are counted from the insert.
     lines as (
       select l.quantity_kg,
              coalesce((select sum(a.quantity_kg) from order_allocations a where a.org_id = l.org_id and a.order_line_id = l.id and a.released_at is null), 0)
              + coalesce((select sum(i.quantity_kg) from inserted i where i.order_line_id = l.id), 0) as claimed
       from order_lines l
       where l.org_id = $1 and l.order_id = $2
     )
     update orders set updated_at = now(), state = (${STATE_FROM_LINES})
     where org_id = $1 and id = $2`,
    [
      orgId, orderId, strategy, ids,
      claims.map((c) => c.orderLineId), claims.map((c) => c.roastedLotId), claims.map((c) => c.quantityKg),
      claims.map((c) => c.lotCode), claims.map((c) => c.bestBefore),
    ],
  );
  return ids;
}

export interface LineRef {
  id: string;
  orderId: string;
  lineNumber: number;
}

export async function findLine(q: Queryable, orgId: string, lineId: string): Promise<LineRef | undefined> {
  const [row] = await q.query<{ id: string; order_id: string; line_number: number }>(
    `select id, order_id, line_number from order_lines where org_id = $1 and id = $2`,
    [orgId, lineId],
  );
  return row && { id: row.id, orderId: row.order_id, lineNumber: row.line_number };
}

export interface ReleasedClaim {
  id: string;
  orderLineId: string;
  roastedLotId: string;
  quantityKg: string;
}

/** Ends the active claims of one line (or, without a line, of the whole order): their kilograms are available again. */
export async function releaseClaims(q: Queryable, orgId: string, scope: { orderId: string; orderLineId?: string }): Promise<ReleasedClaim[]> {
  const rows = await q.query<{ id: string; order_line_id: string; roasted_lot_id: string; quantity_kg: string }>(
    `update order_allocations a set released_at = now()
     where a.org_id = $1 and a.order_id = $2 and ($3::text is null or a.order_line_id = $3) and ${ACTIVE}
     returning a.id, a.order_line_id, a.roasted_lot_id, a.quantity_kg`,
    [orgId, scope.orderId, scope.orderLineId ?? null],
  );
  return rows
    .map((r) => ({ id: r.id, orderLineId: r.order_line_id, roastedLotId: r.roasted_lot_id, quantityKg: r.quantity_kg }))
    .sort((a, b) => a.id.localeCompare(b.id));
}

// ---------------------------------------------------------------------------------------------------
// Fulfilment

/** What the order's active claims hold, per line and lot, in grams. */
export interface ClaimedPart {
  orderLineId: string;
  lineNumber: number;
  roastedLotId: string;
  quantity: bigint;
  /** The line's blend (a blend product's line): its parts are blended into one blend lot when it ships. */
  blendId: string | null;
  /** Units of a product the line was ordered in: its coffee is packed into them when it ships. */
  quantityUnits: number | null;
}

/** The order's active claims grouped per line and lot. Run it under the order's lock: claims only change under it. */
export async function claimedParts(q: Queryable, orgId: string, orderId: string): Promise<ClaimedPart[]> {
  const parts = await q.query<{ order_line_id: string; line_number: number; roasted_lot_id: string; kg: string; blend_id: string | null; quantity_units: number | null }>(
    `select a.order_line_id, l.line_number, a.roasted_lot_id, sum(a.quantity_kg)::numeric(14, 3) as kg, l.blend_id, l.quantity_units
     from order_allocations a join order_lines l on l.org_id = a.org_id and l.id = a.order_line_id
     where a.org_id = $1 and a.order_id = $2 and ${ACTIVE}
     group by a.order_line_id, l.line_number, a.roasted_lot_id, l.blend_id, l.quantity_units
     order by l.line_number, a.roasted_lot_id`,
    [orgId, orderId],
  );
  return parts.map((p) => ({
    orderLineId: p.order_line_id,
    lineNumber: p.line_number,
    roastedLotId: p.roasted_lot_id,
    quantity: grams(p.kg),
    blendId: p.blend_id,
    quantityUnits: p.quantity_units,
  }));
}

export async function insertFulfillment(q: Queryable, orgId: string, orderId: string, credentialId: string): Promise<{ id: string; createdAt: string }> {
  const [row] = await q.query<{ id: string; created_at: Date }>(
    `insert into fulfillments (org_id, id, order_id, credential_id) values ($1, $2, $3, $4) returning id, created_at`,
    [orgId, newId('ful'), orderId, credentialId],
  );
  return { id: row.id, createdAt: iso(row.created_at)! };
}

/** The order's active claims become fulfilled by this fulfilment, and the order with them. */
export async function markFulfilled(q: Queryable, orgId: string, orderId: string, fulfillmentId: string): Promise<void> {
  await q.query(
    `update order_allocations a set fulfillment_id = $3, fulfilled_at = now() where a.org_id = $1 and a.order_id = $2 and ${ACTIVE}`,
    [orgId, orderId, fulfillmentId],
  );
  await q.query(`update orders set state = 'fulfilled', fulfilled_at = now(), updated_at = now() where org_id = $1 and id = $2`, [orgId, orderId]);
}

// ---------------------------------------------------------------------------------------------------
// What traceability asks about order lines and shipments

export interface OrderLineSummary {
  id: string;
  orderId: string;
  orderNumber: string;
  lineNumber: number;
  customer: { id: string; code: string; name: string };
}

export async function findOrderLineSummary(q: Queryable, orgId: string, id: string): Promise<OrderLineSummary | undefined> {
  const [row] = await q.query<{ id: string; order_id: string; order_number: string; line_number: number; customer_id: string; customer_code: string; customer_name: string }>(
    `select l.id, l.order_id, o.order_number, l.line_number, c.id as customer_id, c.code as customer_code, c.name as customer_name
     from order_lines l
     join orders o on o.org_id = l.org_id and o.id = l.order_id
     join customers c on c.org_id = o.org_id and c.id = o.customer_id
     where l.org_id = $1 and l.id = $2`,
    [orgId, id],
  );
  return (
    row && {
      id: row.id,
      orderId: row.order_id,
      orderNumber: row.order_number,
      lineNumber: row.line_number,
      customer: { id: row.customer_id, code: row.customer_code, name: row.customer_name },
    }
  );
}

/** The line names the roasted lot, or holds (or shipped) an unreleased claim on it. */
export async function orderLineClaimsLot(q: Queryable, orgId: string, orderLineId: string, roastedLotId: string): Promise<boolean> {
  const [row] = await q.query<{ claims: boolean }>(
    `select exists (select 1 from order_lines where org_id = $1 and id = $2 and roasted_lot_id = $3)
         or exists (select 1 from order_allocations where org_id = $1 and order_line_id = $2 and roasted_lot_id = $3 and released_at is null)
       as claims`,
    [orgId, orderLineId, roastedLotId],
  );
  return row.claims;
}

export interface FulfillmentSummary {
  id: string;
  orderId: string;
  shippedAt: string;
  /** Order lines that shipped coffee from the roasted lot asked about. */
  orderLineIds: string[];
}

/** The fulfilment, with the order lines it shipped from `roastedLotId` (none: it shipped none of that lot). */
export async function findFulfillmentOfLot(q: Queryable, orgId: string, id: string, roastedLotId: string): Promise<FulfillmentSummary | undefined> {
  const [row] = await q.query<{ id: string; order_id: string; created_at: Date; line_ids: string[] }>(
    `select f.id, f.order_id, f.created_at,
            array(select distinct a.order_line_id from order_allocations a
                  where a.org_id = f.org_id and a.fulfillment_id = f.id and a.roasted_lot_id = $3 order by 1) as line_ids
     from fulfillments f where f.org_id = $1 and f.id = $2`,
    [orgId, id, roastedLotId],
  );
  return row && { id: row.id, orderId: row.order_id, shippedAt: iso(row.created_at)!, orderLineIds: row.line_ids };
}

// ---------------------------------------------------------------------------------------------------
// Roast demand

/** Open demand merged by what is roasted together (see the orders service's roastDemand). */
export interface MergedDemand {
  profileId: string | null;
  greenLotId: string | null;
  roastLevel: string | null;
  isDecaf: boolean;
  orderedKg: string;
  allocatedKg: string;
  openKg: string;
  lineCount: number;
  earliestDueDate: string | null;
  /** The highest loss the lines themselves state (their roasted lot's, or their green lot's history); null when none does. */
  expectedLossPct: string | null;
}

export async function roastDemand(q: Queryable, orgId: string, dueBefore: string | null): Promise<MergedDemand[]> {
  const rows = await q.query<{
    profile_id: string | null;
    green_lot_id: string | null;
    roast_level: string | null;
    is_decaf: boolean;
    ordered_kg: string;
    allocated_kg: string;
    open_kg: string;
    line_count: number;
    earliest_due_date: string | null;
    expected_loss_pct: string | null;
  }>(
    `with lines as (
       select profile_id, green_lot_id, roast_level, coalesce(is_decaf, false) as is_decaf, due_date, ordered_kg,
              least(coalesce(allocated_kg, 0), ordered_kg) as allocated_kg, expected_loss_pct
       from roast_demand where org_id = $1 and ($2::date is null or due_date <= $2::date)
     )
     select profile_id, green_lot_id, roast_level, is_decaf, sum(ordered_kg)::numeric(14, 3)::text as ordered_kg,
            sum(allocated_kg)::numeric(14, 3)::text as allocated_kg, sum(ordered_kg - allocated_kg)::numeric(14, 3)::text as open_kg,
            count(*)::int as line_count, min(due_date)::text as earliest_due_date, max(expected_loss_pct)::numeric(5, 2)::text as expected_loss_pct
     from lines group by profile_id, green_lot_id, roast_level, is_decaf
     having sum(ordered_kg - allocated_kg) > 0`,
    [orgId, dueBefore],
  );
  return rows.map((r) => ({
    profileId: r.profile_id,
    greenLotId: r.green_lot_id,
    roastLevel: r.roast_level,
    isDecaf: r.is_decaf,
    orderedKg: r.ordered_kg,
    allocatedKg: r.allocated_kg,
    openKg: r.open_kg,
    lineCount: r.line_count,
    earliestDueDate: r.earliest_due_date,
    expectedLossPct: r.expected_loss_pct,
  }));
}
