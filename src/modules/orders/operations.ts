import type { Queryable } from '../../db/client.js';
import { defineOperation } from '../../rpc/define.js';
import { ProblemError, conflict, invalidInput, type FieldError, throwNotFound } from '../../rpc/errors.js';
import { grams, kgString } from '../../lib/grams.js';
import { newId } from '../../lib/ids.js';
import * as lineageService from '../lineage/service.js';
import * as roastedStock from '../inventory/roast/service.js';
import { fillsLine, inStrategyOrder, planClaims, type ClaimableLot, type ClaimPlan, type Shortfall } from './allocation.js';
import { withMargins } from './margin.js';
import { lineReferences } from './references.js';
import { fillableParts, resolveLines, shortfallPerLine } from './product-lines.js';
import * as repo from './repository.js';
import { createCustomer } from './service.js';
import { pageOut } from '../../rpc/outputs.js';
import {
  AllocateOrder,
  ById,
  CancelOrder,
  CreateCustomer,
  CreateOrder,
  Customer,
  ListCustomers,
  ListOrders,
  Order,
  OrderAllocationRelease,
  OrderAllocationResult,
  OrderCancellation,
  OrderFulfillment,
  OrderSummary,
  ReleaseOrderAllocation,
  type AllocationStrategy,
  type CreateOrderInput,
  type OrderState,
} from './schemas.js';
import {
  customerCreated,
  orderAllocated,
  orderAllocationReleased,
  orderCanceled,
  orderConfirmed,
  orderCreated,
  orderFulfilled,
  orderPartiallyAllocated,
} from './events.js';

const feature = 'orders' as const;

export const orderOperations = [
  defineOperation({
    name: 'orders.createCustomer',
    summary: 'Create a customer.',
    description:
      'customerType, the invoicing currency (orders without their own currency take it), paymentTermsDays (0–365), ' +
      'contactEmail and a shippingAddress (line1, line2, city, region, postalCode, country, recipient). Codes are unique per ' +
      'organization (409 `duplicate`, naming `code`).',
    permission: 'orders.write',
    feature,
    get: false,
    input: CreateCustomer,
    output: Customer,
    errors: ['duplicate'],
    emits: [customerCreated],
    async handler(ctx, input) {
      const customer = await createCustomer(ctx.tx, ctx.orgId, input);
      await ctx.emit('orders.customer.created', { customer });
      return customer;
    },
  }),

  defineOperation({
    name: 'orders.listCustomers',
    summary: 'Customers, oldest first.',
    description: 'Filters: `customerType`, `q` (case-insensitive search in name, code and contact email).',
    permission: 'orders.read',
    feature,
    get: true,
    input: ListCustomers,
    output: pageOut(Customer),
    errors: ['invalid_cursor'],
    async handler(ctx, { filter, page }) {
      return repo.listCustomers(ctx.tx, ctx.orgId, filter, page);
    },
  }),

  defineOperation({
    name: 'orders.createOrder',
    summary: 'Create a draft sales order with its lines.',
    description:
      'Each line names its coffee, exactly one of `roastedLotId` (that lot) or `greenLotId` (any roast of that green coffee, ' +
      'only roasts with `profileId` when given), optionally the `productId` it is sold as, `quantityKg` of roasted coffee and ' +
      '`unitPrice` per kilogram. Extension: a line may name only a product (`productId` or `productSku`, 404 naming the field when ' +
      'unknown) and is then filled from what the product is made of (its roast profile, or its blend component by component; 400 ' +
      'when it names neither); `quantityUnits` of the product (bags) instead of `quantityKg` is converted through its ' +
      '`netWeightKg` (400 without one), and its `unitPrice` is per unit. The order is priced in one currency: `currency`, else the customer’s; a line’s currency must ' +
      'equal it (400 naming the line). An id that does not exist in the organization is 404 naming the field. `channel` ' +
      'defaults to `direct`. With `externalOrderId`, creating the same channel’s order again (also concurrently) writes nothing ' +
      'and answers the order stored first. `orderNumber` is unique per organization (409 `duplicate`).',
    permission: 'orders.write',
    feature,
    get: false,
    input: CreateOrder,
    output: Order,
    errors: ['not_found', 'duplicate'],
    emits: [orderCreated],
    async handler(ctx, input) {
      const reimported = input.externalOrderId && (await repo.findOrderIdByExternalId(ctx.tx, ctx.orgId, input.channel, input.externalOrderId));
      if (reimported) return orderOrThrow(ctx.tx, ctx.orgId, reimported);

      const customer = (await repo.findCustomer(ctx.tx, ctx.orgId, input.customerId)) ?? throwNotFound('customer', input.customerId, 'customerId');
      const currency = orderCurrency(input, customer.currency);
      const codes = await requireLineReferences(ctx.tx, ctx.orgId, input);
      const resolved = await resolveLines(ctx.tx, ctx.orgId, input.lines);
      if (resolved.missing.length > 0) throw new ProblemError(404, 'not_found', 'A line names a product that does not exist in this organization.', { errors: resolved.missing });
      if (resolved.invalid.length > 0) throw invalidInput(resolved.invalid);
      const id = await repo.insertOrderUnlessTaken(ctx.tx, ctx.orgId, ctx.principal.credentialId, {
        orderNumber: input.orderNumber,
        customerId: customer.id,
        channel: input.channel,
        externalOrderId: input.externalOrderId ?? null,
        currency,
        requestedShipAt: input.requestedShipAt ?? null,
      });
      if (!id) {
        // Taken meanwhile: by a concurrent import of the same external order (answer it), or by another order's number.
        const imported = input.externalOrderId && (await repo.findOrderIdByExternalId(ctx.tx, ctx.orgId, input.channel, input.externalOrderId));
        if (imported) return orderOrThrow(ctx.tx, ctx.orgId, imported);
        throw conflict('duplicate', 'Another order in this organization already has this orderNumber.', {
          errors: [{ path: 'orderNumber', message: 'already used in this organization' }],
        });
      }
      await repo.insertOrderLines(ctx.tx, ctx.orgId, id, resolved.lines, codes);
      const order = await orderOrThrow(ctx.tx, ctx.orgId, id);
      await ctx.emit('orders.order.created', { order });
      return order;
    },
  }),

  defineOperation({
    name: 'orders.getOrder',
    summary: 'An order with its customer, totals and lines.',
    description:
      'Each line with its claims (active, or fulfilled with the fulfilment id), `allocatedKg` (claimed, not shipped), ' +
      '`fulfilledKg` and `unallocatedKg`. Released claims are history and not listed.',
    permission: 'orders.read',
    feature,
    get: true,
    input: ById,
    output: Order,
    errors: ['not_found'],
    async handler(ctx, { id }) {
      return orderOrThrow(ctx.tx, ctx.orgId, id);
    },
  }),

  defineOperation({
    name: 'orders.listOrders',
    summary: 'Orders, newest first, without their lines.',
    description:
      '`lineCount` and totals stand in for the lines. Filters: `state`, `customerId`, `channel`, `requestedShipFrom` and ' +
      '`requestedShipTo` (days, UTC, inclusive), `q` (case-insensitive search in order number, external order id and customer name).',
    permission: 'orders.read',
    feature,
    get: true,
    input: ListOrders,
    output: pageOut(OrderSummary),
    errors: ['invalid_cursor'],
    async handler(ctx, { filter, page }) {
      return repo.listOrders(ctx.tx, ctx.orgId, filter, page);
    },
  }),

  defineOperation({
    name: 'orders.confirmOrder',
    summary: 'Confirm a draft order.',
    description:
      'Only a draft can be confirmed (409 `invalid_state_transition` otherwise). From then on its lines are demand for ' +
      'production planning and it can be allocated.',
    permission: 'orders.write',
    feature,
    get: false,
    input: ById,
    output: Order,
    errors: ['not_found', 'invalid_state_transition', 'concurrent_update'],
    emits: [orderConfirmed],
    async handler(ctx, { id }) {
      const locked = await lockOrderIn(ctx.tx, ctx.orgId, id, ['draft'], 'confirmed');
      await repo.confirmOrder(ctx.tx, ctx.orgId, locked.id);
      const order = await orderOrThrow(ctx.tx, ctx.orgId, id);
      await ctx.emit('orders.order.confirmed', { order });
      return order;
    },
  }),

  defineOperation({
    name: 'orders.allocateOrder',
    summary: 'Claim roasted stock for every line still short.',
    description:
      'Line by line: strategy `fefo` (default) spends the lots with the earliest best-before day (roasted day + the lot’s shelf ' +
      'life) first, `fifo` the earliest roasted. Lots past their best-before day are not promised: a line they could have served ' +
      'is short with `reason: expired` and names them in `expiredLots`; `includeExpired: true` (extension) promises them too. A claim moves no stock; a lot’s available weight is its on-hand weight less all ' +
      'active claims, so the same kilograms are never promised twice, also to orders allocated at the same moment. Allocations ' +
      'at the same moment take different lots, each the next one no other is claiming from in the strategy’s order; one that ' +
      'needs a lot another holds waits for it rather than report a shortfall. The answer ' +
      'says `complete: true` with state allocated, or `complete: false` with the shortfall per line and state ' +
      'partially_allocated (claims made are kept; allocate again to top up, or release them). Allowed for confirmed, ' +
      'partially_allocated and allocated orders (an allocated order answers unchanged); otherwise 409 `invalid_state_transition`. ' +
      'Emits `orders.order.allocated` or `orders.order.partially_allocated` when it claimed something.',
    permission: 'orders.write',
    feature,
    get: false,
    input: AllocateOrder,
    output: OrderAllocationResult,
    errors: ['not_found', 'invalid_state_transition', 'concurrent_update'],
    emits: [orderAllocated, orderPartiallyAllocated],
    async handler(ctx, { id, strategy, includeExpired }) {
      await lockOrderIn(ctx.tx, ctx.orgId, id, ['confirmed', 'partially_allocated', 'allocated'], 'allocated');
      const open = (await repo.openLines(ctx.tx, ctx.orgId, id)).filter((line) => line.remaining > 0n);
      // Product lines made of a blend are filled component by component (product-lines.ts).
      const lines = await fillableParts(ctx.tx, ctx.orgId, open, (lineIds) => repo.unreleasedClaimsOf(ctx.tx, ctx.orgId, lineIds));
      const { plan, ids, order } = await claimStock(ctx.tx, ctx.orgId, id, lines, open, strategy, includeExpired);
      const complete = plan.shortfalls.length === 0;
      const claims = plan.claims.map((claim, i) => ({ id: ids[i], ...claim }));
      if (ids.length > 0) {
        await ctx.emit(complete ? 'orders.order.allocated' : 'orders.order.partially_allocated', { order, strategy, claims, shortfalls: plan.shortfalls });
      }
      return { order, complete, strategy, claims, shortfalls: plan.shortfalls };
    },
  }),

  defineOperation({
    name: 'orders.releaseOrderAllocation',
    summary: 'Release every active claim of one order line.',
    description:
      'Its kilograms are available to other orders again, and the order becomes partially_allocated or, with no claim left, ' +
      'confirmed. 409 `not_allocated` when the line holds no claim; 409 `invalid_state_transition` for a draft, fulfilled or ' +
      'canceled order.',
    permission: 'orders.write',
    feature,
    get: false,
    input: ReleaseOrderAllocation,
    output: OrderAllocationRelease,
    errors: ['not_found', 'not_allocated', 'invalid_state_transition', 'concurrent_update'],
    emits: [orderAllocationReleased],
    async handler(ctx, { orderLineId }) {
      const line = (await repo.findLine(ctx.tx, ctx.orgId, orderLineId)) ?? throwNotFound('order line', orderLineId, 'orderLineId');
      const locked = await lockOrderIn(ctx.tx, ctx.orgId, line.orderId, ['confirmed', 'partially_allocated', 'allocated'], 'released');
      const released = await repo.releaseClaims(ctx.tx, ctx.orgId, { orderId: locked.id, orderLineId });
      if (released.length === 0) {
        throw conflict('not_allocated', `Line ${line.lineNumber} of order ${locked.orderNumber} holds no allocation to release.`, {
          errors: [{ path: 'orderLineId', message: 'holds no allocation' }],
        });
      }
      await repo.refreshAllocationState(ctx.tx, ctx.orgId, locked.id);
      const order = await orderOrThrow(ctx.tx, ctx.orgId, locked.id);
      const releasedKg = kgString(released.reduce((sum, claim) => sum + grams(claim.quantityKg), 0n));
      await ctx.emit('orders.order.allocation_released', { order, orderLineId, released, releasedKg });
      return { order, released, releasedKg };
    },
  }),

  defineOperation({
    name: 'orders.cancelOrder',
    summary: 'Cancel an order that has not shipped.',
    description:
      'Allowed for draft, confirmed, partially_allocated and allocated orders (409 `invalid_state_transition` otherwise). Its ' +
      'active claims are released in the same transaction; an optional reason is kept.',
    extension: true,
    permission: 'orders.write',
    feature,
    get: false,
    input: CancelOrder,
    output: OrderCancellation,
    errors: ['not_found', 'invalid_state_transition', 'concurrent_update'],
    emits: [orderCanceled],
    async handler(ctx, { id, reason }) {
      await lockOrderIn(ctx.tx, ctx.orgId, id, ['draft', 'confirmed', 'partially_allocated', 'allocated'], 'canceled');
      const released = await repo.releaseClaims(ctx.tx, ctx.orgId, { orderId: id });
      await repo.cancelOrder(ctx.tx, ctx.orgId, id, reason ?? null);
      const order = await orderOrThrow(ctx.tx, ctx.orgId, id);
      await ctx.emit('orders.order.canceled', { order, released });
      return { order, released };
    },
  }),

  defineOperation({
    name: 'orders.fulfillOrder',
    summary: 'Ship a fully allocated order.',
    description:
      'Only an allocated order ships (409 `invalid_state_transition` otherwise). Each claim’s weight leaves its roasted lot as a ' +
      '`fulfilment` ledger row, lineage roasted lot → order line is recorded with the weight, and the order becomes fulfilled. ' +
      'A blend product’s line is blended as it ships (roasted lots → a new blend lot → the line) and a line ordered in units of a ' +
      'product is packed (→ a new product batch → the line), so traces and EPCIS exports show the blend and the packing. ' +
      'If a lot no longer holds what was claimed from it (e.g. written off since), nothing is shipped: 409 ' +
      '`insufficient_stock` naming the lot; release and allocate the line again.',
    extension: true,
    permission: 'orders.write',
    feature,
    get: false,
    input: ById,
    output: OrderFulfillment,
    errors: ['not_found', 'invalid_state_transition', 'insufficient_stock', 'concurrent_update'],
    emits: [orderFulfilled],
    async handler(ctx, { id }) {
      const locked = await lockOrderIn(ctx.tx, ctx.orgId, id, ['allocated'], 'fulfilled');
      const parts = await repo.claimedParts(ctx.tx, ctx.orgId, id);
      await requireStockForShipment(ctx.tx, ctx.orgId, parts);
      const fulfillment = await repo.insertFulfillment(ctx.tx, ctx.orgId, id, ctx.principal.credentialId);
      const transactions = [];
      for (const part of parts) {
        transactions.push(
          await roastedStock.shipRoasted(ctx.tx, ctx.orgId, ctx.principal.credentialId, {
            lotId: part.roastedLotId,
            weightKg: kgString(part.quantity),
            comment: `order ${locked.orderNumber} line ${part.lineNumber}`,
          }),
        );
      }
      const lineage = await lineageService.recordEdges(ctx.tx, ctx.orgId, shipmentLineage(parts, fulfillment.id));
      await repo.markFulfilled(ctx.tx, ctx.orgId, id, fulfillment.id);
      const order = await orderOrThrow(ctx.tx, ctx.orgId, id);
      await ctx.emit('orders.order.fulfilled', { order, fulfillment, transactions, lineage });
      return { order, fulfillment, transactions, lineage };
    },
  }),
];

/**
 * The lineage one fulfilment records, all edges in its group. Per line:
 * - a line of one roasted lot, or of several not blended: roasted lot → order line, with the weight;
 * - a blend line (a blend product's): its parts are blended for it, roasted lots → a new blend lot → line;
 * - a line ordered in units of a product: its coffee is packed into them, (roasted lots | the blend lot) →
 *   a new product batch → line, so a trace and EPCIS show the blend and the packing where they happened.
 * Blend lots and product batches made here have no record of their own: lineage names them.
 */
export function shipmentLineage(parts: repo.ClaimedPart[], fulfillmentId: string): lineageService.NewLineageEdge[] {
  const edges: lineageService.NewLineageEdge[] = [];
  const byLine = new Map<string, repo.ClaimedPart[]>();
  for (const part of parts) byLine.set(part.orderLineId, [...(byLine.get(part.orderLineId) ?? []), part]);
  for (const [lineId, lineParts] of byLine) {
    const total = kgString(lineParts.reduce((t, p) => t + p.quantity, 0n));
    const { blendId, quantityUnits } = lineParts[0];
    let sources: { kind: lineageService.TraceKind; id: string; weightKg: string }[] = lineParts.map((p) => ({ kind: 'roasted_lot', id: p.roastedLotId, weightKg: kgString(p.quantity) }));
    if (blendId !== null) {
      const blendLot = newId('bl');
      for (const s of sources) edges.push({ fromKind: s.kind, fromId: s.id, toKind: 'blend_lot', toId: blendLot, weightKg: s.weightKg, groupId: fulfillmentId });
      sources = [{ kind: 'blend_lot', id: blendLot, weightKg: total }];
    }
    if (quantityUnits !== null) {
      const packed = newId('pb');
      for (const s of sources) edges.push({ fromKind: s.kind, fromId: s.id, toKind: 'product_batch', toId: packed, weightKg: s.weightKg, groupId: fulfillmentId });
      sources = [{ kind: 'product_batch', id: packed, weightKg: total }];
    }
    for (const s of sources) edges.push({ fromKind: s.kind, fromId: s.id, toKind: 'order_line', toId: lineId, weightKg: s.weightKg, groupId: fulfillmentId });
  }
  return edges;
}

/**
 * Locks the order and refuses the move unless it is in one of `from`. The allowed moves are listed in
 * the module's README section; every other one is 409 invalid_state_transition.
 */
async function lockOrderIn(q: Queryable, orgId: string, id: string, from: OrderState[], move: string): Promise<repo.LockedOrder> {
  const order = (await repo.lockOrder(q, orgId, id)) ?? throwNotFound('order', id);
  if (!from.includes(order.state)) {
    throw conflict('invalid_state_transition', `Order ${order.orderNumber} is ${order.state}; it cannot be ${move} from that state.`, {
      state: order.state,
      allowedFrom: from,
    });
  }
  return order;
}

/** The order's currency, and every line's currency agreeing with it. */
function orderCurrency(input: CreateOrderInput, customerCurrency: string | null): string {
  const lineCurrencies = [...new Set(input.lines.map((line) => line.currency).filter((c): c is string => c !== undefined))];
  const currency = input.currency ?? customerCurrency ?? (lineCurrencies.length === 1 ? lineCurrencies[0] : undefined);
  if (!currency) {
    throw invalidInput([{ path: 'currency', message: 'required: the customer has no currency and the lines do not name one' }]);
  }
  const mismatched: FieldError[] = input.lines.flatMap((line, i) =>
    line.currency !== undefined && line.currency !== currency
      ? [{ path: `lines[${i}].currency`, message: `an order is priced in one currency: ${currency}` }]
      : [],
  );
  if (mismatched.length > 0) throw invalidInput(mismatched);
  return currency;
}

/** 404 naming every line field whose id does not exist in this organization; else the codes of the lots named. */
async function requireLineReferences(q: Queryable, orgId: string, input: CreateOrderInput): Promise<repo.LineLotCodes> {
  const fields = ['productId', 'roastedLotId', 'greenLotId', 'profileId'] as const;
  const named = (field: (typeof fields)[number]) => input.lines.flatMap((line) => (line[field] ? [line[field]] : []));
  const { missing, codes } = await lineReferences(q, orgId, {
    products: named('productId'),
    roastedLots: named('roastedLotId'),
    greenLots: named('greenLotId'),
    profiles: named('profileId'),
  });
  if (missing.size === 0) return codes;
  const errors = input.lines.flatMap((line, i) =>
    fields.filter((field) => line[field] && missing.has(line[field])).map((field) => ({ path: `lines[${i}].${field}`, message: 'not found' })),
  );
  throw new ProblemError(404, 'not_found', 'A line names a record that does not exist in this organization.', { errors });
}

/**
 * Claims stock for the open lines and answers the plan, the claims' ids and the order as it then stands.
 *
 * Exact: no kilogram is promised twice. A claim is written only on a lot this transaction holds locked until
 * commit, and the lot's figure (on hand less every active claim) is read after the lock is held, so it
 * includes every claim committed before; every writer of claims or of a lot's weight takes the same lock.
 *
 * Concurrent: allocations of one coffee all want the same lots (the strategy's first ones), and a lock is
 * held to the commit (the durable flush included), so allocations that queue for those lots run one at a
 * time. Instead, an allocation plans on figures read without locks, then locks the lots it chose passing
 * over those another transaction holds (taking the next free ones in the strategy's order instead), and
 * plans again on what it holds (planOnFreeLots): concurrent allocations fill different lots side by side.
 *
 * The rule this gives (README, "Allocation"): an allocation spends lots in the strategy's order among those
 * no other transaction is writing at that moment; alone, it follows the order exactly. It never reports a
 * shortfall because it passed a lot over: when the lots it holds cannot cover the lines while some were
 * passed over, it lets go of them and waits for one of those lots, holding nothing else (so no wait can
 * close a cycle: passing over never waits), and tries again from that lot; after WAITS_FOR_ONE_LOT such waits
 * it locks every lot it could use in lot-id order, waiting for each (the order every writer of roasted stock
 * takes them in), and plans on figures that are all current.
 *
 * What the first read may miss: stock that came back (a released claim, an adjustment up) after it, on a lot
 * it then saw empty. Such an allocation is as if it ran just before that stock came back: it may take a later
 * lot, or report a shortfall, where one allocating a moment later would not. It never promises what is not there.
 */
async function claimStock(
  q: Queryable,
  orgId: string,
  orderId: string,
  lines: repo.OpenLine[],
  open: repo.OpenLine[],
  strategy: AllocationStrategy,
  includeExpired: boolean | undefined,
): Promise<{ plan: { claims: repo.NewClaim[]; shortfalls: Shortfall[] }; ids: string[]; order: Awaited<ReturnType<typeof orderOrThrow>> }> {
  const seen = lines.length > 0 ? await claimableLots(q, orgId, await candidateStock(q, orgId, lines)) : [];
  let parts = planClaims(lines, seen, strategy, includeExpired);
  // Nothing to claim: nothing written and no lock needed (claims made meanwhile only lower what is available).
  if (parts.claims.length > 0) {
    await q.exec(`savepoint ${SAVEPOINT}`);
    let waitFor: string | undefined;
    for (let attempt = 1; ; attempt++) {
      const waited = waitFor ? await figuresAfterLock(q, orgId, await roastedStock.lockRoastedLots(q, orgId, [waitFor]), seen) : new Map<string, ClaimableLot>();
      const outcome = await planOnFreeLots(q, orgId, lines, seen, strategy, includeExpired, waited);
      if (outcome.plan) {
        parts = outcome.plan;
        break;
      }
      // Rolling back to the savepoint lets go of the lots held, so nothing is held while waiting.
      await q.exec(`rollback to savepoint ${SAVEPOINT}`);
      if (attempt === WAITS_FOR_ONE_LOT + 1) {
        parts = await planOnAllLots(q, orgId, lines, seen, strategy, includeExpired);
        break;
      }
      // One of the lots passed over, waited for alone; chosen at random so that allocations waiting at the
      // same moment wait for different lots rather than queue for one.
      waitFor = outcome.passedOver[Math.floor(Math.random() * outcome.passedOver.length)];
    }
  }
  const plan = { claims: parts.claims, shortfalls: shortfallPerLine(parts.shortfalls, open) };
  const ids = await repo.insertClaims(q, orgId, orderId, strategy, plan.claims);
  const order = await orderOrThrow(q, orgId, orderId);
  return { plan, ids, order };
}

/** The lots the lines could take from: with something to promise when read, promisable, filling one of the lines. */
const couldFill = (lines: repo.OpenLine[], includeExpired: boolean | undefined) => (lot: ClaimableLot) =>
  lot.available > 0n && (includeExpired || !lot.expired) && lines.some((line) => fillsLine(lot, line));

/**
 * How often an allocation that fell short because it passed lots over waits for one of them (holding nothing
 * else) and tries again, before it waits for all of them at once (planOnAllLots).
 */
const WAITS_FOR_ONE_LOT = 3;

/**
 * A plan that takes only from lots this transaction holds (`held` to start with): locks the lots the plan
 * wants, passing over any that another transaction holds for the next free ones in the strategy's order, and
 * plans again on the figures read after the lock, until every lot the plan takes from is held. When that plan
 * falls short while lots were passed over (they may hold what is missing), it answers those lots instead.
 */
async function planOnFreeLots(
  q: Queryable,
  orgId: string,
  lines: repo.OpenLine[],
  seen: ClaimableLot[],
  strategy: AllocationStrategy,
  includeExpired: boolean | undefined,
  held: Map<string, ClaimableLot>,
): Promise<{ plan: ClaimPlan; passedOver?: undefined } | { plan?: undefined; passedOver: string[] }> {
  const passedOver = new Set<string>();
  for (;;) {
    const lots = seen.map((lot) => held.get(lot.id) ?? (passedOver.has(lot.id) ? { ...lot, available: 0n } : lot));
    const parts = planClaims(lines, lots, strategy, includeExpired);
    const wanted = new Set(parts.claims.flatMap((claim) => (held.has(claim.roastedLotId) ? [] : [claim.roastedLotId])));
    if (wanted.size === 0) return parts.shortfalls.length > 0 && passedOver.size > 0 ? { passedOver: [...passedOver] } : { plan: parts };
    // Every lot the plan could take from next, in the strategy's order (the wanted ones among them).
    const free = inStrategyOrder(lots, strategy).filter((lot) => !held.has(lot.id) && couldFill(lines, includeExpired)(lot));
    const locked = await roastedStock.lockFreeRoastedLots(q, orgId, free.map((lot) => lot.id), wanted.size);
    for (const [id, lot] of await figuresAfterLock(q, orgId, locked, seen)) held.set(id, lot);
    const tried = locked.length < wanted.size ? free.length : free.findIndex((lot) => lot.id === locked.at(-1)!.id) + 1;
    for (const lot of free.slice(0, tried)) if (!held.has(lot.id)) passedOver.add(lot.id);
  }
}

/**
 * The plan on every lot the lines could take from, each locked in lot-id order (waiting for any another
 * transaction holds), so every figure planned on is current.
 */
async function planOnAllLots(
  q: Queryable,
  orgId: string,
  lines: repo.OpenLine[],
  seen: ClaimableLot[],
  strategy: AllocationStrategy,
  includeExpired: boolean | undefined,
): Promise<ClaimPlan> {
  const locked = await roastedStock.lockRoastedLots(q, orgId, seen.filter(couldFill(lines, includeExpired)).map((lot) => lot.id));
  const held = await figuresAfterLock(q, orgId, locked, seen);
  return planClaims(lines, seen.map((lot) => held.get(lot.id) ?? lot), strategy, includeExpired);
}

/**
 * The locked lots as planned on: on hand (as of the lock) less every active claim, summed in a statement after
 * the lock is held. A statement's snapshot is taken before it waits or locks, so the locking statement's
 * own would miss the claims of a rival that committed just before this transaction took the lot.
 */
async function figuresAfterLock(q: Queryable, orgId: string, locked: { id: string; onHand: bigint }[], seen: ClaimableLot[]): Promise<Map<string, ClaimableLot>> {
  if (locked.length === 0) return new Map();
  const claimed = await repo.activeClaimsByLot(q, orgId, locked.map((lot) => lot.id));
  return new Map(
    locked.map(({ id, onHand }) => {
      const available = onHand - (claimed.get(id) ?? 0n);
      return [id, { ...seen.find((lot) => lot.id === id)!, available: available > 0n ? available : 0n }];
    }),
  );
}

const SAVEPOINT = 'orders_allocate';

interface CandidateStock {
  lotIds: string[];
  greenLots: { greenLotId: string; profileId: string | null }[];
}

/** What names the roasted lots that can fill the open lines: lots named by id, lots roasted from a green lot (with a profile) or with a profile. */
async function candidateStock(q: Queryable, orgId: string, lines: repo.OpenLine[]): Promise<CandidateStock> {
  // Product lines made with a profile: the lots roasted with it.
  const profiles = lines.flatMap((line) => (!line.roastedLotId && !line.greenLotId && line.profileId ? [line.profileId] : []));
  const lotIds = [
    ...lines.flatMap((line) => (line.roastedLotId ? [line.roastedLotId] : [])),
    ...(await roastedStock.lotIdsRoastedWith(q, orgId, [...new Set(profiles)])),
  ];
  const greenLots = lines.flatMap((line) => (!line.roastedLotId && line.greenLotId ? [{ greenLotId: line.greenLotId, profileId: line.profileId }] : []));
  return { lotIds, greenLots };
}

/**
 * The candidate lots with what each still has to promise, read without locks: a figure to plan on, which
 * claimStock checks again after locking the lots it chose.
 */
async function claimableLots(q: Queryable, orgId: string, { lotIds, greenLots }: CandidateStock): Promise<ClaimableLot[]> {
  const stock = await roastedStock.readStockFor(q, orgId, lotIds, greenLots);
  if (stock.length === 0) return [];
  const claimed = await repo.activeClaimsByLot(q, orgId, stock.map((lot) => lot.id));
  return stock.map(({ onHand, ...lot }) => {
    const available = onHand - (claimed.get(lot.id) ?? 0n);
    return { ...lot, available: available > 0n ? available : 0n };
  });
}

/**
 * Locks the claimed lots (in lot-id order, as allocation does) and refuses the shipment when one was
 * written down since it was claimed: it cannot ship what was promised from it.
 */
async function requireStockForShipment(q: Queryable, orgId: string, parts: repo.ClaimedPart[]): Promise<void> {
  const claimedPerLot = new Map<string, bigint>();
  for (const part of parts) claimedPerLot.set(part.roastedLotId, (claimedPerLot.get(part.roastedLotId) ?? 0n) + part.quantity);
  for (const lot of await roastedStock.lockRoastedLots(q, orgId, [...claimedPerLot.keys()])) {
    const claimed = claimedPerLot.get(lot.id)!;
    if (claimed > lot.onHand) {
      throw conflict(
        'insufficient_stock',
        `Roasted lot ${lot.lotCode} holds ${kgString(lot.onHand)} kg but ${kgString(claimed)} kg are claimed for this order; ` +
          'release and allocate the affected lines again.',
        { roastedLotId: lot.id, onHandKg: kgString(lot.onHand), claimedKg: kgString(claimed) },
      );
    }
  }
}

/** The order as answered (with its lines' margins), or 404. */
export async function orderOrThrow(q: Queryable, orgId: string, id: string) {
  return withMargins(q, orgId, (await repo.findOrder(q, orgId, id)) ?? throwNotFound('order', id));
}

