import { defineModule } from '../../../rpc/module.js';
import { roastedLotOperations } from './operations.js';
import * as events from './events.js';

export default defineModule({
  name: 'inventory/roast',
  operations: roastedLotOperations,
  events: Object.values(events),
  tables: ['roasted_lots', 'roasted_lot_ledger'],
});
