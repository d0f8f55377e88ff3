/**
 * The kinds of thing lineage connects: each names records of the module that owns them (producers: catalog
 * party; green lots: inventory green; roast batches: production roast; roasted and blend lots: inventory
 * roast; order lines: orders; product batches: packing, known by their edges alone). A new kind is added
 * here and, when a trace should label it, in migrations/repeatable/lineage_known.sql.
 */
export const TRACE_KINDS = ['producer', 'green_lot', 'roast_batch', 'roasted_lot', 'blend_lot', 'product_batch', 'order_line'] as const;
export type TraceKind = (typeof TRACE_KINDS)[number];
