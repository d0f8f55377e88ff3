import type { Queryable } from '../../db/client.js';
import { missingProductIds } from '../catalog/product/service.js';
import { missingLotIds } from '../inventory/green/service.js';
import { missingRoastedLotIds } from '../inventory/roast/service.js';
import { missingProfileIds } from '../production/profile/service.js';

/** Which of the ids order lines name do not exist in this organization, each asked of the module that owns it. */
export async function missingLineReferences(
  q: Queryable,
  orgId: string,
  refs: { products: string[]; roastedLots: string[]; greenLots: string[]; profiles: string[] },
): Promise<Set<string>> {
  return new Set([
    ...(await missingProductIds(q, orgId, refs.products)),
    ...(await missingRoastedLotIds(q, orgId, refs.roastedLots)),
    ...(await missingLotIds(q, orgId, refs.greenLots)),
    ...(await missingProfileIds(q, orgId, refs.profiles)),
  ]);
}
