import type { Queryable } from '../../db/client.js';
import * as repo from './repository.js';

/** What other modules may ask of traceability: issued certificates, with their frozen chains. */
export type { Certificate } from './repository.js';
export { certificatePath } from './repository.js';

/**
 * The newest certificate matching every id given (the certificate itself, its roasted lot, its order line),
 * with the chain frozen when it was issued; undefined when none matches in this organization.
 */
export function findCertificate(
  q: Queryable,
  orgId: string,
  match: { certificateId?: string; roastedLotId?: string; orderLineId?: string },
): Promise<repo.Certificate | undefined> {
  return repo.findNewestCertificate(q, orgId, match);
}
