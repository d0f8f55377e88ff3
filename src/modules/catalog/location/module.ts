import { defineModule } from '../../../rpc/module.js';
import { locationOperations } from './operations.js';
import * as events from './events.js';

export default defineModule({
  name: 'catalog/location',
  operations: locationOperations,
  events: Object.values(events),
  tables: ['locations'],
});
