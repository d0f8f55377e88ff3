import { z } from 'zod';
import { country, date, id, name, page, strict } from '../../rpc/schemas.js';
import { idOut, kgOut, out, timeOut } from '../../rpc/outputs.js';
import { PlotGeometryOut, Producer } from '../catalog/party/schemas.js';
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

// ---------------------------------------------------------------------------------------------------
// Proof of origin: declarations, operator identity, due diligence statements, EPCIS

export const ORIGIN_SUBJECT_KINDS = ['green_lot', 'contract', 'contract_line', 'shipment', 'sample'] as const;
export type OriginSubjectKind = (typeof ORIGIN_SUBJECT_KINDS)[number];

const statementNumber = z.string().trim().min(1).max(64).regex(/^[A-Za-z0-9][A-Za-z0-9._\-/]*$/, 'must be letters, digits and . _ - / only');
export const UpstreamStatement = strict({
  /** The due diligence statement's reference number, as the EU information system gave it upstream. */
  referenceNumber: statementNumber,
  /** Its verification number, where the supplier passed it on. */
  verificationNumber: statementNumber.optional(),
});

export const DeclareOrigin = strict({
  subject: strict({ kind: z.enum(ORIGIN_SUBJECT_KINDS), id: id() }),
  /** The plots the coffee grew on. */
  plotIds: z.array(id('plotId')).max(5000).default([]),
  /** Producers standing for all their plots, where the exact plots are not known. */
  producerIds: z.array(id('producerId')).max(500).default([]),
  upstreamStatements: z.array(UpstreamStatement).max(500).default([]),
});

export const OriginSubject = strict({ kind: z.enum(ORIGIN_SUBJECT_KINDS), id: id() });

const upstreamOut = out({ referenceNumber: z.string(), verificationNumber: z.string().nullable() });

export const OriginDeclaration = out({
  subject: out({ kind: z.enum(ORIGIN_SUBJECT_KINDS), id: idOut }),
  plotIds: z.array(idOut),
  producerIds: z.array(idOut),
  upstreamStatements: z.array(upstreamOut),
  declaredAt: timeOut,
}).meta({ id: 'OriginDeclaration' });

const eori = z.string().regex(/^[A-Z]{2}[A-Za-z0-9]{1,15}$/, 'must be an EORI number: two letters of the country, then up to 15 letters and digits');
const gtin = z.string().regex(/^[0-9]{14}$/, 'must be a GTIN-14: 14 digits');
export const GTIN_KINDS = ['green_lot', 'roasted_lot', 'blend_lot', 'product_batch'] as const;

export const SetOperatorIdentity = strict({
  /** The operator's name as the due diligence statement carries it. */
  name,
  country,
  eori: eori.optional(),
  /** GS1 Company Prefix (6 to 12 digits): EPCIS identifiers become GS1 Digital Link URIs. */
  gs1CompanyPrefix: z.string().regex(/^[0-9]{6,12}$/, 'must be a GS1 Company Prefix: 6 to 12 digits').optional(),
  /** The GTIN-14 of each kind of lot, under the company prefix: lots of a kind with one are identified by GTIN and lot number. */
  gtins: strict({ green_lot: gtin.optional(), roasted_lot: gtin.optional(), blend_lot: gtin.optional(), product_batch: gtin.optional() }).default({}),
});

export const OperatorIdentity = out({
  name: z.string(),
  country: z.string().nullable(),
  eori: z.string().nullable(),
  gs1CompanyPrefix: z.string().nullable(),
  gtins: out({ green_lot: z.string().optional(), roasted_lot: z.string().optional(), blend_lot: z.string().optional(), product_batch: z.string().optional() }),
  /** False while the organization has recorded none: the name is then the organization's, the rest null. */
  recorded: z.boolean(),
}).meta({ id: 'OperatorIdentity' });

export const OriginPlot = out({
  id: idOut,
  name: z.string(),
  producerId: idOut,
  producerName: z.string(),
  /** ISO 3166-1 alpha-2 of the producer; null when the producer has none. */
  country: z.string().nullable(),
  areaHa: z.number(),
  geometry: PlotGeometryOut,
}).meta({ id: 'OriginPlot' });

export const ORIGIN_GAP_REASONS = ['unknown_origin', 'producer_without_plots', 'producer_without_country', 'depth_limit'] as const;

export const OriginSource = out({
  /** A green lot the coffee entered the organization as (received, imported: no green lot upstream of it). */
  greenLotId: idOut,
  lotCode: z.string().nullable(),
  /** What named its plots: its own declaration, its shipment's, contract's or sample's, or its producer (all its plots). */
  via: z.enum(['green_lot', 'contract_line', 'shipment', 'contract', 'sample', 'producer']).nullable(),
  plotIds: z.array(idOut),
}).meta({ id: 'OriginSource' });

export const OriginGap = out({
  reason: z.enum(ORIGIN_GAP_REASONS),
  /** The source green lot whose plots are unknown (absent for depth_limit). */
  greenLotId: idOut.optional(),
  lotCode: z.string().nullable().optional(),
  /** producer_without_plots: the producer named. */
  producerId: idOut.optional(),
  message: z.string(),
}).meta({ id: 'OriginGap' });

export const Origin = out({
  /** By producer and name, each once. */
  plots: z.array(OriginPlot),
  sources: z.array(OriginSource),
  /** Coffee whose plots are unknown: never silently left out. */
  gaps: z.array(OriginGap),
  upstreamStatements: z.array(upstreamOut),
}).meta({ id: 'Origin' });

export const DUE_DILIGENCE_KINDS = ['shipment', 'green_lot', 'order_line'] as const;
export const GetDueDiligenceStatement = strict({ kind: z.enum(DUE_DILIGENCE_KINDS), id: id() });

const geoFeature = out({
  type: z.literal('Feature'),
  properties: out({ ProducerName: z.string(), ProducerCountry: z.string(), ProductionPlace: z.string(), Area: z.number().optional() }),
  geometry: PlotGeometryOut,
});

export const DueDiligenceStatement = out({
  subject: out({ kind: z.enum(DUE_DILIGENCE_KINDS), id: idOut, label: z.string() }),
  operator: OperatorIdentity,
  /** import: green coffee the organization brought into the EU; domestic: roasted coffee it places on the market. */
  activityType: z.enum(['import', 'domestic']),
  commodity: out({ hsCode: z.literal('0901'), hsSubheading: z.enum(['090111', '090121']), description: z.string() }),
  netMassKg: kgOut,
  /** ISO 3166-1 alpha-2, sorted. */
  countriesOfProduction: z.array(z.string()),
  /** The reference and verification numbers of the statements upstream, to be referred to. */
  upstreamStatements: z.array(upstreamOut),
  /** What the EU information system takes: one Feature per plot. */
  geolocation: out({ type: z.literal('FeatureCollection'), features: z.array(geoFeature) }),
  /** Bytes of the geolocation as JSON (the EU information system takes at most 25 MB). */
  geolocationBytes: z.number().int().nonnegative(),
  gaps: z.array(OriginGap),
  /** True when there is no gap and every plot's producer has a country: ready to file. */
  complete: z.boolean(),
}).meta({ id: 'DueDiligenceStatement' });

export const ExportEpcis = strict({ direction: z.enum(['backward', 'forward']), kind: z.enum(TRACE_KINDS), id: id() });

/** An EPCIS 2.0 JSON-LD document (validated against GS1's schema in the tests, not here). */
export const EpcisDocument = z
  .object({ '@context': z.array(z.unknown()), type: z.literal('EPCISDocument'), schemaVersion: z.literal('2.0'), creationDate: z.string(), epcisBody: z.object({ eventList: z.array(z.record(z.string(), z.unknown())) }) })
  .catchall(z.unknown())
  .meta({ id: 'EpcisDocument' });


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
  /** The plots the coffee grew on, derived through lineage, and the coffee whose plots are unknown. Absent from certificates issued before plots existed. */
  origin: Origin.optional(),
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
  /** How the certificate's EPCIS document names things, frozen at issue (absent from certificates issued before EPCIS). */
  epcisIdentity: out({
    publicUrl: z.string(),
    organizationId: idOut,
    gs1CompanyPrefix: z.string().nullable(),
    gtins: z.record(z.string(), z.string()),
    timeZone: z.string(),
  }).optional(),
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

export type OriginOutput = z.output<typeof Origin>;
export type OriginPlotOutput = z.output<typeof OriginPlot>;
export type OriginGapOutput = z.output<typeof OriginGap>;
export type OperatorIdentityOutput = z.output<typeof OperatorIdentity>;
