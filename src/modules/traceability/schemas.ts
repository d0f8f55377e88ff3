import { z } from 'zod';
import { date, id, page, strict } from '../../rpc/schemas.js';
import { idOut, kgOut, out, timeOut } from '../../rpc/outputs.js';
import { Producer } from '../catalog/party/schemas.js';
import { GreenLot } from '../inventory/green/schemas.js';
import { RoastedLot } from '../inventory/roast/schemas.js';
import { RoastBatch } from '../production/roast/schemas.js';

import { NODE_KINDS, TRACE_KINDS } from '../lineage/schemas.js';

export { NODE_KINDS, TRACE_KINDS, type NodeKind, type TraceKind } from '../lineage/schemas.js';

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

// ---------------------------------------------------------------------------------------------------
// Answers

export const TraceNode = out({
  /** A trace starts at a trace kind; its nodes may also be the contract or sample a green lot came from. */
  kind: z.enum(NODE_KINDS),
  id: idOut,
  /** Edges between the start and this node on the shortest way (0 for the start). */
  depth: z.number().int().nonnegative(),
  /** What a person calls it: lot code, batch number, producer name, order number and line; null when unknown. */
  label: z.string().nullable(),
  /** Order lines only: the order, and the customer it went to (listed in the trace's customers). */
  orderId: idOut.optional(),
  customerId: idOut.optional(),
}).meta({ id: 'TraceNode' });

export const TraceEdge = out({
  /** The ids of the nodes the coffee flowed from and to. */
  from: idOut,
  to: idOut,
  /** Kilograms that followed the edge, when known. */
  weightKg: kgOut.nullable(),
  /** Present on edges recorded together by one change (a merge, a split, a roast, a shipment). */
  groupId: idOut.optional(),
  createdAt: timeOut,
}).meta({ id: 'TraceEdge' });

/** A customer an order line of the trace went to, with those lines. */
export const TraceCustomer = out({
  id: idOut,
  code: z.string(),
  name: z.string(),
  orderLineIds: z.array(idOut),
}).meta({ id: 'TraceCustomer' });

export const TraceGraph = out({
  direction: z.enum(['backward', 'forward']),
  /** The node the walk started from (also nodes[0]). */
  start: TraceNode,
  /** By depth, kind and id. */
  nodes: z.array(TraceNode),
  /** By depth and id, each once. */
  edges: z.array(TraceEdge),
  /** Readable sentences, from origin to destination. */
  steps: z.array(z.string()),
  /** By name. */
  customers: z.array(TraceCustomer),
  depthLimit: z.number().int().positive(),
  /** True when the walk stopped at depthLimit edges with more lineage beyond. */
  depthLimitReached: z.boolean(),
}).meta({ id: 'TraceGraph' });

/** A roast batch as a chain of custody shows it: what was roasted, how much, when. */
export const ChainRoastBatch = RoastBatch.pick({
  id: true,
  batchNumber: true,
  machineId: true,
  profileId: true,
  greenLotId: true,
  chargeWeightKg: true,
  dropWeightKg: true,
  weightLossPct: true,
  startedAt: true,
  completedAt: true,
}).meta({ id: 'ChainRoastBatch' });

/** A green lot's coffee facts (never its cost or stock). */
export const ChainGreenLot = GreenLot.pick({
  id: true,
  lotCode: true,
  name: true,
  state: true,
  varieties: true,
  processMethod: true,
  harvestYear: true,
  certifications: true,
  producerId: true,
}).meta({ id: 'ChainGreenLot' });

/** Where a producer grows: region, altitude, coordinates, varieties and processes. */
export const ChainProducer = Producer.pick({
  id: true,
  code: true,
  name: true,
  kind: true,
  country: true,
  region: true,
  subregion: true,
  altitudeMinM: true,
  altitudeMaxM: true,
  latitude: true,
  longitude: true,
  varieties: true,
  processMethods: true,
  farmSizeHa: true,
}).meta({ id: 'ChainProducer' });

/** A record of the chain as its latest finalized cupping session published it. */
export const ChainCupScore = out({
  kind: z.enum(['green_lot', 'roast_batch', 'roasted_lot']),
  id: idOut,
  sessionNumber: z.string(),
  /** Mean final score of the session's cuppers, 2 decimals; null when nobody scored it. */
  meanScore: z.string().nullable(),
  cupperCount: z.number().int().nonnegative(),
  finalizedAt: timeOut,
}).meta({ id: 'ChainCupScore' });

export const RoastedLotTraceability = out({
  roastedLot: RoastedLot,
  /** By start. */
  roastBatches: z.array(ChainRoastBatch),
  /** By lot code. */
  greenLots: z.array(ChainGreenLot),
  /** Those the lineage names and those the green lots name, by name. */
  producers: z.array(ChainProducer),
  /** The published cup scores of the roasted lot, its batches and green lots (latest session each). Absent from certificates issued before cupping existed. */
  cupScores: z.array(ChainCupScore).optional(),
  /** The backward trace from the roasted lot. */
  chain: out({
    nodes: z.array(TraceNode),
    edges: z.array(TraceEdge),
    /** From origin to the roasted lot. */
    steps: z.array(z.string()),
    depthLimitReached: z.boolean(),
  }),
}).meta({ id: 'RoastedLotTraceability' });

/** What a certificate freezes: the roasted lot's chain at issue, with the order line and shipment named. */
export const CertificateSnapshot = RoastedLotTraceability.extend({
  /** The lot as it stood at issue, without `expired`: whether it is past its best-before day depends on the day it is read. */
  roastedLot: RoastedLot.omit({ expired: true }),
  orderLine: out({
    id: idOut,
    orderId: idOut,
    orderNumber: z.string(),
    lineNumber: z.number().int().positive(),
    customer: out({ id: idOut, code: z.string(), name: z.string() }),
  }).nullable(),
  fulfillment: out({ id: idOut, orderId: idOut, shippedAt: timeOut }).nullable(),
  issuedAt: timeOut,
}).meta({ id: 'CertificateSnapshot' });

const certificateFields = {
  id: idOut,
  roastedLotId: idOut,
  orderLineId: idOut.nullable(),
  fulfillmentId: idOut.nullable(),
  /** The public token (128 bits, 22 base64url characters): whoever holds it can read the certificate's page, nothing else. */
  token: z.string(),
  /** The public page, and its QR code as SVG and PNG, relative to the service's address. */
  publicPath: z.string(),
  qrSvgPath: z.string(),
  qrPngPath: z.string(),
  issuedAt: timeOut,
};

/** A certificate without its snapshot, as its issued event carries it. */
export const CertificateSummary = out(certificateFields).meta({ id: 'CertificateSummary' });

export const Certificate = out({ ...certificateFields, snapshot: CertificateSnapshot }).meta({ id: 'Certificate' });

export type ChainRoastBatchOutput = z.output<typeof ChainRoastBatch>;
export type ChainGreenLotOutput = z.output<typeof ChainGreenLot>;
export type ChainProducerOutput = z.output<typeof ChainProducer>;
export type ChainCupScoreOutput = z.output<typeof ChainCupScore>;
export type CertificateSnapshotOutput = z.output<typeof CertificateSnapshot>;
