import { defineModule } from '../../../rpc/module.js';
import { partyOperations } from './operations.js';
import * as events from './events.js';
import { examples } from '../examples.js';

export default defineModule({
  name: 'catalog/party',
  operations: partyOperations,
  examples,
  events: Object.values(events),
  tables: ['partners', 'producers', 'plots'],
});
