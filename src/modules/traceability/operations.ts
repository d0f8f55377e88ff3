import type { Queryable } from '../../db/client.js';
import { defineOperation } from '../../rpc/define.js';
import { conflict, throwNotFound } from '../../rpc/errors.js';
import { findRoastedLot } from '../inventory/roast/service.js';
import * as lineage from '../lineage/service.js';
import { customersOf, readableSteps } from './readable.js';
import * as chain from './chain.js';
import { originOf } from './origin.js';
import { operatorOf } from './origin-operations.js';
import { findOrganizationLetterhead } from '../../auth/organizations.js';
import * as repo from './repository.js';
import { pageOut } from '../../rpc/outputs.js';
import { certificateIssued } from './events.js';
import {
  ById,
  Certificate,
  IssueCertificate,
  ListCertificates,
  RoastedLotTraceability,
  TRACE_DEPTH_LIMIT,
  Trace,
  TraceGraph,
  type NodeKind,
  type TraceKind,
} from './schemas.js';

const feature = 'core' as const;

const KIND_WORDS: Record<TraceKind, string> = {
  producer: 'producer',
  green_lot: 'green lot',
  roast_batch: 'roast batch',
  roasted_lot: 'roasted lot',
  blend_lot: 'blend lot',
  product_batch: 'product batch',
  order_line: 'order line',
};

const TRACE_ANSWER =
  'Answers the graph (nodes with kind, id, label and depth, order lines also with orderId and customerId; edges naming ' +
  'their from and to nodes by id, with the kilograms that followed them, the time they were recorded and, for edges ' +
  'recorded together by one change, a groupId), readable steps, the customers reached with their order lines, and ' +
  `depthLimitReached when the walk stopped at ${TRACE_DEPTH_LIMIT} edges. Steps are sentences written from origin to ` +
  'destination and listed in that order, one per node the coffee went on from (forward: "Green lot GL-7 (Ethiopia Gerba) -> ' +
  'roast batch B-12, green lot GL-7B (Gerba base)") or came together in (backward: "Green lot GL-7 (Ethiopia Gerba) + green ' +
  'lot GL-9 (Huila) -> green lot GL-7B (Gerba base)"); every link of the graph appears once, so the steps grow with the graph ' +
  'and are never cut. One recursive query; cycles cannot loop it. 404 when the start does not exist in this organization.';

export const traceabilityOperations = [
  defineOperation({
    name: 'traceability.traceBackward',
    summary: 'Walk lineage upstream from any traced thing to where its coffee came from, through splits, merges, blends and packing.',
    description: TRACE_ANSWER,
    cost: 5,
    permission: 'traceability.read',
    feature,
    get: true,
    input: Trace,
    output: TraceGraph,
    errors: ['not_found'],
    async handler(ctx, start) {
      return trace(ctx.tx, ctx.orgId, 'backward', start);
    },
  }),

  defineOperation({
    name: 'traceability.traceForward',
    summary: 'Walk lineage downstream to where the coffee ended up, and so every customer who received any of it.',
    description:
      'From a green lot: every roast, roasted lot and shipped order line, and the customers those lines went to (customers). ' +
      TRACE_ANSWER,
    cost: 5,
    permission: 'traceability.read',
    feature,
    get: true,
    input: Trace,
    output: TraceGraph,
    errors: ['not_found'],
    async handler(ctx, start) {
      return trace(ctx.tx, ctx.orgId, 'forward', start);
    },
  }),

  defineOperation({
    name: 'inventory.roast.getRoastedLotTraceability',
    summary: 'A roasted lot’s chain upstream, from its producers to the lot.',
    description:
      'The lot, the roast batches that made it, the green lots they roasted (through splits and merges) with their coffee ' +
      'facts (never their cost), and the producers with their details (region, altitude, coordinates, varieties, processes), ' +
      'plus the lineage graph and its readable steps from origin to roasted lot, and `cupScores`: the latest published cupping of ' +
      'the lot, its batches and green lots, and `origin` (extension): the plots its coffee grew on, derived through lineage, and ' +
      'the gaps where they are unknown. 404 when the lot does not exist in this organization.',
    permission: 'traceability.read',
    feature,
    get: true,
    input: ById,
    output: RoastedLotTraceability,
    errors: ['not_found'],
    async handler(ctx, { id }) {
      return (await roastedLotChain(ctx.tx, ctx.orgId, id)) ?? throwNotFound('roasted lot', id);
    },
  }),

  defineOperation({
    name: 'traceability.issueCertificate',
    summary: 'Issue a traceability certificate for a roasted lot, with a public page and QR code.',
    description:
      'The chain as it is now (getRoastedLotTraceability’s answer, with the ' +
      'order line and shipment when given) is frozen into the certificate, so later merges, splits or consumption do not change ' +
      'it, and an unguessable public token (128 bits) is minted for its page at /c/{token} and QR code at /c/{token}/qr.svg and ' +
      '/c/{token}/qr.png. An orderLineId must draw on the lot (name it, hold or have shipped a claim on it) and a fulfillmentId ' +
      'must have shipped some of it, else 409 not_in_chain; a roasted lot, order line or fulfilment that does not exist ' +
      'answers 404 naming the field.',
    permission: 'traceability.read',
    feature,
    get: false,
    input: IssueCertificate,
    output: Certificate,
    errors: ['not_found', 'not_in_chain'],
    emits: [certificateIssued],
    async handler(ctx, { roastedLotId, orderLineId, fulfillmentId }) {
      const chain = (await roastedLotChain(ctx.tx, ctx.orgId, roastedLotId)) ?? throwNotFound('roasted lot', roastedLotId, 'roastedLotId');
      const orderLine = orderLineId ? await requireOrderLine(ctx.tx, ctx.orgId, orderLineId, roastedLotId) : null;
      const fulfillment = fulfillmentId ? await requireFulfillment(ctx.tx, ctx.orgId, fulfillmentId, roastedLotId, orderLine) : null;
      const issuedAt = new Date().toISOString();
      const certificate = await repo.insertCertificate(ctx.tx, ctx.orgId, ctx.principal.credentialId, {
        roastedLotId,
        orderLineId: orderLine?.id ?? null,
        fulfillmentId: fulfillment?.id ?? null,
        snapshot: {
          ...chain,
          roastedLot: frozenLot(chain.roastedLot),
          orderLine,
          fulfillment: fulfillment && { id: fulfillment.id, orderId: fulfillment.orderId, shippedAt: fulfillment.shippedAt },
          issuedAt,
          epcisIdentity: await epcisIdentityOf(ctx.tx, ctx.orgId, ctx.services.config.publicUrl),
        },
        issuedAt,
      });
      const { snapshot: _frozenChain, ...issued } = certificate;
      await ctx.emit('traceability.certificate.issued', { certificate: issued });
      return certificate;
    },
  }),

  defineOperation({
    name: 'traceability.listCertificates',
    summary: 'Certificates with their frozen snapshots, newest first.',
    description: 'Filters: roastedLotId, issuedFrom and issuedTo (days the certificate was issued, UTC, inclusive).',
    permission: 'traceability.read',
    feature,
    get: true,
    input: ListCertificates,
    output: pageOut(Certificate),
    errors: ['invalid_cursor'],
    async handler(ctx, { filter, page }) {
      return repo.listCertificates(ctx.tx, ctx.orgId, filter, page);
    },
  }),
];

async function trace(q: Queryable, orgId: string, direction: lineage.Direction, start: { kind: TraceKind; id: string }) {
  const graph = (await lineage.trace(q, orgId, direction, start, TRACE_DEPTH_LIMIT)) ?? throwNotFound(KIND_WORDS[start.kind], start.id);
  return {
    direction,
    start: graph.nodes[0],
    nodes: graph.nodes,
    edges: graph.edges,
    steps: readableSteps(graph, direction),
    customers: customersOf(graph),
    depthLimit: TRACE_DEPTH_LIMIT,
    depthLimitReached: graph.depthLimitReached,
  };
}

/** getRoastedLotTraceability's answer, which a certificate freezes. */
async function roastedLotChain(q: Queryable, orgId: string, roastedLotId: string) {
  const roastedLot = await findRoastedLot(q, orgId, roastedLotId);
  if (!roastedLot) return undefined;
  const graph = (await lineage.trace(q, orgId, 'backward', { kind: 'roasted_lot', id: roastedLotId }, TRACE_DEPTH_LIMIT))!;
  const idsOf = (kind: NodeKind) => graph.nodes.filter((n) => n.kind === kind).map((n) => n.id);
  const details = await chain.chainDetails(q, orgId, { roastedLot: roastedLotId, roastBatches: idsOf('roast_batch'), greenLots: idsOf('green_lot'), producers: idsOf('producer') });
  return {
    roastedLot,
    ...details,
    origin: await originOf(q, orgId, graph),
    chain: { nodes: graph.nodes, edges: graph.edges, steps: readableSteps(graph, 'backward'), depthLimitReached: graph.depthLimitReached },
  };
}

async function requireOrderLine(q: Queryable, orgId: string, orderLineId: string, roastedLotId: string) {
  const line = (await chain.findOrderLine(q, orgId, orderLineId)) ?? throwNotFound('order line', orderLineId, 'orderLineId');
  if (!(await chain.orderLineDrawsOnLot(q, orgId, orderLineId, roastedLotId))) {
    throw notInChain(`Order ${line.orderNumber} line ${line.lineNumber} takes no coffee from roasted lot ${roastedLotId}.`, 'orderLineId');
  }
  return line;
}

async function requireFulfillment(q: Queryable, orgId: string, fulfillmentId: string, roastedLotId: string, orderLine: chain.OrderLineSummary | null) {
  const fulfillment = (await chain.findFulfillment(q, orgId, fulfillmentId, roastedLotId)) ?? throwNotFound('fulfillment', fulfillmentId, 'fulfillmentId');
  if (fulfillment.orderLineIds.length === 0) {
    throw notInChain(`Fulfillment ${fulfillmentId} shipped no coffee from roasted lot ${roastedLotId}.`, 'fulfillmentId');
  }
  if (orderLine && !fulfillment.orderLineIds.includes(orderLine.id)) {
    throw notInChain(`Fulfillment ${fulfillmentId} shipped no coffee from roasted lot ${roastedLotId} on order line ${orderLine.id}.`, 'orderLineId');
  }
  return fulfillment;
}

const notInChain = (detail: string, path: string) => conflict('not_in_chain', detail, { errors: [{ path, message: 'not part of this roasted lot’s chain' }] });

/** The roasted lot a certificate freezes: as it stands, less what depends on the day it is read (`expired`). */
function frozenLot<L extends { expired: boolean }>({ expired: _readDependent, ...lot }: L): Omit<L, 'expired'> {
  return lot;
}

/** What a certificate's public EPCIS document names things by, frozen with its chain. */
async function epcisIdentityOf(q: Queryable, orgId: string, publicUrl: string) {
  const operator = await operatorOf(q, orgId);
  const { timeZone } = await findOrganizationLetterhead(q, orgId);
  return { publicUrl, organizationId: orgId, gs1CompanyPrefix: operator.gs1CompanyPrefix, gtins: operator.gtins as Record<string, string>, timeZone };
}
