import { defineModule } from '../../../rpc/module.js';
import { machineOperations } from './operations.js';
import * as events from './events.js';
import { examples } from '../examples.js';

export default defineModule({
  name: 'catalog/machine',
  operations: machineOperations,
  examples,
  events: Object.values(events),
  tables: ['machines'],
});
