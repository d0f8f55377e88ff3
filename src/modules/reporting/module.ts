import { defineModule } from '../../rpc/module.js';
import { reportingOperations } from './operations.js';
import { reportFiles } from './downloads.js';
import { renderReportJob, sweepReportsJob } from './render.js';
import { examples } from './examples.js';

export default defineModule({
  name: 'reporting',
  operations: reportingOperations,
  examples,
  tables: ['reports'],
  jobs: { 'render-report': renderReportJob, 'sweep-reports': sweepReportsJob },
  files: [reportFiles],
});
