import type { Queryable } from '../../db/client.js';
import { iso } from '../../db/sql.js';
import { newId } from '../../lib/ids.js';
import type { NodeKind, TraceKind } from './schemas.js';

// ---------------------------------------------------------------------------------------------------
// Recording lineage

/** K: the kinds the edges may name; the trace kinds unless a caller records contracts or samples. */
export interface NewLineageEdge<K extends NodeKind = TraceKind> {
  fromKind: K;
  fromId: string;
  toKind: K;
  toId: string;
  weightKg: string | null;
  groupId?: string | null;
}

interface LineageRow {
  id: string;
  from_kind: NodeKind;
  from_id: string;
  to_kind: NodeKind;
  to_id: string;
  weight_kg: string | null;
  group_id: string | null;
  created_at: Date;
}

const toLineageEdge = (r: LineageRow) => ({
  id: r.id,
  fromKind: r.from_kind,
  fromId: r.from_id,
  toKind: r.to_kind,
  toId: r.to_id,
  weightKg: r.weight_kg,
  groupId: r.group_id,
  createdAt: iso(r.created_at)!,
});

export type LineageEdge<K extends NodeKind = TraceKind> = Omit<ReturnType<typeof toLineageEdge>, 'fromKind' | 'toKind'> & { fromKind: K; toKind: K };

/**
 * Records that coffee went from one thing to another; edges are history and are never rewritten. The insert
 * trigger copies what a trace shows of each end (migrations/repeatable/lineage_known.sql).
 */
export async function insertLineageEdges<K extends NodeKind>(q: Queryable, orgId: string, edges: NewLineageEdge<K>[]): Promise<LineageEdge<K>[]> {
  if (edges.length === 0) return [];
  const ids = edges.map(() => newId('lin'));
  const rows = await q.query<LineageRow>(
    `insert into lineage_edges (org_id, id, from_kind, from_id, to_kind, to_id, weight_kg, group_id)
     select $1, * from unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::numeric[], $8::text[])
     returning *`,
    [
      orgId,
      ids,
      edges.map((e) => e.fromKind),
      edges.map((e) => e.fromId),
      edges.map((e) => e.toKind),
      edges.map((e) => e.toId),
      edges.map((e) => e.weightKg),
      edges.map((e) => e.groupId ?? null),
    ],
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => toLineageEdge(byId.get(id)!) as LineageEdge<K>);
}

/** Whether an edge leads straight from one node to the other. */
export async function edgeExists(q: Queryable, orgId: string, from: { kind: NodeKind; id: string }, to: { kind: NodeKind; id: string }): Promise<boolean> {
  const [row] = await q.query<{ found: boolean }>(
    `select exists (select 1 from lineage_edges where org_id = $1 and from_kind = $2 and from_id = $3 and to_kind = $4 and to_id = $5) as found`,
    [orgId, from.kind, from.id, to.kind, to.id],
  );
  return row.found;
}

/** Edges recorded in the organization (for the tests' and benchmarks' accounting of what a change wrote). */
/**
 * The green coffee each roasted lot was roasted from: for every roast batch → roasted lot edge into the lot, the
 * green lot → batch edges into that batch, with the kilograms charged. A lot roasted from several green lots
 * (a blend charged together) answers each of them.
 */
export async function greenInputsOfRoastedLots(q: Queryable, orgId: string, roastedLotIds: string[]): Promise<{ roastedLotId: string; greenLotId: string; weightKg: string | null }[]> {
  if (roastedLotIds.length === 0) return [];
  const rows = await q.query<{ roasted_lot_id: string; green_lot_id: string; weight_kg: string | null }>(
    `select out.to_id as roasted_lot_id, input.from_id as green_lot_id, input.weight_kg::text as weight_kg
     from lineage_edges out
     join lineage_edges input on input.org_id = out.org_id and input.to_kind = 'roast_batch' and input.to_id = out.from_id and input.from_kind = 'green_lot'
     where out.org_id = $1 and out.to_kind = 'roasted_lot' and out.to_id = any($2::text[]) and out.from_kind = 'roast_batch'
     order by out.to_id, input.from_id`,
    [orgId, roastedLotIds],
  );
  return rows.map((r) => ({ roastedLotId: r.roasted_lot_id, greenLotId: r.green_lot_id, weightKg: r.weight_kg }));
}

export async function countEdges(q: Queryable, orgId: string): Promise<number> {
  const [row] = await q.query<{ count: number }>(`select count(*)::int as count from lineage_edges where org_id = $1`, [orgId]);
  return row.count;
}

// ---------------------------------------------------------------------------------------------------
// Walking the lineage graph

export type Direction = 'backward' | 'forward';

export interface TraceNode {
  kind: NodeKind;
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
 * migrations/repeatable/lineage_trace.sql), which each connection plans once. It answers the edges walked,
 * each with what it copied of its far end (label, and for an order line its order and customer), the
 * start's label and the customers the order lines name.
 *
 * Walks at most `depthLimit` edges. Answers undefined when the start does not exist in this organization.
 */
export async function traceGraph(
  q: Queryable,
  orgId: string,
  direction: Direction,
  start: { kind: TraceKind; id: string },
  depthLimit: number,
): Promise<TraceGraph | undefined> {
  const [{ trace }] = await q.query<{ trace: TraceColumns | null }>(
    `select firstcrack_trace_${direction}($1, $2, $3, $4) as trace`,
    [orgId, start.kind, start.id, depthLimit],
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
        farKinds: NodeKind[],
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

function nodeOf(kind: NodeKind, id: string, depth: number, label: string | null, orderId: string | null, customerId: string | null): TraceNode {
  return orderId === null || customerId === null ? { kind, id, depth, label } : { kind, id, depth, label, orderId, customerId };
}

/**
 * PostgreSQL's epoch seconds (a double, to the microsecond) as an ISO time to the millisecond, truncated
 * like every other time the service answers. Rounding to whole microseconds first undoes the double's error.
 */
const isoOfEpochSeconds = (seconds: number) => new Date(Math.floor(Math.round(seconds * 1e6) / 1e3)).toISOString();
