import { healthOpenApiPaths } from './health.js';
import { telemetryOpenApiPaths } from '../modules/production/roast/telemetry/openapi.js';
import { certificatePagesOpenApiPaths } from '../modules/traceability/public-page.js';
import { reportFiles } from '../modules/reporting/downloads.js';
import { curveFiles } from '../modules/production/roast/curve-files.js';
import { fileRoutesOpenApiPaths, type FileFamily } from './signed-files.js';
import { consoleOpenApiPaths } from './console.js';
import { shotIngestOpenApiPaths } from '../modules/cafe/ingest.js';
import { identityOpenApiPaths } from '../modules/identity/openapi.js';

/** Stored files served through signed links (src/http/signed-files.ts). */
export const FILE_FAMILIES: FileFamily[] = [reportFiles, curveFiles];

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
    ...fileRoutesOpenApiPaths(FILE_FAMILIES),
    ...consoleOpenApiPaths(),
  };
}
