import type { Queryable } from './client.js';

let cursors = 0;

/**
 * The rows of one query, `rows` at a time, through a server-side cursor: the process holds one chunk, never
 * the whole answer, and between chunks the event loop serves other work. Must run inside a transaction
 * (a cursor lives until its transaction ends); all chunks then come from the transaction's snapshot. The
 * cursor is closed when the caller stops early or throws.
 */
export async function* inChunks<T>(q: Queryable, sql: string, params: unknown[], rows: number): AsyncGenerator<T[]> {
  if (!Number.isInteger(rows) || rows < 1) throw new Error(`inChunks: rows must be a positive integer, not ${rows}`);
  const name = `chunked_${++cursors}`;
  // Every row will be read: plan for all of them, not for the first tenth as a cursor's plan otherwise is
  // (which trades a fast start for nested loops that cost many times more over the whole answer).
  await q.query(`select set_config('cursor_tuple_fraction', '1', true)`);
  await q.query(`declare ${name} no scroll cursor for ${sql}`, params);
  let done = false;
  try {
    for (;;) {
      const chunk = await q.query<T>(`fetch forward ${rows} from ${name}`);
      if (chunk.length > 0) yield chunk;
      if (chunk.length < rows) break;
    }
    done = true;
  } finally {
    // A failed statement has aborted the transaction (and with it the cursor): nothing to close then.
    if (done) await q.query(`close ${name}`);
    else await q.query(`close ${name}`).catch(() => {});
  }
}
