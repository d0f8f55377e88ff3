import type { Surface } from './surface.js';
import { healthSurfaces } from './health.js';
import { docsSurfaces } from './docs.js';
import { consoleSurfaces } from './console.js';
import { fileSurface, type FileFamily } from './signed-files.js';
import { telemetrySurfaces } from '../telemetry/surfaces.js';
import { certificatePageSurfaces } from '../modules/traceability/public-page.js';
import { reportFiles } from '../modules/reporting/downloads.js';
import { curveFiles } from '../modules/production/roast/curve-files.js';
import { shotIngestSurface } from '../modules/cafe/ingest.js';
import { identitySurfaces } from '../modules/identity/routes.js';

/** Stored files served through signed links (src/http/signed-files.ts). */
export const FILE_FAMILIES: FileFamily[] = [reportFiles, curveFiles];

/**
 * Every HTTP surface that is not an RPC operation, each declared once beside its work (defineSurface):
 * the server mounts them, the OpenAPI document, the contract check and the typed client read them.
 */
export const SURFACES: readonly Surface[] = [
  ...healthSurfaces,
  ...docsSurfaces,
  ...telemetrySurfaces,
  ...certificatePageSurfaces,
  shotIngestSurface,
  ...identitySurfaces,
  ...FILE_FAMILIES.map(fileSurface),
  ...consoleSurfaces,
];
