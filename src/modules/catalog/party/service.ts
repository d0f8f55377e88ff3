import type { Queryable } from '../../../db/client.js';
import type { z } from 'zod';
import { conflict } from '../../../rpc/errors.js';
import * as repo from './repository.js';
import type { CreatePartner } from './schemas.js';

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

/** Creates a partner as createPartner does: its code is unique per organization (409 duplicate naming code, by the unique constraint). */
export function createPartner(q: Queryable, orgId: string, input: z.output<typeof CreatePartner>): Promise<repo.Partner> {
  return repo.insertPartner(q, orgId, input);
}

/** Every refusal createPartner would answer for these inputs, by index (a code already used: 409 duplicate naming code). Reads only. */
export async function partnerRefusals(q: Queryable, orgId: string, inputs: z.output<typeof CreatePartner>[]) {
  const taken = new Set(await repo.partnerCodesInUse(q, orgId, inputs.map((i) => i.code)));
  return inputs.flatMap((input, index) =>
    taken.has(input.code)
      ? [{ index, problem: conflict('duplicate', `Another partner in this organization already has code ${input.code}.`, { errors: [{ path: 'code', message: 'already used in this organization' }] }) }]
      : [],
  );
}

/** Plots (where coffee grew, as GeoJSON) for proof of origin. */
export type { Plot } from './repository.js';
export type { PlotGeometry } from './geometry.js';
export { findPlot, missingPlotIds, missingProducerIds, plotsOf } from './repository.js';
