import { defineModule } from '../../../rpc/module.js';
import { scheduleOperations } from './operations.js';
import * as events from './events.js';

export default defineModule({
  name: 'production/schedule',
  operations: scheduleOperations,
  events: Object.values(events),
  tables: ['production_schedules', 'scheduled_batches'],
});
