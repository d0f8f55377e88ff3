import { z } from 'zod';
import { defineEvent } from '../../events/define.js';
import { idOut, kgOut, out } from '../../rpc/outputs.js';
import {
  ALLOCATION_STRATEGIES,
  AllocationShortfall,
  Customer,
  NewOrderAllocation,
  Order,
  OrderCancellation,
  OrderFulfillment,
  ReleasedOrderAllocation,
} from './schemas.js';

const orderOnly = out({ order: Order });
const allocation = out({
  order: Order,
  strategy: z.enum(ALLOCATION_STRATEGIES),
  claims: z.array(NewOrderAllocation),
  shortfalls: z.array(AllocationShortfall),
});

export const customerCreated = defineEvent('orders.customer.created', 'A customer was created.', out({ customer: Customer }));
export const orderCreated = defineEvent('orders.order.created', 'A draft sales order was created.', orderOnly);
export const orderConfirmed = defineEvent('orders.order.confirmed', 'A draft order was confirmed: its lines are demand now.', orderOnly);
export const orderAllocated = defineEvent('orders.order.allocated', 'An allocation claimed roasted stock for every line of the order in full.', allocation);
export const orderPartiallyAllocated = defineEvent(
  'orders.order.partially_allocated',
  'An allocation claimed roasted stock, but some line is still short (`shortfalls`).',
  allocation,
);
export const orderAllocationReleased = defineEvent(
  'orders.order.allocation_released',
  'The claims of one order line were released.',
  out({ order: Order, orderLineId: idOut, released: z.array(ReleasedOrderAllocation), releasedKg: kgOut }),
);
export const orderCanceled = defineEvent('orders.order.canceled', 'An order was canceled and its claims released.', OrderCancellation);
export const orderFulfilled = defineEvent('orders.order.fulfilled', 'An allocated order shipped: its claimed weight left the roasted lots.', OrderFulfillment);
