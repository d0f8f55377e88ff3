import type { Queryable } from '../../../db/client.js';
import { grams, kgString } from '../../../lib/grams.js';
import type { Page } from '../../../rpc/schemas.js';
import * as green from '../green/service.js';
import * as repo from './repository.js';
import type { BlendFilterInput } from './schemas.js';

/** Blends as answered: the stored recipe, each component with its green lot's code (asked of green). */
async function withLotCodes(q: Queryable, orgId: string, blends: repo.BlendRecord[]) {
  const lots = await green.findLotFigures(q, orgId, [...new Set(blends.flatMap((b) => b.components.map((c) => c.greenLotId)))]);
  return blends.map((blend) => ({
    ...blend,
    components: blend.components.map((c) => ({ id: c.id, greenLotId: c.greenLotId, lotCode: lots.get(c.greenLotId)!.lotCode, ratioPct: c.ratioPct })),
  }));
}

export type Blend = Awaited<ReturnType<typeof withLotCodes>>[number];

export async function findBlend(q: Queryable, orgId: string, id: string): Promise<Blend | undefined> {
  const blend = await repo.findBlend(q, orgId, id);
  return blend && (await withLotCodes(q, orgId, [blend]))[0];
}

export async function listBlends(q: Queryable, orgId: string, filter: BlendFilterInput, page: Page) {
  const listed = await repo.listBlends(q, orgId, filter, page);
  return { ...listed, items: await withLotCodes(q, orgId, listed.items) };
}

export interface ComponentAvailability {
  greenLotId: string;
  lotCode: string;
  ratioPct: string;
  quarantined: boolean;
  neededKg: string;
  availableKg: string;
  shortKg: string;
}

/**
 * Per component, what `requestedKg` of the blend needs (repo.componentNeeds) and what the lot can give:
 * available is on hand − reserved, never below zero, and zero for a quarantined lot.
 */
export async function componentAvailability(q: Queryable, orgId: string, blendId: string, requestedKg: string): Promise<ComponentAvailability[]> {
  const needs = await repo.componentNeeds(q, orgId, blendId, requestedKg);
  const lots = await green.findLotFigures(q, orgId, needs.map((n) => n.greenLotId));
  return needs.map((need) => {
    const lot = lots.get(need.greenLotId)!;
    const free = lot.onHand - lot.reserved;
    const available = lot.quarantined || free < 0n ? 0n : free;
    const short = grams(need.neededKg) - available;
    return {
      greenLotId: need.greenLotId,
      lotCode: lot.lotCode,
      ratioPct: need.ratioPct,
      quarantined: lot.quarantined,
      neededKg: need.neededKg,
      availableKg: kgString(available),
      shortKg: kgString(short > 0n ? short : 0n),
    };
  });
}
