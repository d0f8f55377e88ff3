import type { Queryable } from '../../../db/client.js';
import * as repo from './repository.js';

/**
 * What other modules may ask of samples: one sample by id (undefined when it is not this organization's),
 * with its number, name, type, status, decision and the green lot it became; and, for a contract's
 * sample_approval milestone, its pre-shipment samples' decisions.
 */
export type { Sample } from './repository.js';

export function findSample(q: Queryable, orgId: string, id: string): Promise<repo.Sample | undefined> {
  return repo.findSample(q, orgId, id);
}

/** The contract's approved pre-shipment sample decided last (if any) and the numbers of its rejected ones. */
export function preShipmentDecisions(q: Queryable, orgId: string, contractId: string) {
  return repo.preShipmentDecisions(q, orgId, contractId);
}
