import { z } from 'zod';
import { date, id, page, strict } from '../../rpc/schemas.js';

import { TRACE_KINDS } from '../lineage/schemas.js';

export { TRACE_KINDS, type TraceKind } from '../lineage/schemas.js';

/** How far a trace walks from its start; deeper chains are cut there and say so (depthLimitReached). */
export const TRACE_DEPTH_LIMIT = 50;

export const Trace = strict({ kind: z.enum(TRACE_KINDS), id: id() });

export const ById = strict({ id: id() });

export const IssueCertificate = strict({
  roastedLotId: id('roastedLotId'),
  /** The order line the coffee went out on: it must draw on the roasted lot (its coffee, a claim or a shipment). */
  orderLineId: id('orderLineId').optional(),
  /** The shipment the coffee left with: it must have shipped some of the roasted lot. */
  fulfillmentId: id('fulfillmentId').optional(),
});

export const CertificateFilter = strict({
  roastedLotId: id('roastedLotId').optional(),
  /** Issued on or after this day (UTC). */
  issuedFrom: date.optional(),
  /** Issued on or before this day (UTC). */
  issuedTo: date.optional(),
});

export const ListCertificates = strict({ filter: CertificateFilter.default({}), page });

export type CertificateFilterInput = z.output<typeof CertificateFilter>;
