import { defineModule } from '../../rpc/module.js';

/** No operations of its own: other modules record and walk lineage through its service. */
export default defineModule({
  name: 'lineage',
  tables: ['lineage_edges'],
});
