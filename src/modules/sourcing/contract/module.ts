import { defineModule } from '../../../rpc/module.js';
import { contractOperations } from './operations.js';
import * as events from './events.js';
import { examples } from '../examples.js';

export default defineModule({
  name: 'sourcing/contract',
  operations: contractOperations,
  examples,
  events: Object.values(events),
  tables: ['green_contracts', 'green_contract_lines', 'green_contract_shipments', 'green_contract_receipt_lines', 'green_contract_milestones'],
});
