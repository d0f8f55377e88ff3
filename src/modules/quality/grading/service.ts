import type { Queryable } from '../../../db/client.js';
import * as repo from './repository.js';

/**
 * What other modules may ask of gradings: the gradings of a range (reports). Quarantine itself belongs to the green lot (the
 * green module's quarantineGreenLot / releaseGreenLotQuarantine); gradings are read with listGradings.
 */

export type { GradingSummaryRow } from './repository.js';

/** Reports: the gradings recorded in [from, to), oldest first. */
export function gradingsBetween(q: Queryable, orgId: string, from: string, to: string): Promise<repo.GradingSummaryRow[]> {
  return repo.gradingsBetween(q, orgId, from, to);
}
