import { useState } from 'preact/hooks';
import type { OperationOutput } from '../../../clients/typescript/src/index.ts';
import { call, type Session } from '../session.ts';
import { ErrorBox, Link, Loading, navigate, useLoad } from '../ui.tsx';
import { CertificateList } from './certificates.tsx';

type Kind = 'producer' | 'green_lot' | 'roast_batch' | 'roasted_lot' | 'blend_lot' | 'product_batch' | 'order_line';
type Graph = OperationOutput<'traceability.traceBackward'>;

/** Layers from producer (top) to customer (bottom): how coffee flows. */
const LAYERS = ['producer', 'green_lot', 'roast_batch', 'roasted_lot', 'blend_lot', 'product_batch', 'order_line', 'customer'] as const;
const KIND_LABEL: Record<string, string> = {
  producer: 'Producer',
  green_lot: 'Green lot',
  roast_batch: 'Roast',
  roasted_lot: 'Roasted lot',
  blend_lot: 'Blend',
  product_batch: 'Product',
  order_line: 'Order line',
  customer: 'Customer',
};

const NODE_W = 170;
const NODE_H = 44;
const GAP_X = 16;
const GAP_Y = 36;

interface Placed {
  key: string;
  kind: string;
  id: string;
  label: string;
  x: number;
  y: number;
  start: boolean;
  href: string | null;
}

function layout(graph: Graph) {
  const nodes = graph.nodes.map((n) => ({ key: n.id, kind: n.kind as string, id: n.id, label: n.label ?? n.id, orderId: n.orderId }));
  const edges = graph.edges.map((e) => ({ from: e.from, to: e.to, weightKg: e.weightKg }));
  for (const c of graph.customers) {
    nodes.push({ key: `customer:${c.id}`, kind: 'customer', id: c.id, label: c.name, orderId: undefined });
    for (const line of c.orderLineIds) edges.push({ from: line, to: `customer:${c.id}`, weightKg: null });
  }
  // Layers by the longest path from where coffee entered (producers, lots received): a split or merge puts the
  // lot it made below the lots it came from, and every edge points down. Coffee can come back to a lot it left
  // (split off, then merged back): such an edge closes a cycle, is found by a depth-first walk (an edge to a
  // node still on the walk's path), and is drawn pointing up without deciding any layer.
  const rankOf = (kind: string) => LAYERS.indexOf(kind as (typeof LAYERS)[number]);
  const known = new Set(nodes.map((n) => n.key));
  const out = new Map<string, string[]>(nodes.map((n) => [n.key, []]));
  for (const e of edges) if (known.has(e.from) && known.has(e.to)) out.get(e.from)!.push(e.to);
  const state = new Map<string, 'open' | 'done'>();
  const back = new Set<string>();
  const order: string[] = [];
  const walk = (key: string) => {
    state.set(key, 'open');
    for (const next of out.get(key)!) {
      if (state.get(next) === 'open') back.add(`${key}>${next}`);
      else if (!state.has(next)) walk(next);
    }
    state.set(key, 'done');
    order.push(key);
  };
  for (const n of [...nodes].sort((a, b) => rankOf(a.kind) - rankOf(b.kind))) if (!state.has(n.key)) walk(n.key);
  const depth = new Map<string, number>(nodes.map((n) => [n.key, 0]));
  for (const key of order.reverse()) {
    for (const next of out.get(key)!) {
      if (!back.has(`${key}>${next}`)) depth.set(next, Math.max(depth.get(next)!, depth.get(key)! + 1));
    }
  }
  const layerCount = Math.max(0, ...depth.values()) + 1;
  const layers = Array.from({ length: layerCount }, (_, d) => nodes.filter((n) => depth.get(n.key) === d).sort((a, b) => rankOf(a.kind) - rankOf(b.kind))).filter(
    (l) => l.length > 0,
  );
  const widest = Math.max(1, ...layers.map((l) => l.length));
  const width = widest * (NODE_W + GAP_X) - GAP_X;
  const placed = new Map<string, Placed>();
  layers.forEach((layer, row) => {
    const rowWidth = layer.length * (NODE_W + GAP_X) - GAP_X;
    layer.forEach((n, i) => {
      const href =
        n.kind === 'green_lot' ? `/lots/${n.id}` : n.kind === 'roast_batch' ? `/batches/${n.id}` : n.kind === 'order_line' && n.orderId ? `/orders/${n.orderId}` : n.kind === 'roasted_lot' ? `/trace/roasted_lot/${n.id}` : null;
      placed.set(n.key, {
        key: n.key,
        kind: n.kind,
        id: n.id,
        label: n.label,
        x: (width - rowWidth) / 2 + i * (NODE_W + GAP_X),
        y: row * (NODE_H + GAP_Y),
        start: n.id === graph.start.id,
        href,
      });
    });
  });
  // Edges point the way coffee went, whichever direction was traced.
  return { placed, edges, width, height: layers.length * (NODE_H + GAP_Y) - GAP_Y };
}

const clip = (text: string, n = 23) => (text.length > n ? text.slice(0, n - 1) + '…' : text);

export function TraceGraphView({ graph }: { graph: Graph }) {
  const { placed, edges, width, height } = layout(graph);
  const pad = 4;
  return (
    <div class="graph-wrap">
      <svg
        class="trace-graph"
        viewBox={`${-pad} ${-pad} ${width + 2 * pad} ${height + 2 * pad}`}
        width={width + 2 * pad}
        height={height + 2 * pad}
        role="img"
        aria-label={`Trace ${graph.direction}: ${graph.nodes.length} records`}
        data-nodes={graph.nodes.length}
      >
        <defs>
          <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
            <path d="M0,0 L10,5 L0,10 z" fill="#8a7563" />
          </marker>
        </defs>
        {edges.map((e) => {
          const a = placed.get(e.from);
          const b = placed.get(e.to);
          if (!a || !b) return null;
          // Down from the bottom of the one it left to the top of the one it reached; a cycle's edge goes up.
          const down = a.y < b.y;
          const x1 = a.x + NODE_W / 2;
          const y1 = down ? a.y + NODE_H : a.y;
          const x2 = b.x + NODE_W / 2;
          const y2 = down ? b.y - 1 : b.y + NODE_H + 1;
          const bend = down ? GAP_Y / 2 : -GAP_Y / 2;
          return (
            <g class={'edge' + (down ? '' : ' up')}>
              <path d={`M${x1},${y1} C${x1},${y1 + bend} ${x2},${y2 - bend} ${x2},${y2}`} marker-end="url(#arrow)" />
              {e.weightKg ? (
                // Near the end the coffee reached: edges that cross between two layers share a midpoint, not an end.
                <text x={x1 + (x2 - x1) * 0.75 + 4} y={y1 + (y2 - y1) * 0.75 + 4}>
                  {Number(e.weightKg)} kg
                </text>
              ) : null}
            </g>
          );
        })}
        {[...placed.values()].map((n) => {
          const box = (
            <g class={`node ${n.kind}${n.start ? ' start' : ''}`} data-kind={n.kind} data-id={n.id}>
              <rect x={n.x} y={n.y} width={NODE_W} height={NODE_H} rx="6" />
              <text x={n.x + 8} y={n.y + 16} class="kind">
                {KIND_LABEL[n.kind] ?? n.kind}
              </text>
              <text x={n.x + 8} y={n.y + 34} class="label">
                {clip(n.label)}
              </text>
              <title>{n.label}</title>
            </g>
          );
          return n.href ? (
            <a
              href={'#' + n.href}
              onClick={(e) => {
                e.preventDefault();
                navigate(n.href!);
              }}
            >
              {box}
            </a>
          ) : (
            box
          );
        })}
      </svg>
    </div>
  );
}

export function TracePage({ session, kind, id }: { session: Session; kind: Kind; id: string }) {
  const [direction, setDirection] = useState<'backward' | 'forward'>('backward');
  const trace = useLoad(
    () => call(session, direction === 'backward' ? 'traceability.traceBackward' : 'traceability.traceForward', { kind, id }),
    [session, direction, kind, id],
  );
  const g = trace.loading ? null : trace.data;
  return (
    <>
      <p class="crumbs">
        <Link to="/">Dashboard</Link> /
      </p>
      <h1>
        Trace {KIND_LABEL[kind]?.toLowerCase() ?? kind} {g?.start.label ?? ''}
      </h1>
      <div class="tabs" role="tablist">
        <button type="button" role="tab" aria-selected={direction === 'backward'} onClick={() => setDirection('backward')}>
          Where it came from
        </button>
        <button type="button" role="tab" aria-selected={direction === 'forward'} onClick={() => setDirection('forward')}>
          Where it went
        </button>
      </div>
      {trace.loading ? <Loading what="the trace" /> : <ErrorBox error={trace.error} />}
      {g ? (
        <>
          <TraceGraphView graph={g} />
          <p class="muted show-narrow">The graph scrolls sideways.</p>
          {g.depthLimitReached ? <p class="notice">The trace stops at {g.depthLimit} steps.</p> : null}
          {g.customers.length ? (
            <p>
              Customers: {g.customers.map((c) => c.name).join(', ')}
            </p>
          ) : null}
        </>
      ) : null}
      {kind === 'roasted_lot' ? (
        <section class="spaced">
          <h2>Certificates</h2>
          <CertificateList session={session} roastedLotId={id} canIssue />
        </section>
      ) : null}
    </>
  );
}
