/**
 * The kinds of thing lineage connects: each names records of the module that owns them (producers: catalog
 * party; green lots: inventory green; roast batches: production roast; roasted and blend lots: inventory
 * roast; order lines: orders; product batches: packing, known by their edges alone). A new kind is added
 * here and, when a trace should label it, in migrations/repeatable/lineage_known.sql.
 */
export const TRACE_KINDS = ['producer', 'green_lot', 'roast_batch', 'roasted_lot', 'blend_lot', 'product_batch', 'order_line'] as const;
export type TraceKind = (typeof TRACE_KINDS)[number];

/**
 * Everything a lineage edge may name: the trace kinds, where a trace may start, and the sourcing records a
 * received or transferred lot came from (a green purchase contract, a sample), which traces show as nodes.
 */
export const NODE_KINDS = [...TRACE_KINDS, 'contract', 'sample'] as const;
export type NodeKind = (typeof NODE_KINDS)[number];
