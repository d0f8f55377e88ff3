import { defineModule } from '../../../rpc/module.js';
import { productOperations } from './operations.js';
import * as events from './events.js';

export default defineModule({
  name: 'catalog/product',
  operations: productOperations,
  events: Object.values(events),
  tables: ['products'],
});
