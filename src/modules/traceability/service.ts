import type { Queryable } from '../../db/client.js';
import { notFound } from '../../rpc/errors.js';
import * as party from '../catalog/party/service.js';
import * as repo from './repository.js';
import type { OriginSubjectKind } from './schemas.js';

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

/**
 * Declares (replacing any earlier declaration) the plots and producers a subject's coffee came from, inside
 * the caller's transaction: for inventory.green.declareOrigin, and for a shipment receipt whose line names
 * the plots of the green lot it creates. The caller checked the subject; every plot and producer must be
 * the organization's, else 404 naming `{path}plotIds[i]` / `{path}producerIds[i]` and nothing is written.
 */
export async function declareOrigin(
  q: Queryable,
  orgId: string,
  subject: { kind: OriginSubjectKind; id: string },
  origin: { plotIds: string[]; producerIds: string[]; upstreamStatements?: { referenceNumber: string; verificationNumber?: string | null }[] },
  path = '',
): Promise<repo.OriginDeclaration> {
  const [missingPlot] = await party.missingPlotIds(q, orgId, origin.plotIds);
  if (missingPlot) throw notFound('plot', missingPlot, `${path}plotIds[${origin.plotIds.indexOf(missingPlot)}]`);
  const [missingProducer] = await party.missingProducerIds(q, orgId, origin.producerIds);
  if (missingProducer) throw notFound('producer', missingProducer, `${path}producerIds[${origin.producerIds.indexOf(missingProducer)}]`);
  return repo.upsertDeclaration(q, orgId, {
    ...subject,
    plotIds: [...new Set(origin.plotIds)],
    producerIds: [...new Set(origin.producerIds)],
    upstreamStatements: (origin.upstreamStatements ?? []).map((s) => ({ referenceNumber: s.referenceNumber, verificationNumber: s.verificationNumber ?? null })),
  });
}
