import type { Surface } from './surface.js';
import { healthSurfaces } from './health.js';
import { docsSurfaces } from './docs.js';
import { consoleSurfaces } from './console.js';
import { fileSurface } from './signed-files.js';
import type { Registry } from '../rpc/registry.js';

/**
 * Every HTTP surface that is not an RPC operation, each declared once beside its work (defineSurface): the
 * platform's (health, the documents, a signed-link surface per stored file family of every manifest's
 * `files`, the console) and each module's (its manifest's `surfaces`). The server mounts them; the OpenAPI
 * document, the contract check and the typed client read them.
 */
export function surfacesOf(registry: Registry): readonly Surface[] {
  return [...healthSurfaces, ...docsSurfaces, ...registry.surfaces, ...registry.files.map(fileSurface), ...consoleSurfaces];
}
