import type { z } from 'zod';
import type { Databases } from '../db/open.js';
import type { Queryable } from '../db/client.js';
import type { BlobStore } from '../blobs/store.js';
import type { Config } from '../config.js';

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
  /** Removes an organization's live state (Services.purgeOrganizationState): the organization purge's. */
  purgeOrganizationState?(orgId: string): Promise<number>;
  /** The modules' names and the tables their manifests list: the organization export's manifest names each table's owner. */
  modules?: readonly { name: string; tables: readonly string[] }[];
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

/** Jobs by queue name: the platform's (catalog.ts) and every module's (its manifest's `jobs`). */
export type JobCatalog = Record<string, JobDefinition<any>>;

export interface SendOptions {
  /** Not run before this time. */
  startAfter?: Date;
}

/** The part of a queue an operation or a job uses: sending jobs inside its transaction (queue.ts has the rules). */
export interface JobSender {
  send(tx: Queryable, job: string, payload: unknown, options?: SendOptions): Promise<string>;
  sendMany(tx: Queryable, job: string, payloads: unknown[]): Promise<string[]>;
  /** As send, naming the job by its definition (which must be in the queue's catalog). */
  sendJob<Payload extends z.ZodType>(tx: Queryable, job: JobDefinition<Payload>, payload: z.input<Payload>, options?: SendOptions): Promise<string>;
  wake?(job: string): void;
}
