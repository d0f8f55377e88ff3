import type { Database } from '../db/client.js';

/**
 * Housekeeping that spans organizations, so it runs on the owner connection. Every task is idempotent,
 * so several API processes running it at once is harmless.
 */
export const MAINTENANCE_TASKS = [
  {
    name: 'expire-idempotency-records',
    everyMs: 60 * 60 * 1000,
    /** Keys are honoured for 24 hours; afterwards the record is only a cost. */
    sql: `delete from idempotency_records where created_at < now() - interval '24 hours'`,
  },
] as const;

/** Starts the periodic tasks; the returned function stops them. Timers never keep the process alive. */
export function startMaintenance(owner: Database, onError: (task: string, error: unknown) => void): () => void {
  const timers = MAINTENANCE_TASKS.map((task) => {
    const timer = setInterval(() => owner.query(task.sql).catch((error) => onError(task.name, error)), task.everyMs);
    timer.unref();
    return timer;
  });
  return () => timers.forEach(clearInterval);
}
