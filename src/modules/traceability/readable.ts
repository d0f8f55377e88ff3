import type { Direction, TraceCustomer, TraceGraph, TraceNode } from '../lineage/service.js';
import type { NodeKind } from './schemas.js';

const KIND_NAMES: Record<NodeKind, string> = {
  producer: 'producer',
  green_lot: 'green lot',
  roast_batch: 'roast batch',
  roasted_lot: 'roasted lot',
  blend_lot: 'blend lot',
  product_batch: 'product batch',
  order_line: 'order',
  contract: 'contract',
  sample: 'sample',
};

function describe(node: TraceNode, customers: TraceGraph['customers']): string {
  const text = `${KIND_NAMES[node.kind]} ${node.label ?? node.id}`;
  const customer = node.customerId && customers.get(node.customerId);
  return customer ? `${text} (customer ${customer.name})` : text;
}

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * The graph as sentences a person can follow, one per node the coffee moved on from (forward) or
 * came together in (backward), always written from origin to destination and listed in that order:
 *
 *   forward:  "Green lot GL-7 (Ethiopia Gerba) -> roast batch B-12, green lot GL-7B (Gerba base)"  (where it went)
 *   backward: "Green lot GL-7 (Ethiopia Gerba) + green lot GL-9 (Huila) -> green lot GL-7B (Gerba base)"  (what it came from)
 *
 * The arrow is ASCII: text that fits in one byte per character stays a one-byte string in V8, which is
 * cheaper to build and encode than a two-byte one (bench/README.md, "Traces").
 *
 * An order line reads "order SO-5 line 1 (customer Café Nord)". Every edge of the graph appears once, so
 * the list grows with the graph, never with the number of ways through it (merges and splits multiply
 * those); a trace without edges is the start alone.
 */
export function readableSteps(graph: TraceGraph, direction: Direction): string[] {
  const { nodes, ends } = graph;
  // For each node, the nodes the walk reached from it: downstream for forward, upstream for backward.
  const reached: number[][] = nodes.map(() => []);
  for (const [from, to] of ends) {
    if (direction === 'forward') reached[from].push(to);
    else reached[to].push(from);
  }
  const texts = nodes.map((node) => describe(node, graph.customers));
  const steps: { depth: number; text: string }[] = [];
  for (let i = 0; i < nodes.length; i++) {
    if (reached[i].length === 0) continue;
    // Positions follow the nodes' order (depth, kind, id); parallel edges name a node once.
    const others = reached[i].sort((a, b) => a - b).filter((j, k, all) => k === 0 || all[k - 1] !== j).map((j) => texts[j]);
    const text = direction === 'forward' ? `${capitalized(texts[i])} -> ${others.join(', ')}` : `${capitalized(others.join(' + '))} -> ${texts[i]}`;
    steps.push({ depth: nodes[i].depth, text });
  }
  // Nodes come by depth from the start, so a backward trace's steps are read deepest first: origins first.
  if (direction === 'backward') steps.sort((a, b) => b.depth - a.depth);
  return steps.length > 0 ? steps.map((s) => s.text) : [capitalized(texts[0])];
}

/** Every customer an order line in the graph went to, with those lines. */
export function customersOf(graph: TraceGraph): (TraceCustomer & { orderLineIds: string[] })[] {
  const byId = new Map<string, TraceCustomer & { orderLineIds: string[] }>();
  for (const node of graph.nodes) {
    const customer = node.customerId && graph.customers.get(node.customerId);
    if (!customer) continue;
    const entry = byId.get(customer.id) ?? byId.set(customer.id, { ...customer, orderLineIds: [] }).get(customer.id)!;
    entry.orderLineIds.push(node.id);
  }
  return [...byId.values()].sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
}
