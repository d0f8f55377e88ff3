import { defineModule } from '../../../rpc/module.js';
import { profileOperations } from './operations.js';
import * as events from './events.js';
import { examples } from '../examples.js';

export default defineModule({
  name: 'production/profile',
  operations: profileOperations,
  examples,
  events: Object.values(events),
  tables: ['roast_profiles'],
});
