import { defineModule } from '../../rpc/module.js';
import { reportingOperations } from './operations.js';
import { reportFiles } from './downloads.js';
import { renderReportJob } from './render.js';

export default defineModule({
  name: 'reporting',
  operations: reportingOperations,
  tables: ['reports'],
  jobs: { 'render-report': renderReportJob },
  files: [reportFiles],
});
