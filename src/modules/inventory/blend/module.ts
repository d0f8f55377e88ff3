import { defineModule } from '../../../rpc/module.js';
import { blendOperations } from './operations.js';
import * as events from './events.js';
import { examples } from '../examples.js';

export default defineModule({
  name: 'inventory/blend',
  operations: blendOperations,
  examples,
  events: Object.values(events),
  tables: ['blends', 'blend_components'],
});
