import type { Queryable } from '../../../db/client.js';
import * as repo from './repository.js';

/** What other modules may ask of roast batches: a machine's batch range (for planning), and batches' facts. */
export type { BatchFacts } from './repository.js';
export { batchRange, type MachineSizes } from './batch-range.js';

/** The batches as a chain of custody shows them (weights, times, machine and profile), by start and id. */
export function describeBatches(q: Queryable, orgId: string, ids: string[]): Promise<repo.BatchFacts[]> {
  return repo.describeBatches(q, orgId, ids);
}

export type { CompletedBatch } from './repository.js';

/** Reports: the batches completed in [from, to) (optionally at one location), with weights and DTR, by completion. */
export function completedBatchesBetween(q: Queryable, orgId: string, from: string, to: string, locationId?: string): Promise<repo.CompletedBatch[]> {
  return repo.completedBatchesBetween(q, orgId, from, to, locationId);
}

/** The mean weight loss (%) of each profile's completed batches, 2 decimals: what planning expects a roast to lose. */
export function meanLossByProfile(q: Queryable, orgId: string, profileIds: string[]): Promise<Map<string, string>> {
  return repo.meanLossByProfile(q, orgId, profileIds);
}
