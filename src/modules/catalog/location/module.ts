import { defineModule } from '../../../rpc/module.js';
import { locationOperations } from './operations.js';
import * as events from './events.js';
import { examples } from '../examples.js';

export default defineModule({
  name: 'catalog/location',
  operations: locationOperations,
  examples,
  events: Object.values(events),
  tables: ['locations'],
});
