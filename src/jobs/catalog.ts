import { z } from 'zod';
import { runHousekeeping } from './maintenance.js';
import { defineJob, type JobCatalog } from './define.js';
import { organizationPurgeJob } from './organization-purge.js';

/**
 * The platform's own jobs, by queue name. The queue's catalog is these and every module's (its manifest's
 * `jobs`); an operation sends one with `ctx.enqueue(definition, payload)` in its own transaction, the
 * payload typed by the definition and checked against its schema at run time.
 */
export const PLATFORM_JOBS = {
  housekeeping: defineJob({
    summary: 'Deletes what has outlived its use across all organizations (expired idempotency records). Idempotent.',
    payload: z.object({}).strict(),
    retry: { limit: 3, delaySeconds: 60, backoff: true },
    timeoutSeconds: 10 * 60,
    schedule: { cron: '0 * * * *', payload: {} },
    handler: async (ctx) => {
      for (const task of await runHousekeeping(ctx.databases.owner)) ctx.log.info(task, 'housekeeping task done');
    },
  }),
  'organization-purge': organizationPurgeJob,
} satisfies JobCatalog;
