import { defineModule } from '../../rpc/module.js';
import { orderOperations } from './operations.js';
import { shopOperations } from './shops.js';
import { shopOrderSurface } from './shop-webhooks.js';
import * as events from './events.js';
import { examples } from './examples.js';

export default defineModule({
  name: 'orders',
  operations: [...orderOperations, ...shopOperations],
  surfaces: [shopOrderSurface],
  examples,
  events: Object.values(events),
  // roast_demand: the view of confirmed order lines still to roast (its current text is the orders migration's).
  tables: ['customers', 'orders', 'order_lines', 'fulfillments', 'order_allocations', 'roast_demand', 'shop_connections'],
});
