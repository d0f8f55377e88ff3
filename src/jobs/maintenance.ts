import type { Database } from '../db/client.js';

/**
 * Housekeeping that spans organizations, so it runs on the owner connection. Each task is idempotent,
 * so a retried or overlapping run is harmless. The `housekeeping` job in the catalog runs them hourly.
 */
export const MAINTENANCE_TASKS = [
  {
    name: 'expire-idempotency-records',
    /** Keys are honoured for 24 hours; afterwards the record is only a cost. */
    sql: `with expired as (delete from idempotency_records where created_at < now() - interval '24 hours' returning 1)
          select count(*)::int as deleted from expired`,
  },
] as const;

export async function runHousekeeping(owner: Database): Promise<{ task: string; deleted: number }[]> {
  const done: { task: string; deleted: number }[] = [];
  for (const task of MAINTENANCE_TASKS) {
    const [{ deleted }] = await owner.query<{ deleted: number }>(task.sql);
    done.push({ task: task.name, deleted });
  }
  return done;
}
