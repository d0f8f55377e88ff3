import { defineModule } from '../../../rpc/module.js';
import { greenOperations } from './operations.js';
import * as events from './events.js';
import { examples } from '../examples.js';

export default defineModule({
  name: 'inventory/green',
  operations: greenOperations,
  examples,
  events: Object.values(events),
  tables: ['green_lots', 'green_lot_ledger', 'green_lot_balances', 'green_lot_cost_components', 'green_lot_landed_costs'],
});
