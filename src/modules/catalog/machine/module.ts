import { defineModule } from '../../../rpc/module.js';
import { machineOperations } from './operations.js';
import * as events from './events.js';

export default defineModule({
  name: 'catalog/machine',
  operations: machineOperations,
  events: Object.values(events),
  tables: ['machines'],
});
