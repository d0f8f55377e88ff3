import { availableParallelism } from 'node:os';
import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { openDatabases, type Databases } from './db/open.js';
import { StoredCredentialResolver, type CredentialResolver } from './auth/credentials.js';
import { API_WINDOWS, openRateLimiterFactory, type RateWindow } from './ratelimit/limiter.js';
import { buildServer, type ServerDeps } from './http/server.js';
import { FAILED_AUTH_WINDOWS, failedAuthenticationBudget } from './http/failed-auth.js';
import { createBlobStore, createServices } from './services.js';
import type { Services } from './rpc/define.js';
import type { ModuleManifest, SurfaceContext, SurfaceRuntime } from './rpc/module.js';
import { buildRegistry, type Registry } from './rpc/registry.js';
import { FILE_LINK_WINDOWS, fileRoutes } from './http/signed-files.js';
import { consolePages } from './http/console.js';
import { pino } from 'pino';
import { JobQueue, type WorkerOptions } from './jobs/queue.js';

export interface AppOptions {
  /** The modules served (src/modules/index.ts has the service's list). */
  modules: readonly ModuleManifest[];
  /** Overrides the API rate windows (tests and benchmarks that need a large budget). */
  rateWindows?: RateWindow[];
  /** Overrides the failed-authentication budget per client address (src/http/failed-auth.ts). */
  failedAuthRateWindows?: RateWindow[];
  /** Overrides the telemetry ingest windows (its own budget, per bridge token). */
  ingestRateWindows?: RateWindow[];
  /** Overrides the cafe shot channel's windows (its own budget, per bar machine token). */
  cafeIngestRateWindows?: RateWindow[];
  /** Overrides the public certificate pages' and report downloads' windows (per client address). */
  publicPageRateWindows?: RateWindow[];
  /** Open streams allowed per credential and per organization in this process (the roast module's telemetry/http.ts has the defaults). */
  streamCaps?: { perCredential: number; perOrganization: number };
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
  /** The clock tokens, sessions and signing keys are issued and judged by (tests move it). */
  clock?: () => Date;
  /** Overrides the login throttles (per account, per address). */
  loginWindows?: { account: RateWindow[]; address: RateWindow[] };
}

export interface RunningApp {
  server: FastifyInstance;
  registry: Registry;
  /** Each module's started HTTP side, by module name. */
  surfaces: ReadonlyMap<string, SurfaceRuntime>;
  databases: Databases;
  services: Services;
  jobs: JobQueue;
  close(): Promise<void>;
}

/** Wires configuration to infrastructure (embedded: PGlite, memory; server mode: PostgreSQL, Redis) and the modules to the platform. */
export async function createApp(config: Config, options: AppOptions): Promise<RunningApp> {
  const registry = buildRegistry(options.modules);
  const databases = options.databases ?? (await openDatabases(config));
  // Every budget from one factory: shared through Redis when REDIS_URL is set, per process otherwise.
  const limiters = await openRateLimiterFactory({ redisUrl: config.redisUrl });
  // Every process declares the queues, so an API-only process can send before any worker has started.
  const jobs = new JobQueue(databases, registry.jobs, config, registry.leasedWork);
  await jobs.prepare();
  const { services, close: closeServices } = createServices(config, jobs, registry);
  const rateLimiter = limiters.limiter('api', options.rateWindows ?? API_WINDOWS);
  // Windows the app was given for a budget, by the budget's name (tests and benchmarks).
  const overrides: Record<string, RateWindow[] | undefined> = {
    ingest: options.ingestRateWindows,
    cafe_ingest: options.cafeIngestRateWindows,
    public: options.publicPageRateWindows,
    downloads: options.publicPageRateWindows,
    'login-account': options.loginWindows?.account,
    'login-address': options.loginWindows?.address,
  };
  let server: RunningApp['server'] | undefined;
  const context: SurfaceContext = {
    config,
    db: databases.service,
    services,
    apiRateLimiter: rateLimiter,
    limiter: (name, windows, limiterOptions) => limiters.limiter(name, overrides[name] ?? windows, limiterOptions),
    // FIRSTCRACK_BASE_URL names the service as its clients reach it (the JWT issuer and audience); unset, the address it listens on.
    baseUrl: () => process.env.FIRSTCRACK_BASE_URL || listeningUrl(server),
    settings: { streamHeartbeatMs: options.streamHeartbeatMs, streamCaps: options.streamCaps, clock: options.clock },
  };
  const surfaces = new Map<string, SurfaceRuntime>();
  for (const m of registry.modules) if (m.surfaces) surfaces.set(m.name, await m.surfaces.start(context));
  const resolvers: CredentialResolver[] = [new StoredCredentialResolver(databases.service), ...[...surfaces.values()].flatMap((s) => s.resolvers ?? [])];
  const downloadLimiter = context.limiter('downloads', FILE_LINK_WINDOWS);
  const failedAuthLimiter = limiters.limiter('failed-auth', options.failedAuthRateWindows ?? FAILED_AUTH_WINDOWS);
  server = await buildServer({
    registry,
    db: databases.service,
    resolvers,
    rateLimiter,
    services,
    logLevel: config.logLevel,
    failedAuthentication: failedAuthenticationBudget(failedAuthLimiter),
    // As many heavy calls at once as there are cores (at least two, so one slow call does not hold up all
    // the others), and never more than the pool less a quarter, which stays with cheap calls. A heavy call
    // holds its turn from reading its body to sending its answer, so this bounds the event loop's share
    // they take, not only their connections. PGlite has one connection and runs one transaction at a time anyway.
    heavyLaneSize: databases.service.kind === 'postgres' ? Math.min(Math.max(2, availableParallelism()), poolLessAQuarter(config.databasePoolSize)) : 1,
    plugins: [
      ...[...surfaces.values()].map((surface) => (app: FastifyInstance) => surface.routes(app, resolvers)),
      fileRoutes(databases.service, services.blobs, { limiter: downloadLimiter }, [...registry.files]),
      consolePages(),
      ...(options.plugins ?? []),
    ],
  });
  if (config.databaseUrl && !config.secretKey) {
    server.log.warn('FIRSTCRACK_SECRET_KEY is not set: webhook endpoints cannot be created or delivered to until it is (the same key in every process).');
  }
  if (options.workers !== false) await jobs.startWorkers(server.log.child({ component: 'jobs' }), options.jobWorkers, { blobs: services.blobs });
  return {
    server,
    registry,
    surfaces,
    databases,
    services,
    jobs,
    async close() {
      // New requests and new jobs stop at once; running jobs get until the timeout.
      await Promise.all([jobs.stop({ timeoutMs: options.shutdownTimeoutMs }), server.close()]);
      await closeServices();
      await limiters.close();
      for (const surface of surfaces.values()) await surface.close?.();
      if (!options.databases) await databases.close();
    },
  };
}

/** The URL the server listens on (its first address), for a service started without FIRSTCRACK_BASE_URL. */
function listeningUrl(server: FastifyInstance | undefined): string {
  const address = server?.server.address();
  if (!address || typeof address === 'string') throw new Error('Set FIRSTCRACK_BASE_URL: the service is not listening on a TCP address yet.');
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

export interface RunningWorkers {
  databases: Databases;
  jobs: JobQueue;
  close(): Promise<void>;
}

/** A process that only runs jobs (`firstcrack worker`): no HTTP server, same databases and job catalog. */
export async function runWorkers(
  config: Config,
  options: { modules: readonly ModuleManifest[]; databases?: Databases; jobWorkers?: WorkerOptions; shutdownTimeoutMs?: number },
): Promise<RunningWorkers> {
  const registry = buildRegistry(options.modules);
  const databases = options.databases ?? (await openDatabases(config));
  const jobs = new JobQueue(databases, registry.jobs, config, registry.leasedWork);
  const blobs = createBlobStore(config);
  try {
    await jobs.prepare();
    await jobs.startWorkers(pino({ level: config.logLevel }).child({ component: 'jobs' }), options.jobWorkers, { blobs });
  } catch (error) {
    await blobs.close();
    if (!options.databases) await databases.close();
    throw error;
  }
  return {
    databases,
    jobs,
    async close() {
      await jobs.stop({ timeoutMs: options.shutdownTimeoutMs });
      await blobs.close();
      if (!options.databases) await databases.close();
    },
  };
}

/** The connections of a pool of `size` that heavy calls may take: all but a quarter (at least one), and at least one. */
const poolLessAQuarter = (size: number) => Math.max(1, size - Math.max(1, Math.ceil(size / 4)));
