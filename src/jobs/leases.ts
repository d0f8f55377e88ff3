import type { Queryable } from '../db/client.js';
import type { JobContext, JobLog } from './define.js';
import { carriedByPendingJobs } from './queue.js';

/**
 * Work a job holds under a lease (a report's render, an organization's export): the row names the attempt
 * holding it (a token) and until when. The attempt renews the lease while it runs, so a worker that dies
 * mid-job holds the work at most one lease; a sweeper then queues the work again, or fails it once enough
 * attempts have started, so it is never left in progress. The module keeps the SQL (its table); these are
 * the two loops every such piece of work runs the same way.
 */

/** Renews the lease every `everySeconds` until the returned function is called; a failed renewal is logged, and the lease may then run out. */
export function keepRenewing(renew: () => Promise<unknown>, everySeconds: number, log: JobLog, what: Record<string, unknown>): () => void {
  const timer = setInterval(() => {
    renew().catch((error: unknown) => log.warn({ err: error, ...what }, 'lease not renewed; the work is taken over if it runs out'));
  }, everySeconds * 1000);
  timer.unref();
  return () => clearInterval(timer);
}

export interface StalledWork {
  orgId: string;
  id: string;
  attempts: number;
  /** Queued work whose job may still be coming (sent, retrying or running) is not stalled. */
  queued: boolean;
}

export interface StalledWorkSweep {
  /** The job that does the work and the payload field naming it: queued work carried by a pending job is left alone. */
  job: string;
  payloadKey: string;
  /** Across organizations, on the owner's connection: in-progress work whose lease ran out, and queued work untouched for a while; locked (SKIP LOCKED) for this transaction, at most `limit`. */
  find(tx: Queryable, limit: number): Promise<StalledWork[]>;
  maxAttempts: number;
  /** Puts the work back in the queue and sends its job, in `tx`. */
  requeue(tx: Queryable, work: StalledWork): Promise<void>;
  /** Fails the work, saying why, in `tx`: `maxAttempts` attempts started and none finished. */
  fail(tx: Queryable, work: StalledWork): Promise<void>;
}

const SWEEP_BATCH = 100;

/** One sweep, in batches of SWEEP_BATCH, each in one transaction. Idempotent: overlapping sweeps take disjoint rows, and requeued work is no longer stalled. */
export async function sweepStalledWork(ctx: Pick<JobContext, 'databases' | 'log'>, sweep: StalledWorkSweep): Promise<{ requeued: number; failed: number }> {
  const done = { requeued: 0, failed: 0 };
  for (;;) {
    const batch = await ctx.databases.owner.transaction(async (tx) => {
      const found = await sweep.find(tx, SWEEP_BATCH);
      const coming = await carriedByPendingJobs(tx, sweep.job, sweep.payloadKey, found.filter((w) => w.queued).map((w) => w.id));
      const stalled = found.filter((w) => !coming.has(w.id));
      for (const work of stalled) {
        if (work.attempts >= sweep.maxAttempts) {
          await sweep.fail(tx, work);
          done.failed++;
        } else {
          await sweep.requeue(tx, work);
          done.requeued++;
        }
      }
      return { found: found.length, swept: stalled.length };
    });
    if (batch.found < SWEEP_BATCH || batch.swept === 0) break;
  }
  if (done.requeued + done.failed > 0) ctx.log.warn({ job: sweep.job, ...done }, 'stalled work swept');
  return done;
}
