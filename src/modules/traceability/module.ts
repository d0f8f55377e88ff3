import { defineModule } from '../../rpc/module.js';
import { traceabilityOperations } from './operations.js';
import * as events from './events.js';
import { PUBLIC_PAGE_WINDOWS, certificatePages, certificatePagesOpenApiPaths } from './public-page.js';

export default defineModule({
  name: 'traceability',
  operations: traceabilityOperations,
  events: Object.values(events),
  tables: ['certificates'],
  surfaces: {
    openApiPaths: certificatePagesOpenApiPaths,
    start: (ctx) => {
      const pages = certificatePages(ctx.db, { limiter: ctx.limiter('public', PUBLIC_PAGE_WINDOWS) });
      return { routes: (app) => pages(app) };
    },
  },
});
