import { defineModule } from '../../../rpc/module.js';
import { productOperations } from './operations.js';
import * as events from './events.js';
import { examples } from '../examples.js';

export default defineModule({
  name: 'catalog/product',
  operations: productOperations,
  examples,
  events: Object.values(events),
  tables: ['products'],
});
