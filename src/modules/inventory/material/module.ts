import { defineModule } from '../../../rpc/module.js';
import { materialOperations } from './operations.js';
import * as events from './events.js';
import { examples } from '../examples.js';

export default defineModule({
  name: 'inventory/material',
  operations: materialOperations,
  examples,
  events: Object.values(events),
  tables: ['materials', 'material_transactions', 'bills_of_materials', 'bill_of_materials_lines'],
});
