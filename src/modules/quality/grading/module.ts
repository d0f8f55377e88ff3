import { defineModule } from '../../../rpc/module.js';
import { gradingOperations } from './operations.js';
import * as events from './events.js';

export default defineModule({
  name: 'quality/grading',
  operations: gradingOperations,
  events: Object.values(events),
  tables: ['gradings'],
});
