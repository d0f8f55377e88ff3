import type { Direction, TraceGraph, TraceNode } from './repository.js';
import { MAX_READABLE_PATHS, type TraceKind } from './schemas.js';

const KIND_NAMES: Record<TraceKind, string> = {
  producer: 'producer',
  green_lot: 'green lot',
  roast_batch: 'roast batch',
  roasted_lot: 'roasted lot',
  blend_lot: 'blend lot',
  product_batch: 'product batch',
  order_line: 'order',
};

const key = (kind: string, id: string) => `${kind}:${id}`;

function describe(node: TraceNode): string {
  const text = `${KIND_NAMES[node.kind]} ${node.label ?? node.id}`;
  return node.customer ? `${text} → customer ${node.customer.name}` : text;
}

/**
 * The graph as sentences a person can follow, always written from origin to destination: for a backward
 * trace every way from an origin (a node nothing flowed into) to the start, for a forward trace every way
 * from the start to a destination (a node nothing flowed out of), e.g. "Green lot GL-7 (Ethiopia Gerba) →
 * roast batch B-12 → roasted lot R-B-12 → order SO-5 line 1 → customer Café Nord". Merges and splits
 * multiply the ways, so the list stops at MAX_READABLE_PATHS and says so.
 */
export function readablePaths(graph: TraceGraph, direction: Direction, start: { kind: TraceKind; id: string }): { paths: string[]; truncated: boolean } {
  const texts = new Map(graph.nodes.map((n) => [key(n.kind, n.id), describe(n)]));
  // Adjacency in the direction of the walk: upstream for backward, downstream for forward.
  const next = new Map<string, string[]>();
  for (const e of graph.edges) {
    const [from, to] = direction === 'backward' ? [key(e.toKind, e.toId), key(e.fromKind, e.fromId)] : [key(e.fromKind, e.fromId), key(e.toKind, e.toId)];
    if (!next.has(from)) next.set(from, []);
    next.get(from)!.push(to);
  }
  for (const list of next.values()) list.sort();

  const paths: string[] = [];
  let truncated = false;
  const trail: string[] = [];
  const onTrail = new Set<string>();
  const walk = (at: string): void => {
    if (paths.length >= MAX_READABLE_PATHS) {
      truncated = true;
      return;
    }
    trail.push(at);
    onTrail.add(at);
    // A cycle's way back onto the trail is not followed; a node whose every way leads back ends the path.
    const onward = (next.get(at) ?? []).filter((n) => !onTrail.has(n) && texts.has(n));
    if (onward.length === 0) {
      const ordered = direction === 'backward' ? [...trail].reverse() : trail;
      const text = ordered.map((k) => texts.get(k)!).join(' → ');
      paths.push(text.charAt(0).toUpperCase() + text.slice(1));
    } else {
      for (const n of onward) walk(n);
    }
    trail.pop();
    onTrail.delete(at);
  };
  walk(key(start.kind, start.id));
  return { paths, truncated };
}

/** Every customer an order line in the graph belongs to, with those lines. */
export function customersOf(graph: TraceGraph): { id: string; code: string; name: string; orderLineIds: string[] }[] {
  const byId = new Map<string, { id: string; code: string; name: string; orderLineIds: string[] }>();
  for (const node of graph.nodes) {
    if (!node.customer) continue;
    const entry = byId.get(node.customer.id) ?? { ...node.customer, orderLineIds: [] };
    entry.orderLineIds.push(node.id);
    byId.set(entry.id, entry);
  }
  return [...byId.values()].sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
}
