import type { Queryable } from '../../db/client.js';
import { missingProductIds } from '../catalog/product/service.js';
import { lotCodes } from '../inventory/green/service.js';
import { roastedLotLabels } from '../inventory/roast/service.js';
import { missingProfileIds } from '../production/profile/service.js';
import type { LineLotCodes } from './repository.js';

/**
 * The records order lines name, each asked of the module that owns it: the ids that do not exist in this
 * organization, and the codes of the lots that do (kept with the line).
 */
export async function lineReferences(
  q: Queryable,
  orgId: string,
  refs: { products: string[]; roastedLots: string[]; greenLots: string[]; profiles: string[] },
): Promise<{ missing: Set<string>; codes: LineLotCodes }> {
  const roasted = await roastedLotLabels(q, orgId, refs.roastedLots);
  const codes = { roastedLots: new Map([...roasted].map(([id, label]) => [id, label.lotCode])), greenLots: await lotCodes(q, orgId, refs.greenLots) };
  const missing = new Set([
    ...(await missingProductIds(q, orgId, refs.products)),
    ...refs.roastedLots.filter((id) => !codes.roastedLots.has(id)),
    ...refs.greenLots.filter((id) => !codes.greenLots.has(id)),
    ...(await missingProfileIds(q, orgId, refs.profiles)),
  ]);
  return { missing, codes };
}
