import type { Queryable } from '../../db/client.js';
import * as repo from './repository.js';
import type { NodeKind, TraceKind } from './schemas.js';

/**
 * Lineage: which coffee went from what into what. Every module whose change moves coffee from one traced
 * thing to another (green splits and merges, roasting, blending, shipping…) records it here in the same
 * transaction; traceability reads the walks. Nothing else reads or writes lineage_edges.
 */
export { NODE_KINDS, TRACE_KINDS, type NodeKind, type TraceKind } from './schemas.js';
export type { Direction, LineageEdge, NewLineageEdge, TraceCustomer, TraceEdge, TraceGraph, TraceNode } from './repository.js';

/**
 * Records edges, all or none (inside the caller's transaction). An edge joins two different nodes, and the
 * weight that followed it, when known, is not negative: anything else is a caller's bug, not a user's input.
 */
export async function recordEdges<K extends NodeKind = TraceKind>(q: Queryable, orgId: string, edges: repo.NewLineageEdge<K>[]): Promise<repo.LineageEdge<K>[]> {
  for (const edge of edges) {
    if (edge.fromKind === edge.toKind && edge.fromId === edge.toId) throw new Error(`lineage edge from ${edge.fromKind} ${edge.fromId} to itself`);
    if (edge.weightKg !== null && !(Number(edge.weightKg) >= 0)) throw new Error(`lineage edge ${edge.fromId} → ${edge.toId}: weight ${edge.weightKg} kg is negative`);
  }
  return repo.insertLineageEdges(q, orgId, edges);
}

/**
 * The graph reached from `start` walking upstream (backward) or downstream (forward), at most `depthLimit`
 * edges deep, read in one statement; undefined when the start does not exist (no record of its kind and no edge).
 */
export function trace(q: Queryable, orgId: string, direction: repo.Direction, start: { kind: TraceKind; id: string }, depthLimit: number) {
  return repo.traceGraph(q, orgId, direction, start, depthLimit);
}

/** Whether coffee went straight from one node to the other (one edge). */
export function leadsDirectly(q: Queryable, orgId: string, from: { kind: NodeKind; id: string }, to: { kind: NodeKind; id: string }): Promise<boolean> {
  return repo.edgeExists(q, orgId, from, to);
}

/** How many edges the organization has recorded. */
export function countEdges(q: Queryable, orgId: string): Promise<number> {
  return repo.countEdges(q, orgId);
}

/** The green lots each roasted lot was roasted from and the kilograms charged of each (through its roast batch). */
export function greenInputsOfRoastedLots(q: Queryable, orgId: string, roastedLotIds: string[]) {
  return repo.greenInputsOfRoastedLots(q, orgId, roastedLotIds);
}
