import { z } from 'zod';
import { code, currency, date, dateTime, email, id, kg, money, name, page, strict, text } from '../../rpc/schemas.js';
import { currencyOut, dateOut, decimalOut, idOut, kgOut, out, timeOut } from '../../rpc/outputs.js';
import { address } from '../catalog/location/schemas.js';
import { RoastedLotTransaction } from '../inventory/roast/schemas.js';
import { LineageEdge } from '../inventory/green/schemas.js';

export const CUSTOMER_TYPES = ['wholesale', 'cafe', 'retail', 'distributor', 'subscription', 'internal', 'export'] as const;
export const CHANNELS = ['direct', 'webstore', 'edi', 'marketplace', 'api'] as const;
export const ORDER_STATES = ['draft', 'confirmed', 'partially_allocated', 'allocated', 'fulfilled', 'canceled'] as const;
export const ALLOCATION_STRATEGIES = ['fefo', 'fifo'] as const;

/** The most lines one order may carry: a pallet of mixed coffees, not a catalogue. */
export const MAX_ORDER_LINES = 500;

const search = z.string().trim().min(1).max(100);

export const CreateCustomer = strict({
  name,
  code,
  customerType: z.enum(CUSTOMER_TYPES).optional(),
  /** The currency the customer is invoiced in; an order without its own currency takes this one. */
  currency: currency.optional(),
  paymentTermsDays: z.number().int().min(0).max(365).optional(),
  contactEmail: email.optional(),
  shippingAddress: address.extend({ recipient: text(200).optional() }).optional(),
});

export const CustomerFilter = strict({
  customerType: z.enum(CUSTOMER_TYPES).optional(),
  /** Case-insensitive search in name, code and contact email. */
  q: search.optional(),
});

export const ListCustomers = strict({ filter: CustomerFilter.default({}), page });

/**
 * A line names the coffee it is filled from, exactly one of: roastedLotId (that very lot), greenLotId
 * (any roast of that green coffee, narrowed to roasts with profileId when given), or (extension) only a
 * product, by productId or productSku: then it is filled from what the product is made of (its roast profile
 * or blend). With a lot named, productId optionally names the article it is sold as. The quantity is
 * quantityKg of roasted coffee (unitPrice per kilogram) or, extension, quantityUnits of the product (bags;
 * unitPrice per unit), converted through the product's net weight.
 */
export const NewOrderLine = strict({
  productId: id('productId').optional(),
  /** Extension: the product by its SKU instead of its id. */
  productSku: code.optional(),
  roastedLotId: id('roastedLotId').optional(),
  greenLotId: id('greenLotId').optional(),
  profileId: id('profileId').optional(),
  quantityKg: kg({ positive: true }).optional(),
  /** Extension: units of the product (bags), instead of quantityKg. */
  quantityUnits: z.number().int().positive().max(1_000_000).optional(),
  unitPrice: money,
  /** Defaults to the order's currency, and must equal it: an order is priced in one currency. */
  currency: currency.optional(),
}).superRefine((line, ctx) => {
  const product = line.productId !== undefined || line.productSku !== undefined;
  if (line.roastedLotId !== undefined && line.greenLotId !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['greenLotId'], message: 'name the coffee: exactly one of roastedLotId or greenLotId' });
  }
  if (line.roastedLotId === undefined && line.greenLotId === undefined && !product) {
    ctx.addIssue({ code: 'custom', path: ['roastedLotId'], message: 'name the coffee: roastedLotId, greenLotId, or a product (productId or productSku)' });
  }
  if (line.productId !== undefined && line.productSku !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['productSku'], message: 'name the product once: productId or productSku' });
  }
  if (line.profileId !== undefined && line.greenLotId === undefined) {
    ctx.addIssue({ code: 'custom', path: ['profileId'], message: 'only with greenLotId: a roasted lot already has its profile, a product its own' });
  }
  if ((line.quantityKg === undefined) === (line.quantityUnits === undefined)) {
    ctx.addIssue({ code: 'custom', path: [line.quantityKg === undefined ? 'quantityKg' : 'quantityUnits'], message: 'exactly one of quantityKg or quantityUnits' });
  }
  if (line.quantityUnits !== undefined && !product) {
    ctx.addIssue({ code: 'custom', path: ['quantityUnits'], message: 'units of a product: name it with productId or productSku' });
  }
});

/** A day means the start of that day, UTC. */
const shipAt = z.union([dateTime, date]).transform((value) => (value.length === 10 ? `${value}T00:00:00.000Z` : value));

export const CreateOrder = strict({
  orderNumber: code,
  customerId: id('customerId'),
  channel: z.enum(CHANNELS).default('direct'),
  /** The order's id in the channel it came from: creating the same channel's order again answers the stored order. */
  externalOrderId: z.string().trim().min(1).max(200).optional(),
  /** Defaults to the customer's currency. */
  currency: currency.optional(),
  requestedShipAt: shipAt.optional(),
  lines: z.array(NewOrderLine).min(1, 'an order has at least one line').max(MAX_ORDER_LINES),
});

export const OrderFilter = strict({
  state: z.enum(ORDER_STATES).optional(),
  customerId: id('customerId').optional(),
  channel: z.enum(CHANNELS).optional(),
  /** Requested to ship on or after this day (UTC). */
  requestedShipFrom: date.optional(),
  /** Requested to ship on or before this day (UTC). */
  requestedShipTo: date.optional(),
  /** Case-insensitive search in the order number, the external order id and the customer's name. */
  q: search.optional(),
});

export const ListOrders = strict({ filter: OrderFilter.default({}), page });

export const AllocateOrder = strict({
  id: id(),
  /** fefo: earliest best-before first (the default); fifo: earliest roasted first. */
  strategy: z.enum(ALLOCATION_STRATEGIES).default('fefo'),
  /** Extension: also promise lots past their best-before day (left out by default and named in the shortfall). */
  includeExpired: z.boolean().default(false),
});

export const ReleaseOrderAllocation = strict({ orderLineId: id('orderLineId') });

export const CancelOrder = strict({ id: id(), reason: text(1000).optional() });

export const ById = strict({ id: id() });

export type CreateCustomerInput = z.output<typeof CreateCustomer>;
export type CustomerFilterInput = z.output<typeof CustomerFilter>;
export type CreateOrderInput = z.output<typeof CreateOrder>;
export type OrderLineInput = z.output<typeof NewOrderLine>;
export type OrderFilterInput = z.output<typeof OrderFilter>;
export type OrderState = (typeof ORDER_STATES)[number];
export type CustomerType = (typeof CUSTOMER_TYPES)[number];
export type Channel = (typeof CHANNELS)[number];
export type ShippingAddress = NonNullable<CreateCustomerInput['shippingAddress']>;
export type AllocationStrategy = (typeof ALLOCATION_STRATEGIES)[number];

// ---------------------------------------------------------------------------------------------------
// Answers

export const Customer = out({
  id: idOut,
  code: z.string(),
  name: z.string(),
  customerType: z.enum(CUSTOMER_TYPES).nullable(),
  /** The currency the customer is invoiced in; an order without its own currency takes this one. */
  currency: currencyOut.nullable(),
  paymentTermsDays: z.number().int().min(0).max(365).nullable(),
  contactEmail: z.string().nullable(),
  /** As given: only the fields that were set. */
  shippingAddress: out({
    line1: z.string().optional(),
    line2: z.string().optional(),
    city: z.string().optional(),
    region: z.string().optional(),
    postalCode: z.string().optional(),
    country: z.string().optional(),
    recipient: z.string().optional(),
  }).nullable(),
  createdAt: timeOut,
  updatedAt: timeOut,
}).meta({ id: 'Customer' });

/** Kilograms of a roasted lot promised to an order line. */
export const OrderAllocation = out({
  id: idOut,
  roastedLotId: idOut,
  lotCode: z.string(),
  quantityKg: kgOut,
  strategy: z.enum(ALLOCATION_STRATEGIES),
  /** The lot's best-before day (UTC): roast day + its shelf life. */
  bestBefore: dateOut,
  /** active: holds stock for the line; fulfilled: left with the fulfilment. Released claims are not listed. */
  state: z.enum(['active', 'fulfilled']),
  fulfillmentId: idOut.nullable(),
  createdAt: timeOut,
}).meta({ id: 'OrderAllocation' });

export const MARGIN_MISSING_REASONS = [
  'no_product', 'no_list_price', 'no_net_weight', 'no_roasted_lot', 'coffee_not_costed', 'no_bill_of_materials', 'material_not_costed', 'mixed_currencies',
] as const;
export type MarginMissingReason = (typeof MARGIN_MISSING_REASONS)[number];

/** A line's margin per unit of its product against the product's list price: every figure, or none and why. */
export const OrderLineMargin = out({
  /** The product's currency; every figure is in it. */
  currency: currencyOut.nullable(),
  /** The product's list price per unit, 4 decimals. */
  listPrice: decimalOut.nullable(),
  /** The roasted coffee's cost per kg (claimed lots weighted by kg, else the named lot) × the product's net weight. */
  coffeeCost: decimalOut.nullable(),
  /** The active bill of materials at its materials' unit costs, per unit. */
  materialsCost: decimalOut.nullable(),
  /** coffeeCost + materialsCost. */
  unitCost: decimalOut.nullable(),
  /** listPrice − unitCost. */
  margin: decimalOut.nullable(),
  /** margin / listPrice × 100, 2 decimals. */
  marginPct: decimalOut.nullable(),
  /** Why the figures are missing (null when there): never a zero cost. */
  missing: z.enum(MARGIN_MISSING_REASONS).nullable(),
  rule: z.string(),
}).meta({ id: 'OrderLineMargin' });

export const OrderLine = out({
  id: idOut,
  /** 1..n in the order given. */
  lineNumber: z.number().int().positive(),
  productId: idOut.nullable(),
  /** Extension: a line naming only a product is filled from what it was made of when the order was taken: its blend (else profileId). */
  blendId: idOut.nullable(),
  /** Extension: the level the product is roasted to (planning groups by it); null on lines naming a lot. */
  roastLevel: z.enum(['light', 'medium', 'dark']).nullable(),
  /** Extension: ordered in units of the product (bags): quantityKg is units × its net weight and unitPrice is per unit. */
  quantityUnits: z.number().int().positive().nullable(),
  /** The coffee the line is filled from: one roasted lot, any roast of one green lot (only with profileId when set), or a product's profile or blend. */
  roastedLotId: idOut.nullable(),
  roastedLotCode: z.string().nullable(),
  greenLotId: idOut.nullable(),
  greenLotCode: z.string().nullable(),
  profileId: idOut.nullable(),
  /** Roasted coffee. */
  quantityKg: kgOut,
  /** Per kilogram (per unit with quantityUnits), in the order's currency. */
  unitPrice: decimalOut,
  currency: currencyOut,
  /** quantityKg (quantityUnits) × unitPrice, 4 decimals half-up. */
  lineTotal: decimalOut,
  /** Claimed and not yet shipped. */
  allocatedKg: kgOut,
  fulfilledKg: kgOut,
  /** quantityKg less what is claimed or shipped: what allocation still has to find. */
  unallocatedKg: kgOut,
  /** Active and fulfilled claims, in the order they were made. */
  allocations: z.array(OrderAllocation),
  /** Extension: the margin per unit of the product against its list price (`rule` says how). */
  margin: OrderLineMargin,
}).meta({ id: 'OrderLine' });

/** An order's header with its customer and totals (what lists answer). */
export const OrderSummary = out({
  id: idOut,
  orderNumber: z.string(),
  customerId: idOut,
  customer: out({ id: idOut, code: z.string(), name: z.string() }),
  channel: z.enum(CHANNELS),
  /** The order's id in the channel it came from. */
  externalOrderId: z.string().nullable(),
  currency: currencyOut,
  requestedShipAt: timeOut.nullable(),
  state: z.enum(ORDER_STATES),
  lineCount: z.number().int().min(0),
  totalKg: kgOut,
  totalAmount: decimalOut,
  /** Claimed and not yet shipped, over all lines. */
  allocatedKg: kgOut,
  fulfilledKg: kgOut,
  cancelReason: z.string().nullable(),
  /** Extension: the web shop connection the order came from (orders.createShopConnection); null for others. */
  shopConnectionId: idOut.nullable(),
  /** Extension: why an order from a web shop was left in draft (a SKU no product has); null otherwise. */
  draftReason: z.string().nullable(),
  confirmedAt: timeOut.nullable(),
  fulfilledAt: timeOut.nullable(),
  canceledAt: timeOut.nullable(),
  createdAt: timeOut,
  updatedAt: timeOut,
}).meta({ id: 'OrderSummary' });

/** An order with its lines and their claims. */
export const Order = OrderSummary.extend({ lines: z.array(OrderLine) }).meta({ id: 'Order' });

/** A claim an allocation made. */
export const NewOrderAllocation = out({
  id: idOut,
  orderLineId: idOut,
  roastedLotId: idOut,
  lotCode: z.string(),
  quantityKg: kgOut,
  bestBefore: dateOut,
}).meta({ id: 'NewOrderAllocation' });

/** A line allocation could not cover in full. */
export const AllocationShortfall = out({
  orderLineId: idOut,
  lineNumber: z.number().int().positive(),
  quantityKg: kgOut,
  /** Claimed for the line so far, this allocation included. */
  allocatedKg: kgOut,
  shortfallKg: kgOut,
  /** expired: stock of the line's coffee is on hand but past its best-before day (see expiredLots); insufficient_stock: not enough on hand. */
  reason: z.enum(['insufficient_stock', 'expired']),
  /** The expired lots left out that could fill the line, earliest best-before first, with what each could still give. */
  expiredLots: z.array(out({ roastedLotId: idOut, lotCode: z.string(), bestBefore: dateOut, availableKg: kgOut })),
}).meta({ id: 'AllocationShortfall' });

export const OrderAllocationResult = out({
  order: Order,
  /** true: every line is claimed in full (state allocated). */
  complete: z.boolean(),
  strategy: z.enum(ALLOCATION_STRATEGIES),
  /** The claims this call made, in the order made (none when nothing was available or nothing was short). */
  claims: z.array(NewOrderAllocation),
  shortfalls: z.array(AllocationShortfall),
}).meta({ id: 'OrderAllocationResult' });

/** A claim that was released: its kilograms are available to other orders again. */
export const ReleasedOrderAllocation = out({
  id: idOut,
  orderLineId: idOut,
  roastedLotId: idOut,
  quantityKg: kgOut,
}).meta({ id: 'ReleasedOrderAllocation' });

export const OrderAllocationRelease = out({
  order: Order,
  released: z.array(ReleasedOrderAllocation),
  releasedKg: kgOut,
}).meta({ id: 'OrderAllocationRelease' });

export const OrderCancellation = out({
  order: Order,
  /** The claims the cancellation released. */
  released: z.array(ReleasedOrderAllocation),
}).meta({ id: 'OrderCancellation' });

export const Fulfillment = out({ id: idOut, createdAt: timeOut }).meta({ id: 'Fulfillment' });

export const OrderFulfillment = out({
  order: Order,
  fulfillment: Fulfillment,
  /** The fulfilment ledger rows, one per line and roasted lot shipped from. */
  transactions: z.array(RoastedLotTransaction),
  /** roasted lot → order line, with the weight shipped (through a blend lot for a blend line, a product batch for units packed). */
  lineage: z.array(LineageEdge),
}).meta({ id: 'OrderFulfillment' });
