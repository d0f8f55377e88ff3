import { defineModule } from '../../../rpc/module.js';
import { cuppingOperations } from './operations.js';
import * as events from './events.js';
import { examples } from '../examples.js';

export default defineModule({
  name: 'quality/cupping',
  operations: cuppingOperations,
  examples,
  events: Object.values(events),
  tables: ['cupping_sessions', 'cupping_session_samples', 'cupping_scores'],
});
