import { defineModule } from '../../rpc/module.js';
import { traceabilityOperations } from './operations.js';
import { originOperations } from './origin-operations.js';
import * as events from './events.js';
import { certificatePageSurfaces } from './public-page.js';
import { examples } from './examples.js';

export default defineModule({
  name: 'traceability',
  operations: [...traceabilityOperations, ...originOperations],
  events: Object.values(events),
  tables: ['certificates', 'origin_declarations', 'operator_identities'],
  surfaces: certificatePageSurfaces,
  examples,
});
