import type { Queryable } from '../../../db/client.js';
import * as repo from './repository.js';

/**
 * What other modules (samples) may ask of green purchase contracts: a contract's header and one line, read
 * without locking, for checking that a link names a record of the organization.
 */
export type { ContractLine, ContractSummary } from './repository.js';

export function findContract(q: Queryable, orgId: string, id: string): Promise<repo.ContractSummary | undefined> {
  return repo.findContractSummary(q, orgId, id);
}

/** A contract line with the contract it belongs to. */
export function findContractLine(q: Queryable, orgId: string, id: string) {
  return repo.findLine(q, orgId, id);
}

/** A shipment with the green lots its receipt created (undefined when it is not this organization's). */
export function findShipment(q: Queryable, orgId: string, id: string) {
  return repo.findShipment(q, orgId, id);
}

/** The contract line each green lot was received against, read without locking (lots not received from a contract are absent). */
export function receiptLinesOfLots(q: Queryable, orgId: string, greenLotIds: string[]): Promise<Map<string, string>> {
  return repo.receiptLinesOfLots(q, orgId, greenLotIds);
}
