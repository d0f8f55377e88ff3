import { healthOpenApiPaths } from './health.js';
import { telemetryOpenApiPaths } from '../telemetry/openapi.js';
import { certificatePagesOpenApiPaths } from '../modules/traceability/public-page.js';
import { reportDownloadsOpenApiPaths } from '../modules/reporting/downloads.js';
import { consoleOpenApiPaths } from './console.js';
import { shotIngestOpenApiPaths } from '../modules/cafe/ingest.js';
import { identityOpenApiPaths } from '../modules/identity/openapi.js';

/**
 * The OpenAPI paths of every HTTP surface that is not an RPC operation. Each surface documents itself beside
 * its routes; this list is what the document merges (src/rpc/openapi.ts).
 */
export function surfaceOpenApiPaths(): Record<string, unknown> {
  return {
    ...healthOpenApiPaths(),
    ...telemetryOpenApiPaths(),
    ...certificatePagesOpenApiPaths(),
    ...shotIngestOpenApiPaths(),
    ...identityOpenApiPaths(),
    ...reportDownloadsOpenApiPaths(),
    ...consoleOpenApiPaths(),
  };
}
