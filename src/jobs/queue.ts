import { createHash, randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import PgBoss from 'pg-boss';
import type { z } from 'zod';
import { PgliteDatabase, PostgresDatabase, type Database, type Queryable } from '../db/client.js';
import type { Databases } from '../db/open.js';
import type { BlobStore } from '../blobs/store.js';
import { loadConfig, type Config } from '../config.js';
import type { JobCatalog, JobDefinition, JobLog, JobSender, SendOptions, JobContext } from './define.js';
import { startLeasedWorker, type LeasedWorkCatalog, type LeasedWorker } from './leased-work.js';

/** Created by the migration `*_jobs_queue.sql`; pg-boss never creates or migrates it itself. */
export const QUEUE_SCHEMA = 'pgboss';

export class UnknownJobError extends Error {}
export class InvalidJobPayloadError extends Error {}

export interface WorkerOptions {
  /** How often an idle worker asks for a job of each kind (pg-boss's minimum is 0.5). */
  pollingIntervalSeconds?: number;
}

export interface StopOptions {
  /** How long running jobs get to finish before they are failed (and retried later). */
  timeoutMs?: number;
}

type Payload<C extends JobCatalog, Name extends keyof C> = z.input<C[Name]['payload']>;

/**
 * The job queue (pg-boss on the application's own database). Every process can send: `send` writes the
 * job through the caller's transaction, so it exists exactly when that transaction commits. Only a
 * process that calls `startWorkers` fetches and runs jobs; any number of them may share one database,
 * and each job is claimed by one of them (FOR UPDATE SKIP LOCKED).
 *
 * pg-boss's own queries (declaring queues, fetching, completing, maintenance, cron) run on the owner
 * connection. On PGlite that is the app's single connection: each pg-boss statement waits for the
 * connection like any other query, and sending uses the open transaction rather than the connection, so
 * it never waits on itself.
 */
export class JobQueue<C extends JobCatalog = JobCatalog> implements JobSender {
  private readonly boss: PgBoss;
  /** Each definition's queue name. */
  private readonly names: Map<JobDefinition<any>, string>;
  private log: JobLog | undefined;
  private blobs: BlobStore = NO_BLOB_STORE;
  private purgeOrganizationState: ((orgId: string) => Promise<number>) | undefined;
  private modules: JobContext['modules'];
  private running = 0;
  private stopped = false;

  constructor(
    private readonly databases: Databases,
    private readonly catalog: C,
    private readonly config: Config = loadConfig(),
    /** Work leased from module tables rather than queued (leased-work.ts), run by the same workers. */
    private readonly leasedWork: LeasedWorkCatalog = {},
  ) {
    this.names = new Map(Object.entries(catalog).map(([name, definition]) => [definition, name]));
    this.boss = new PgBoss({ db: ownerExecutor(databases.owner), schema: QUEUE_SCHEMA, migrate: false });
    // pg-boss reports failures of its own background work (polling, maintenance) here; unheard, an
    // EventEmitter 'error' would crash the process.
    this.boss.on('error', (error) => (this.log ? this.log.error({ err: error }, 'job queue error') : console.error('job queue error', error)));
  }

  /**
   * Sends a job in the caller's transaction `tx`: it is stored only if that transaction commits. The name
   * must be in the catalog and the payload must satisfy the job's schema; the stored payload is the
   * schema's output.
   */
  async send<Name extends keyof C & string>(tx: Queryable, job: Name, payload: Payload<C, Name>, options: SendOptions = {}): Promise<string> {
    const definition = this.definition(job);
    const parsed = definition.payload.safeParse(payload);
    if (!parsed.success) {
      throw new InvalidJobPayloadError(`Invalid payload for job ${job}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
    }
    const id = await this.boss.send(job, parsed.data as object, {
      db: transactionExecutor(tx),
      ...(options.startAfter ? { startAfter: options.startAfter } : {}),
    });
    // pg-boss inserts by joining the queue's row: no row means the queue was never declared.
    if (!id) throw new Error(`The queue ${job} does not exist; the process must call prepare() before sending.`);
    return id;
  }

  /** As send, naming the job by its definition, which must be in the catalog. */
  sendJob<P extends z.ZodType>(tx: Queryable, job: JobDefinition<P>, payload: z.input<P>, options: SendOptions = {}): Promise<string> {
    const name = this.names.get(job);
    if (name === undefined) throw new UnknownJobError(`The job "${job.summary}" is not in the job catalog: list it in its module's manifest.`);
    return this.send(tx, name as keyof C & string, payload as Payload<C, keyof C & string>, options);
  }

  /**
   * As send, for several jobs of one kind in one statement (due now). Resolves to their ids, in order.
   */
  async sendMany<Name extends keyof C & string>(tx: Queryable, job: Name, payloads: Payload<C, Name>[]): Promise<string[]> {
    if (payloads.length === 0) return [];
    const definition = this.definition(job);
    const jobs = payloads.map((payload) => {
      const parsed = definition.payload.safeParse(payload);
      if (!parsed.success) {
        throw new InvalidJobPayloadError(`Invalid payload for job ${job}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
      }
      return { id: randomUUID(), name: job, data: parsed.data as object };
    });
    // pg-boss's insert answers nothing; the statement is asked for the ids it inserted, so that a queue
    // never declared (pg-boss inserts by joining the queue's row) fails here as it does in send.
    const inserted = new Set<string>();
    await this.boss.insert(jobs, {
      db: {
        executeSql: async (text, values = []) => {
          const rows = await tx.query<{ id: string }>(`${text} returning id`, values.map(nullIfUndefined), { name: statementName(`${text} returning id`) });
          for (const row of rows) inserted.add(row.id);
          return { rows };
        },
      },
    });
    if (jobs.some((j) => !inserted.has(j.id))) throw new Error(`The queue ${job} does not exist; the process must call prepare() before sending.`);
    return jobs.map((j) => j.id);
  }

  /**
   * Declares every queue of the catalog with its retry policy and timeout, and registers the scheduled
   * ones. Idempotent; every process runs it on start, so a job can be sent before any worker ever ran.
   * It never removes a schedule: during a rolling deploy an older process would remove a newer job's.
   */
  async prepare(): Promise<void> {
    for (const [name, definition] of Object.entries(this.catalog)) {
      const options: PgBoss.Queue = {
        name,
        policy: 'standard',
        retryLimit: definition.retry.limit,
        retryDelay: definition.retry.delaySeconds,
        retryBackoff: definition.retry.backoff,
        expireInSeconds: definition.timeoutSeconds,
      };
      // Processes starting together declare the same queues at once, and pg-boss's createQueue (a
      // partition with its indexes, one transaction) can deadlock against itself; the loser's transaction
      // rolled back whole, so it declares again.
      await retryOnDeadlock(() => this.boss.createQueue(name, options));
      await retryOnDeadlock(() => this.boss.updateQueue(name, options));
    }
    for (const [name, definition] of Object.entries(this.catalog)) {
      if (!definition.schedule) continue;
      const payload = definition.payload.parse(definition.schedule.payload) as object;
      await this.boss.schedule(name, definition.schedule.cron, payload, { tz: 'UTC' });
    }
  }

  /** Starts fetching and running jobs of every kind in the catalog and the leased work, plus pg-boss's maintenance and cron. */
  async startWorkers(
    log: JobLog,
    options: WorkerOptions = {},
    resources: { blobs?: BlobStore; purgeOrganizationState?: (orgId: string) => Promise<number>; modules?: JobContext['modules'] } = {},
  ): Promise<void> {
    this.log = log;
    if (resources.blobs) this.blobs = resources.blobs;
    if (resources.purgeOrganizationState) this.purgeOrganizationState = resources.purgeOrganizationState;
    if (resources.modules) this.modules = resources.modules;
    for (const [name, definition] of Object.entries(this.leasedWork)) {
      this.leasedWorkers.set(name, startLeasedWorker(name, definition, { databases: this.databases, config: this.config, log }));
    }
    reportUnrecordedOutcome = (error) => log.warn({ err: error }, 'a job outcome was not recorded (the job stays active and is retried once its lease expires)');
    await this.boss.start();
    for (const [name, definition] of Object.entries(this.catalog)) {
      for (let slot = 0; slot < (definition.concurrency ?? 1); slot++) {
        let workerId = '';
        workerId = await this.boss.work<object>(
          name,
          // pg-boss refuses a pollingIntervalSeconds key holding undefined.
          {
            batchSize: 1,
            includeMetadata: true,
            ...((definition.pollingIntervalSeconds ?? options.pollingIntervalSeconds) ? { pollingIntervalSeconds: definition.pollingIntervalSeconds ?? options.pollingIntervalSeconds } : {}),
          },
          async ([job]) => {
            // A worker that found a job asks again at once instead of sleeping a polling interval: it
            // sleeps only once the queue is empty.
            this.boss.notifyWorker(workerId);
            await this.run(name, definition, job, log);
          },
        );
        this.workerIds.set(name, [...(this.workerIds.get(name) ?? []), workerId]);
      }
    }
  }

  /**
   * Stops fetching at once and waits for running jobs up to the timeout; pg-boss fails the ones still
   * running then, so they are retried by another worker under their retry policy.
   */
  async stop(options: StopOptions = {}): Promise<void> {
    const timeoutMs = options.timeoutMs ?? 30_000;
    const deadline = Date.now() + timeoutMs;
    for (const worker of this.leasedWorkers.values()) worker.stopClaiming();
    await this.boss.stop({ graceful: true, wait: true, close: false, timeout: timeoutMs });
    await Promise.all([...this.leasedWorkers.values()].map((worker) => worker.finish(deadline)));
    // A fetch already on the wire when fetching stopped may still hand over one job; wait for it too.
    while (this.running > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    this.stopped = true;
  }

  /** Wakes this process's idle workers of `job` (or leased work) at once (after a commit that made some due), instead of at their next poll. */
  wake(job: string): void {
    for (const workerId of this.workerIds.get(job) ?? []) this.boss.notifyWorker(workerId);
    this.leasedWorkers.get(job)?.wake();
  }

  private readonly workerIds = new Map<string, string[]>();
  private readonly leasedWorkers = new Map<string, LeasedWorker>();

  private definition(job: string): JobDefinition {
    if (!Object.hasOwn(this.catalog, job)) throw new UnknownJobError(`No job named ${JSON.stringify(job)} in the job catalog.`);
    return this.catalog[job];
  }

  private async run(name: string, definition: JobDefinition, job: PgBoss.JobWithMetadata<object>, log: JobLog): Promise<void> {
    if (this.stopped) throw new Error('The worker has stopped; the job is retried elsewhere.');
    this.running++;
    const details = { job: name, jobId: job.id, retryCount: job.retryCount };
    try {
      const parsed = definition.payload.safeParse(job.data);
      if (!parsed.success) throw new InvalidJobPayloadError(`Stored payload of job ${name} no longer fits its schema: ${parsed.error.message}`);
      await definition.handler(
        {
          databases: this.databases,
          blobs: this.blobs,
          log,
          jobId: job.id,
          retryCount: job.retryCount,
          signal: AbortSignal.timeout(definition.timeoutSeconds * 1000),
          config: this.config,
          purgeOrganizationState: this.purgeOrganizationState,
          modules: this.modules,
          jobs: this,
        },
        parsed.data,
      );
      log.info(details, 'job done');
    } catch (error) {
      const final = job.retryCount >= job.retryLimit;
      log.error({ ...details, retryLimit: job.retryLimit, err: error }, final ? 'job failed; no retries left' : 'job failed; it will be retried');
      throw error;
    } finally {
      this.running--;
    }
  }
}

/**
 * Of `values`, those that a job of `job` still waiting, retrying or running carries in its payload's `field`
 * (on the owner's connection, which may read the queue): for a sweeper telling work whose job was spent from
 * work whose job is still coming.
 */
export async function carriedByPendingJobs(owner: Queryable, job: string, field: string, values: string[]): Promise<Set<string>> {
  if (values.length === 0) return new Set();
  const rows = await owner.query<{ value: string }>(
    `select distinct data->>$2 as value from ${QUEUE_SCHEMA}.job
     where name = $1 and state in ('created', 'retry', 'active') and data->>$2 = any($3::text[])`,
    [job, field, values],
  );
  return new Set(rows.map((r) => r.value));
}

/** A worker started without object storage: a job that needs it fails, saying so. */
const NO_BLOB_STORE: BlobStore = {
  put: async () => {
    throw new Error('This worker was started without a blob store.');
  },
  get: async () => {
    throw new Error('This worker was started without a blob store.');
  },
  deleteOrganizationObjects: async () => {
    throw new Error('This worker was started without a blob store.');
  },
  listOrganizationObjects: async () => {
    throw new Error('This worker was started without a blob store.');
  },
  close: async () => {},
};

/** pg-boss's statements run through the transaction: the job is written (or not) with everything else. */
function transactionExecutor(tx: Queryable): PgBoss.Db {
  return { executeSql: async (text, values = []) => ({ rows: await tx.query(text, values.map(nullIfUndefined), { name: statementName(text) }) }) };
}

/**
 * pg-boss's statements with parameters have fixed texts (per queue schema): named by a digest of the text,
 * PostgreSQL parses and plans each once per connection (one name, one text, as QueryOptions.name requires).
 */
const statementNames = new Map<string, string>();
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) statementNames.set(text, (name = `pgboss_${createHash('sha1').update(text).digest('hex').slice(0, 16)}`));
  return name;
}

/**
 * pg-boss's own statements on the owner connection. Some are scripts of several statements without
 * parameters (its locked maintenance), which PGlite runs with exec and PostgreSQL with the simple protocol.
 */
function ownerExecutor(db: Database): PgBoss.Db {
  if (db instanceof PostgresDatabase) {
    return {
      executeSql: async (text, values) =>
        (await (values && values.length > 0 ? db.unscoped.query({ name: statementName(text), text, values }) : db.unscoped.query(text, values))) as unknown as { rows: any[] },
    };
  }
  if (db instanceof PgliteDatabase) {
    return {
      executeSql: async (text, values) => {
        if (values && values.length > 0) return { rows: (await db.pglite.query(text, values.map(nullIfUndefined))).rows };
        const results = await db.pglite.exec(text);
        return { rows: results.at(-1)?.rows ?? [] };
      },
    };
  }
  throw new Error(`No job queue adapter for ${(db as Database).kind}`);
}

const nullIfUndefined = (value: unknown) => (value === undefined ? null : value);

/** Runs `declare` again (up to 5 times, after a short random pause) when PostgreSQL chose it as a deadlock's victim. */
async function retryOnDeadlock(declare: () => Promise<unknown>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await declare();
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== '40P01' || attempt === 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 80));
    }
  }
}

/** Where a job outcome pg-boss could not record is reported (the last queue to start workers in this process). */
let reportUnrecordedOutcome: (error: unknown) => void = (error) => console.error('job outcome not recorded', error);

/**
 * pg-boss's worker loop records a finished job's outcome (complete or fail) without waiting for it, so when the
 * database is unreachable at that moment the rejection would go unhandled and end the process. Each outcome's
 * promise is marked handled here and its failure reported; a caller that awaits it still sees the failure. The
 * job itself is safe: still active, it expires and is retried, and every job is idempotent.
 */
function reportUnrecordedJobOutcomes(): void {
  const Manager = createRequire(import.meta.url)('pg-boss/src/manager.js') as { prototype: Record<string, any> };
  for (const method of ['complete', 'fail']) {
    const record = Manager.prototype[method];
    if (record.reportsUnrecorded) continue;
    const reporting = function (this: unknown, ...args: unknown[]) {
      const outcome = record.apply(this, args);
      outcome?.catch?.((error: unknown) => reportUnrecordedOutcome(error));
      return outcome;
    };
    reporting.reportsUnrecorded = true;
    Manager.prototype[method] = reporting;
  }
}
reportUnrecordedJobOutcomes();
