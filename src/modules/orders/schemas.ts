import { z } from 'zod';
import { code, currency, date, dateTime, email, id, kg, money, name, page, strict, text } from '../../rpc/schemas.js';
import { address } from '../catalog/location/schemas.js';

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
 * A line names the coffee it is filled from, exactly one of: roastedLotId (that very lot) or greenLotId
 * (any roast of that green coffee, narrowed to roasts with profileId when given). productId optionally
 * names the article it is sold as. quantityKg is roasted coffee; unitPrice is per kilogram.
 */
export const OrderLine = strict({
  productId: id('productId').optional(),
  roastedLotId: id('roastedLotId').optional(),
  greenLotId: id('greenLotId').optional(),
  profileId: id('profileId').optional(),
  quantityKg: kg({ positive: true }),
  unitPrice: money,
  /** Defaults to the order's currency, and must equal it: an order is priced in one currency. */
  currency: currency.optional(),
}).superRefine((line, ctx) => {
  if ((line.roastedLotId === undefined) === (line.greenLotId === undefined)) {
    const message = 'name the coffee: exactly one of roastedLotId or greenLotId';
    ctx.addIssue({ code: 'custom', path: [line.roastedLotId === undefined ? 'roastedLotId' : 'greenLotId'], message });
  }
  if (line.profileId !== undefined && line.greenLotId === undefined) {
    ctx.addIssue({ code: 'custom', path: ['profileId'], message: 'only with greenLotId: a roasted lot already has its profile' });
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
  lines: z.array(OrderLine).min(1, 'an order has at least one line').max(MAX_ORDER_LINES),
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
});

export const ReleaseOrderAllocation = strict({ orderLineId: id('orderLineId') });

export const CancelOrder = strict({ id: id(), reason: text(1000).optional() });

export const ById = strict({ id: id() });

export type CreateCustomerInput = z.output<typeof CreateCustomer>;
export type CustomerFilterInput = z.output<typeof CustomerFilter>;
export type CreateOrderInput = z.output<typeof CreateOrder>;
export type OrderLineInput = z.output<typeof OrderLine>;
export type OrderFilterInput = z.output<typeof OrderFilter>;
export type OrderState = (typeof ORDER_STATES)[number];
export type AllocationStrategy = (typeof ALLOCATION_STRATEGIES)[number];
