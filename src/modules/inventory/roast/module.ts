import { defineModule } from '../../../rpc/module.js';
import { roastedLotOperations } from './operations.js';
import * as events from './events.js';
import { examples } from '../examples.js';

export default defineModule({
  name: 'inventory/roast',
  operations: roastedLotOperations,
  examples,
  events: Object.values(events),
  tables: ['roasted_lots', 'roasted_lot_ledger'],
});
