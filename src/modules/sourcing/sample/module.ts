import { defineModule } from '../../../rpc/module.js';
import { sampleOperations } from './operations.js';
import * as events from './events.js';
import { examples } from '../examples.js';

export default defineModule({
  name: 'sourcing/sample',
  operations: sampleOperations,
  examples,
  events: Object.values(events),
  tables: ['samples'],
});
