import type { Queryable } from '../../db/client.js';
import { SqlParams, iso } from '../../db/sql.js';
import { newId, newSecret } from '../../lib/ids.js';
import { decodeCursor, pageOf, type Page } from '../../db/paging.js';
import {
  TRACE_DEPTH_LIMIT,
  type CertificateFilterInput,
  type CertificateSnapshotOutput,
  type ChainGreenLotOutput,
  type ChainProducerOutput,
  type ChainRoastBatchOutput,
  type TraceKind,
} from './schemas.js';

// ---------------------------------------------------------------------------------------------------
// Walking the lineage graph

export type Direction = 'backward' | 'forward';

export interface TraceNode {
  kind: TraceKind;
  id: string;
  /** Edges between the start and this node on the shortest way (0 for the start). */
  depth: number;
  /** What a person calls it: lot code, batch number, producer name, order number and line. Null when unknown. */
  label: string | null;
  /** Order lines only: the order, and the customer it went to (in the trace's customers). */
  orderId?: string;
  customerId?: string;
}

export interface TraceEdge {
  /** The ids of the nodes the coffee flowed from and to (ids are unique among the nodes: each kind has its prefix). */
  from: string;
  to: string;
  /** Kilograms of coffee that followed the edge, when known. */
  weightKg: string | null;
  /** Present on edges recorded by one change together (a merge, a split, a shipment). */
  groupId?: string;
  createdAt: string;
}

export interface TraceCustomer {
  id: string;
  code: string;
  name: string;
}

export interface TraceGraph {
  /** By depth, kind and id: the start first. */
  nodes: TraceNode[];
  /** By depth and id, each edge once, at the depth the walk first reached it. */
  edges: TraceEdge[];
  /** For each edge, the positions of its from and to nodes in `nodes`: the graph without lookups by key. */
  ends: [from: number, to: number][];
  /** The customers the order lines among the nodes went to, by id. */
  customers: Map<string, TraceCustomer>;
  /** True when the walk stopped at the depth limit with more lineage beyond it. */
  depthLimitReached: boolean;
}

/**
 * The whole trace in ONE statement, so the graph is read from one snapshot: the recursive walk over
 * lineage_edges in the direction's SQL function (firstcrack_trace_backward or _forward,
 * migrations/0016_trace_per_direction.sql), which each connection plans once. It answers the edges walked,
 * each with what it copied of its far end (label, and for an order line its order and customer), the
 * start's label and the customers the order lines name.
 *
 * Answers undefined when the start does not exist in this organization.
 */
export async function traceGraph(q: Queryable, orgId: string, direction: Direction, start: { kind: TraceKind; id: string }): Promise<TraceGraph | undefined> {
  const [{ trace }] = await q.query<{ trace: TraceColumns | null }>(
    `select firstcrack_trace_${direction}($1, $2, $3, $4) as trace`,
    [orgId, start.kind, start.id, TRACE_DEPTH_LIMIT],
    { name: `firstcrack_trace_${direction}` },
  );
  return trace ? graphOf(start, trace, direction) : undefined;
}

/**
 * A trace function's answer: the edges column-wise, one array per field in the order below, one row per
 * edge and depth it was reached at, in no particular order. An edge's near end is the one the walk came
 * from; the far end's label (and an order line's order and customer) are what the edge copied of it.
 */
interface TraceColumns {
  start: Known | null;
  /** All null when the walk found no edge. */
  edges:
    | [
        ids: string[],
        depths: number[],
        nearIds: string[],
        farKinds: TraceKind[],
        farIds: string[],
        farLabels: (string | null)[],
        /** Order lines only, else null. */
        farOrderIds: (string | null)[],
        farCustomerIds: (string | null)[],
        weightsKg: (string | null)[],
        groupIds: (string | null)[],
        createdAtsEpochSeconds: number[],
      ]
    | null[];
  /** All null when no order line was reached. */
  customers: [ids: string[], codes: string[], names: string[]] | null[];
  depthLimitReached: boolean;
}

/** The start's label, and for an order line also its order id and customer id. */
type Known = [label: string] | [label: string, orderId: string, customerId: string];

/** Code-unit order, the same for every database and locale. */
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Nodes (the start and every far end, at the least depth reached) by depth, kind and id; each edge once,
 * at the least depth it was reached at, by depth and id.
 */
function graphOf(start: { kind: TraceKind; id: string }, columns: TraceColumns, direction: Direction): TraceGraph {
  const [customerIds, customerCodes, customerNames] = columns.customers;
  const customers = new Map<string, TraceCustomer>(customerIds?.map((id, i) => [id, { id, code: customerCodes![i], name: customerNames![i] }]));
  const [edgeIds, edgeDepths, nearIds, farKinds, farIds, farLabels, farOrderIds, farCustomerIds, weights, groupIds, createdAts] = columns.edges;
  const [startLabel = null, startOrderId = null, startCustomerId = null] = columns.start ?? [];

  // Each node once, at its least depth. Every row names a node alike: edges copy only what never changes,
  // and what they lack is looked up as it is now.
  const found = new Map<string, TraceNode>([[start.id, nodeOf(start.kind, start.id, 0, startLabel, startOrderId, startCustomerId)]]);
  // Each edge once, at the least depth it was reached at.
  const least = new Map<string, number>();
  for (let i = 0; i < (edgeIds?.length ?? 0); i++) {
    const id = farIds![i];
    const depth = edgeDepths![i];
    const node = found.get(id);
    if (node === undefined) found.set(id, nodeOf(farKinds![i], id, depth, farLabels![i], farOrderIds![i], farCustomerIds![i]));
    else if (depth < node.depth) node.depth = depth;
    const seen = least.get(edgeIds![i]);
    if (seen === undefined || depth < edgeDepths![seen]) least.set(edgeIds![i], i);
  }
  const nodes = [...found.values()].sort((a, b) => a.depth - b.depth || compare(a.kind, b.kind) || compare(a.id, b.id));
  if (!edgeIds) return { nodes, edges: [], ends: [], customers, depthLimitReached: columns.depthLimitReached };

  const positionOf = new Map<string, number>();
  nodes.forEach((node, position) => positionOf.set(node.id, position));
  const edgeRows = [...least.values()].sort((a, b) => edgeDepths![a] - edgeDepths![b] || compare(edgeIds[a], edgeIds[b]));
  const [fromIds, toIds] = direction === 'forward' ? [nearIds!, farIds!] : [farIds!, nearIds!];
  // Edges recorded by one change share its time: each distinct time is formatted once.
  const times = new Map<number, string>();
  const edges: TraceEdge[] = [];
  const ends: TraceGraph['ends'] = [];
  for (const i of edgeRows) {
    const from = fromIds[i];
    const to = toIds[i];
    const weightKg = weights![i];
    const groupId = groupIds![i];
    let createdAt = times.get(createdAts![i]);
    if (createdAt === undefined) times.set(createdAts![i], (createdAt = isoOfEpochSeconds(createdAts![i])));
    edges.push(groupId === null ? { from, to, weightKg, createdAt } : { from, to, weightKg, groupId, createdAt });
    ends.push([positionOf.get(from)!, positionOf.get(to)!]);
  }
  return { nodes, edges, ends, customers, depthLimitReached: columns.depthLimitReached };
}

function nodeOf(kind: TraceKind, id: string, depth: number, label: string | null, orderId: string | null, customerId: string | null): TraceNode {
  return orderId === null || customerId === null ? { kind, id, depth, label } : { kind, id, depth, label, orderId, customerId };
}

/**
 * PostgreSQL's epoch seconds (a double, to the microsecond) as an ISO time to the millisecond, truncated
 * like every other time the service answers. Rounding to whole microseconds first undoes the double's error.
 */
const isoOfEpochSeconds = (seconds: number) => new Date(Math.floor(Math.round(seconds * 1e6) / 1e3)).toISOString();

// ---------------------------------------------------------------------------------------------------
// What a roasted lot's chain is made of, for getRoastedLotTraceability and certificates

export interface ChainDetails {
  roastBatches: ChainRoastBatchOutput[];
  greenLots: ChainGreenLotOutput[];
  producers: ChainProducerOutput[];
}

/**
 * The records behind a backward trace's nodes: roast batches, green lots (their coffee facts, never their
 * cost) and producers (those the lineage names and those the green lots name).
 */
export async function chainDetails(q: Queryable, orgId: string, ids: { roastBatches: string[]; greenLots: string[]; producers: string[] }): Promise<ChainDetails> {
  const [row] = await q.query<{ details: ChainDetails }>(
    `select jsonb_build_object(
       'roastBatches', coalesce((select jsonb_agg(jsonb_build_object(
           'id', b.id, 'batchNumber', b.batch_number, 'machineId', b.machine_id, 'profileId', b.profile_id,
           'greenLotId', b.green_lot_id, 'chargeWeightKg', b.charge_weight_kg::text, 'dropWeightKg', b.drop_weight_kg::text,
           'weightLossPct', b.weight_loss_pct::text, 'startedAt', b.started_at, 'completedAt', b.completed_at) order by b.started_at, b.id)
         from roast_batches b where b.org_id = $1 and b.id = any($2::text[])), '[]'::jsonb),
       'greenLots', coalesce((select jsonb_agg(jsonb_build_object(
           'id', g.id, 'lotCode', g.lot_code, 'name', g.name, 'state', g.state, 'varieties', g.varieties,
           'processMethod', g.process_method, 'harvestYear', g.harvest_year, 'certifications', g.certifications,
           'producerId', g.producer_id) order by g.lot_code)
         from green_lots g where g.org_id = $1 and g.id = any($3::text[])), '[]'::jsonb),
       'producers', coalesce((select jsonb_agg(jsonb_build_object(
           'id', p.id, 'code', p.code, 'name', p.name, 'kind', p.kind, 'country', p.country, 'region', p.region,
           'subregion', p.subregion, 'altitudeMinM', p.altitude_min_m, 'altitudeMaxM', p.altitude_max_m,
           'latitude', p.latitude, 'longitude', p.longitude, 'varieties', p.varieties, 'processMethods', p.process_methods,
           'farmSizeHa', p.farm_size_ha) order by p.name, p.id)
         from producers p where p.org_id = $1 and (p.id = any($4::text[])
           or p.id in (select g.producer_id from green_lots g where g.org_id = $1 and g.id = any($3::text[])))), '[]'::jsonb)
     ) as details`,
    [orgId, ids.roastBatches, ids.greenLots, ids.producers],
  );
  const details = row.details;
  // Times in the answer's format (jsonb renders them with microseconds and an offset).
  for (const batch of details.roastBatches as Record<string, string | null>[]) {
    batch.startedAt = iso(batch.startedAt);
    batch.completedAt = iso(batch.completedAt);
  }
  return details;
}

// ---------------------------------------------------------------------------------------------------
// Which order lines and shipments drew on a roasted lot

/** The line names the lot, or holds (or shipped) a claim on it, or lineage runs from the lot to it. */
export async function orderLineDrawsOnLot(q: Queryable, orgId: string, orderLineId: string, roastedLotId: string): Promise<boolean> {
  const [row] = await q.query<{ draws: boolean }>(
    `select exists (select 1 from order_lines where org_id = $1 and id = $2 and roasted_lot_id = $3)
         or exists (select 1 from order_allocations where org_id = $1 and order_line_id = $2 and roasted_lot_id = $3 and released_at is null)
         or exists (select 1 from lineage_edges where org_id = $1 and from_kind = 'roasted_lot' and from_id = $3 and to_kind = 'order_line' and to_id = $2)
       as draws`,
    [orgId, orderLineId, roastedLotId],
  );
  return row.draws;
}

export interface OrderLineSummary {
  id: string;
  orderId: string;
  orderNumber: string;
  lineNumber: number;
  customer: { id: string; code: string; name: string };
}

export async function findOrderLine(q: Queryable, orgId: string, id: string): Promise<OrderLineSummary | undefined> {
  const [row] = await q.query<{ id: string; order_id: string; order_number: string; line_number: number; customer_id: string; customer_code: string; customer_name: string }>(
    `select l.id, l.order_id, o.order_number, l.line_number, c.id as customer_id, c.code as customer_code, c.name as customer_name
     from order_lines l
     join orders o on o.org_id = l.org_id and o.id = l.order_id
     join customers c on c.org_id = o.org_id and c.id = o.customer_id
     where l.org_id = $1 and l.id = $2`,
    [orgId, id],
  );
  return (
    row && {
      id: row.id,
      orderId: row.order_id,
      orderNumber: row.order_number,
      lineNumber: row.line_number,
      customer: { id: row.customer_id, code: row.customer_code, name: row.customer_name },
    }
  );
}

export interface FulfillmentSummary {
  id: string;
  orderId: string;
  shippedAt: string;
  /** Order lines that shipped coffee from the roasted lot asked about. */
  orderLineIds: string[];
}

/** The fulfilment, with the order lines it shipped from `roastedLotId` (none: it shipped none of that lot). */
export async function findFulfillment(q: Queryable, orgId: string, id: string, roastedLotId: string): Promise<FulfillmentSummary | undefined> {
  const [row] = await q.query<{ id: string; order_id: string; created_at: Date; line_ids: string[] }>(
    `select f.id, f.order_id, f.created_at,
            array(select distinct a.order_line_id from order_allocations a
                  where a.org_id = f.org_id and a.fulfillment_id = f.id and a.roasted_lot_id = $3 order by 1) as line_ids
     from fulfillments f where f.org_id = $1 and f.id = $2`,
    [orgId, id, roastedLotId],
  );
  return row && { id: row.id, orderId: row.order_id, shippedAt: iso(row.created_at)!, orderLineIds: row.line_ids };
}

// ---------------------------------------------------------------------------------------------------
// Certificates

interface CertificateRow {
  id: string;
  token: string;
  roasted_lot_id: string;
  order_line_id: string | null;
  fulfillment_id: string | null;
  /** Frozen at issue: the chain as it was then. */
  snapshot: CertificateSnapshotOutput;
  issued_at: Date;
}

export const certificatePath = (token: string) => `/c/${token}`;

const toCertificate = (r: CertificateRow) => ({
  id: r.id,
  roastedLotId: r.roasted_lot_id,
  orderLineId: r.order_line_id,
  fulfillmentId: r.fulfillment_id,
  /** The public token: whoever holds it can read the certificate's page, nothing else. */
  token: r.token,
  /** The public page, and its QR code as SVG and PNG, relative to the service's address. */
  publicPath: certificatePath(r.token),
  qrSvgPath: `${certificatePath(r.token)}/qr.svg`,
  qrPngPath: `${certificatePath(r.token)}/qr.png`,
  issuedAt: iso(r.issued_at)!,
  snapshot: r.snapshot,
});

export type Certificate = ReturnType<typeof toCertificate>;

/** 16 random bytes: 128 bits, 22 base64url characters. */
const TOKEN_BYTES = 16;
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{22}$/;

export async function insertCertificate(
  q: Queryable,
  orgId: string,
  credentialId: string,
  certificate: { roastedLotId: string; orderLineId: string | null; fulfillmentId: string | null; snapshot: object; issuedAt: string },
): Promise<Certificate> {
  const [row] = await q.query<CertificateRow>(
    `insert into certificates (org_id, id, token, roasted_lot_id, order_line_id, fulfillment_id, snapshot, issued_at, credential_id)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9) returning *`,
    [
      orgId,
      newId('cert'),
      newSecret(TOKEN_BYTES),
      certificate.roastedLotId,
      certificate.orderLineId,
      certificate.fulfillmentId,
      JSON.stringify(certificate.snapshot),
      certificate.issuedAt,
      credentialId,
    ],
  );
  return toCertificate(row);
}

export async function listCertificates(q: Queryable, orgId: string, filter: CertificateFilterInput, page: Page) {
  const params = new SqlParams();
  const where = [`org_id = ${params.add(orgId)}`];
  if (filter.roastedLotId) where.push(`roasted_lot_id = ${params.add(filter.roastedLotId)}`);
  if (filter.issuedFrom) where.push(`issued_at >= ${params.add(filter.issuedFrom)}::date`);
  if (filter.issuedTo) where.push(`issued_at < ${params.add(filter.issuedTo)}::date + 1`);
  const after = decodeCursor(page.cursor, 'certificates', ['timestamp', 'id']);
  if (after) where.push(`(issued_at, id) < (${params.add(String(after[0]))}::timestamptz, ${params.add(String(after[1]))})`);
  const rows = await q.query<CertificateRow>(
    `select * from certificates where ${where.join(' and ')} order by issued_at desc, id desc limit ${params.add(page.limit + 1)}`,
    params.values,
  );
  return pageOf(rows.map(toCertificate), page.limit, 'certificates', (c) => [c.issuedAt, c.id]);
}

export interface PublicCertificate {
  id: string;
  organizationName: string;
  snapshot: unknown;
  issuedAt: string;
}

/** The public page's lookup, across organizations, through the owner's SECURITY DEFINER function. */
export async function findCertificateByToken(q: Queryable, token: string): Promise<PublicCertificate | undefined> {
  const [row] = await q.query<{ id: string; organization_name: string; snapshot: unknown; issued_at: Date }>(
    `select * from firstcrack_certificate_by_token($1)`,
    [token],
  );
  return row && { id: row.id, organizationName: row.organization_name, snapshot: row.snapshot, issuedAt: iso(row.issued_at)! };
}
