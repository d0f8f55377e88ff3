import { defineModule } from '../../rpc/module.js';
import { importOperations } from './operations.js';
import { applyImportJob } from './apply.js';
import { examples } from './examples.js';

export default defineModule({
  name: 'imports',
  operations: importOperations,
  examples,
  tables: ['imports'],
  jobs: { 'apply-import': applyImportJob },
});
