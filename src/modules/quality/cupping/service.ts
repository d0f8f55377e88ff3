import type { Queryable } from '../../../db/client.js';
import * as repo from './repository.js';
import type { SampleKind } from './schemas.js';

/**
 * What other modules may ask of cupping: the published results (finalized sessions only) of green lots,
 * samples, roast batches and roasted lots, to show a lot's cup score where the lot is shown.
 */
export type { PublishedCupping } from './repository.js';

/**
 * The finalized cupping results of each record, newest first, keyed `<kind>:<id>` (e.g. `green_lot:gl_…`);
 * a record never cupped in a finalized session has no key. Open sessions publish nothing.
 */
export function publishedCupping(q: Queryable, orgId: string, refs: { kind: Exclude<SampleKind, 'outside'>; id: string }[]): Promise<Map<string, repo.PublishedCupping[]>> {
  return repo.publishedCuppings(q, orgId, refs);
}
