import { defineModule } from '../../../rpc/module.js';
import { sampleOperations } from './operations.js';
import * as events from './events.js';

export default defineModule({
  name: 'sourcing/sample',
  operations: sampleOperations,
  events: Object.values(events),
  tables: ['samples'],
});
