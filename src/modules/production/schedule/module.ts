import { defineModule } from '../../../rpc/module.js';
import { scheduleOperations } from './operations.js';
import * as events from './events.js';
import { examples } from '../examples.js';

export default defineModule({
  name: 'production/schedule',
  operations: scheduleOperations,
  examples,
  events: Object.values(events),
  tables: ['production_schedules', 'scheduled_batches'],
});
