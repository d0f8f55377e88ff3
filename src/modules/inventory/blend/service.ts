import type { Queryable } from '../../../db/client.js';
import * as repo from './repository.js';

/** What other modules may ask of blends: a recipe as stored (components with green lot ids and ratios; immutable). */
export type { BlendRecord } from './repository.js';

export function findBlendRecipe(q: Queryable, orgId: string, id: string): Promise<repo.BlendRecord | undefined> {
  return repo.findBlend(q, orgId, id);
}
