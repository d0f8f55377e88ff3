import type { Queryable } from '../../../db/client.js';
import * as repo from './repository.js';

/** What other modules may ask of partners and producers. */
export type { Producer } from './repository.js';
export { findProducer } from './repository.js';

/** The producers as a chain of custody shows them (where and how the coffee grew), by name and id. */
export function describeProducers(q: Queryable, orgId: string, ids: string[]): Promise<repo.ProducerFacts[]> {
  return repo.describeProducers(q, orgId, ids);
}

/** A partner by id (undefined when it is not this organization's), with its types and whether it is active. */
export type { Partner } from './repository.js';
export { findPartner } from './repository.js';

/** Plots (where coffee grew, as GeoJSON) for proof of origin. */
export type { Plot } from './repository.js';
export type { PlotGeometry } from './geometry.js';
export { findPlot, missingPlotIds, missingProducerIds, plotsOf } from './repository.js';
