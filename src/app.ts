import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { openDatabases, type Databases } from './db/open.js';
import { StoredCredentialResolver } from './auth/credentials.js';
import { API_WINDOWS, openRateLimiterFactory, type RateWindow } from './ratelimit/limiter.js';
import { buildServer, type ServerDeps } from './http/server.js';
import { createServices } from './services.js';
import type { Services } from './rpc/define.js';
import { INGEST_WINDOWS, telemetryRoutes } from './telemetry/http.js';
import { PUBLIC_PAGE_WINDOWS, certificatePages } from './modules/traceability/public-page.js';
import { consolePages } from './http/console.js';
import { pino } from 'pino';
import { JobQueue, type WorkerOptions } from './jobs/queue.js';

export interface AppOptions {
  /** Overrides the API rate windows (tests and benchmarks that need a large budget). */
  rateWindows?: RateWindow[];
  /** Overrides the telemetry ingest windows (its own budget, per bridge token). */
  ingestRateWindows?: RateWindow[];
  /** Overrides the public certificate pages' windows (per client address). */
  publicPageRateWindows?: RateWindow[];
  /** Overrides the stream heartbeat interval (tests). */
  streamHeartbeatMs?: number;
  databases?: Databases;
  /** Extra routes mounted on the same server (benchmarks' bare baselines). */
  plugins?: ServerDeps['plugins'];
  /** Run the job workers in this process too (default); false serves the API only (`serve --no-workers`). */
  workers?: boolean;
  jobWorkers?: WorkerOptions;
  /** On close, how long running jobs get to finish (default 30 s). */
  shutdownTimeoutMs?: number;
}

export interface RunningApp {
  server: FastifyInstance;
  databases: Databases;
  services: Services;
  jobs: JobQueue;
  close(): Promise<void>;
}

/** Wires configuration to infrastructure: embedded (PGlite, memory) or server mode (PostgreSQL, Redis). */
export async function createApp(config: Config, options: AppOptions = {}): Promise<RunningApp> {
  const databases = options.databases ?? (await openDatabases(config));
  // Every budget from one factory: shared through Redis when REDIS_URL is set, per process otherwise.
  const limiters = await openRateLimiterFactory({ redisUrl: config.redisUrl });
  // Every process declares the queues, so an API-only process can send before any worker has started.
  const jobs = new JobQueue(databases);
  await jobs.prepare();
  const services = createServices(config, jobs);
  const rateLimiter = limiters.limiter('api', options.rateWindows ?? API_WINDOWS);
  const ingestRateLimiter = limiters.limiter('ingest', options.ingestRateWindows ?? INGEST_WINDOWS);
  const publicPageLimiter = limiters.limiter('public', options.publicPageRateWindows ?? PUBLIC_PAGE_WINDOWS);
  const resolvers = [new StoredCredentialResolver(databases.service)];
  const telemetry = telemetryRoutes({
    db: databases.service,
    resolvers,
    liveSessions: services.liveSessions,
    apiRateLimiter: rateLimiter,
    ingestRateLimiter,
    heartbeatMs: options.streamHeartbeatMs,
  });
  const server = await buildServer({
    db: databases.service,
    resolvers,
    rateLimiter,
    services,
    logLevel: config.logLevel,
    plugins: [telemetry, certificatePages(databases.service, { limiter: publicPageLimiter }), consolePages(), ...(options.plugins ?? [])],
  });
  if (options.workers !== false) await jobs.startWorkers(server.log.child({ component: 'jobs' }), options.jobWorkers);
  return {
    server,
    databases,
    services,
    jobs,
    async close() {
      // New requests and new jobs stop at once; running jobs get until the timeout.
      await Promise.all([jobs.stop({ timeoutMs: options.shutdownTimeoutMs }), server.close()]);
      await services.liveSessions.close();
      await services.blobs.close();
      await limiters.close();
      if (!options.databases) await databases.close();
    },
  };
}

export interface RunningWorkers {
  databases: Databases;
  jobs: JobQueue;
  close(): Promise<void>;
}

/** A process that only runs jobs (`firstcrack worker`): no HTTP server, same databases and job catalog. */
export async function runWorkers(
  config: Config,
  options: { databases?: Databases; jobWorkers?: WorkerOptions; shutdownTimeoutMs?: number } = {},
): Promise<RunningWorkers> {
  const databases = options.databases ?? (await openDatabases(config));
  const jobs = new JobQueue(databases);
  try {
    await jobs.prepare();
    await jobs.startWorkers(pino({ level: config.logLevel }).child({ component: 'jobs' }), options.jobWorkers);
  } catch (error) {
    if (!options.databases) await databases.close();
    throw error;
  }
  return {
    databases,
    jobs,
    async close() {
      await jobs.stop({ timeoutMs: options.shutdownTimeoutMs });
      if (!options.databases) await databases.close();
    },
  };
}
