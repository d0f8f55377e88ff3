import { z } from 'zod';
import type { Databases } from '../db/open.js';
import type { BlobStore } from '../blobs/store.js';
import type { Config } from '../config.js';
import type { JobSender } from './queue.js';
import { runHousekeeping } from './maintenance.js';
import { webhookDelivery } from '../modules/webhooks/delivery.js';
import type { LeasedWorkDefinition } from './leased-work.js';
import { renderReportJob } from '../modules/reporting/render.js';

/** What a job's handler may use. Jobs span organizations, so they get both connections, not a request's transaction. */
export interface JobContext {
  databases: Databases;
  /** The process's object storage (rendered reports, full curves). */
  blobs: BlobStore;
  log: JobLog;
  jobId: string;
  /** 0 on the first run, 1 on the first retry, … */
  retryCount: number;
  /** Aborted when the job's timeout has passed: the queue has then already failed the attempt. */
  signal: AbortSignal;
  /** The process's configuration (settings a job needs, such as the webhook delivery settings). */
  config: Config;
  /** Sends further jobs, in a transaction the job opens (a retry, a fan-out). */
  jobs: JobSender;
}

/** The logging a job needs; pino's and fastify's loggers both fit. */
export interface JobLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

export interface RetryPolicy {
  /** Retries after the first attempt; 0 means a failure is final. */
  limit: number;
  /** Seconds before the first retry. */
  delaySeconds: number;
  /** Doubles the delay on every further retry (with jitter, as pg-boss computes it). */
  backoff: boolean;
}

export interface JobDefinition<Payload extends z.ZodType = z.ZodType> {
  summary: string;
  payload: Payload;
  retry: RetryPolicy;
  /** An attempt running longer than this fails (and is retried under the retry policy). */
  timeoutSeconds: number;
  /** How many jobs of this kind one worker process runs at once (default 1). */
  concurrency?: number;
  /** How often an idle worker of this kind polls (seconds, at least 0.5); the worker options' value by default. */
  pollingIntervalSeconds?: number;
  /** Run on a schedule: a 5-field cron expression in UTC, with the payload every run gets. */
  schedule?: { cron: string; payload: z.input<Payload> };
  handler(ctx: JobContext, payload: z.output<Payload>): Promise<void>;
}

export const defineJob = <Payload extends z.ZodType>(definition: JobDefinition<Payload>): JobDefinition<Payload> => definition;

/**
 * Every job the service runs, by queue name. A job is sent with `ctx.enqueue(name, payload)` from an
 * operation (in the operation's transaction), and the name and payload are checked against this
 * catalog both by the compiler and at run time.
 */
export const JOBS = {
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
  'render-report': renderReportJob,
} satisfies Record<string, JobDefinition<any>>;

export type JobCatalog = Record<string, JobDefinition<any>>;

/**
 * Work leased from a module's own table rather than queued as jobs (src/jobs/leased-work.ts), by name
 * (the name `wake` takes). Webhook deliveries: the deliveries table is their queue.
 */
export const LEASED_WORK = {
  webhookDelivery,
} satisfies Record<string, LeasedWorkDefinition<any>>;

export type LeasedWorkCatalog = Record<string, LeasedWorkDefinition<any>>;
export type JobName = keyof typeof JOBS;
export type JobPayload<Name extends JobName> = z.input<(typeof JOBS)[Name]['payload']>;
