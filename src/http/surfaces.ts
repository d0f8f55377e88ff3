import { healthOpenApiPaths } from './health.js';
import { fileRoutesOpenApiPaths } from './signed-files.js';
import { consoleOpenApiPaths } from './console.js';
import type { Registry } from '../rpc/registry.js';

/**
 * The OpenAPI paths of every HTTP surface that is not an RPC operation: the platform's (health, signed file
 * links, the console) and each module's (its manifest's `surfaces`). This is what the document merges
 * (src/rpc/openapi.ts).
 */
export function surfaceOpenApiPaths(registry: Registry): Record<string, unknown> {
  return Object.assign(
    { ...healthOpenApiPaths() },
    ...registry.modules.map((m) => m.surfaces?.openApiPaths() ?? {}),
    fileRoutesOpenApiPaths([...registry.files]),
    consoleOpenApiPaths(),
  );
}
