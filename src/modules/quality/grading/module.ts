import { defineModule } from '../../../rpc/module.js';
import { gradingOperations } from './operations.js';
import * as events from './events.js';
import { examples } from '../examples.js';

export default defineModule({
  name: 'quality/grading',
  operations: gradingOperations,
  examples,
  events: Object.values(events),
  tables: ['gradings'],
});
