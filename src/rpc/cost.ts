import type { Operation } from './define.js';
import { MAX_PAGE_LIMIT } from './schemas.js';

/**
 * What a request costs: the rate-limit points it draws and whether it runs in the heavy lane. Cheap reads
 * and writes cost 1 point. A request costs more, and is heavy, when
 *   - its operation declares a cost (a trace walks the lineage graph: 5; a report renders a snapshot: 10), or
 *   - it asks for a page of more than 100 items: 1 point per 100 items (a 200-item page: 2), or
 *   - its input is larger than 32 KiB: 1 point per 32 KiB (a 500-line order of ~38 kB: 2; an 840 kB logger
 *     import: 27; the largest body taken, 1 MiB: 32, within the 60-point burst window).
 * The greatest of these counts. A page size past the cap (200) or a body announced past 1 MiB is refused before
 * it is priced (400, 413), so a request whose input is valid always fits the burst window. What is known before the body is read (the operation's cost, the input's
 * declared size, a GET's page) is drawn then, so a request refused for its cost is never parsed; a POST's
 * page size draws the rest once the body is read. The RateLimit header of the answer shows the budget after
 * it, and RateLimit-Cost what the request cost.
 */
export const PAGE_ITEMS_PER_POINT = 100;
export const INPUT_BYTES_PER_POINT = 32 * 1024;

export function requestCost(operation: Operation, input: unknown, inputBytes: number): number {
  const limit = (input as { page?: { limit?: unknown } } | null)?.page?.limit;
  // A page size past the schema's cap is priced as nothing: validation refuses it (400), it is never a 429.
  const pagePoints = typeof limit === 'number' && limit > PAGE_ITEMS_PER_POINT && limit <= MAX_PAGE_LIMIT ? Math.ceil(limit / PAGE_ITEMS_PER_POINT) : 1;
  const inputPoints = Math.ceil(inputBytes / INPUT_BYTES_PER_POINT);
  return Math.max(operation.cost ?? 1, pagePoints, inputPoints, 1);
}
