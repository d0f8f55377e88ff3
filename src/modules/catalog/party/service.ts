import type { Queryable } from '../../../db/client.js';
import * as repo from './repository.js';

/** What other modules may ask of partners and producers. */
export type { Producer } from './repository.js';
export { findProducer } from './repository.js';

/** The producers as a chain of custody shows them (where and how the coffee grew), by name and id. */
export function describeProducers(q: Queryable, orgId: string, ids: string[]): Promise<repo.ProducerFacts[]> {
  return repo.describeProducers(q, orgId, ids);
}
