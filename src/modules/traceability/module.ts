import { defineModule } from '../../rpc/module.js';
import { traceabilityOperations } from './operations.js';
import * as events from './events.js';
import { certificatePageSurfaces } from './public-page.js';
import { examples } from './examples.js';

export default defineModule({
  name: 'traceability',
  operations: traceabilityOperations,
  events: Object.values(events),
  tables: ['certificates'],
  surfaces: certificatePageSurfaces,
  examples,
});
