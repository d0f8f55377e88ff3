import { availableParallelism } from 'node:os';
import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { openDatabases, type Databases } from './db/open.js';
import { StoredCredentialResolver, type CredentialResolver } from './auth/credentials.js';
import { openRateLimiterFactory, type RateLimiter, type RateWindow } from './ratelimit/limiter.js';
import { RATE_BUDGETS, budgetWindows, type BudgetName } from './ratelimit/budgets.js';
import { buildServer, type ServerDeps } from './http/server.js';
import { failedAuthenticationBudget } from './http/failed-auth.js';
import type { SurfaceAuthenticators, SurfaceDeps } from './http/surface.js';
import { surfacesOf } from './http/surfaces.js';
import { CONSOLE_DIST } from './http/console.js';
import { createServices } from './services.js';
import type { Services } from './rpc/define.js';
import type { ModuleContext, ModuleManifest, ModuleRuntime } from './rpc/module.js';
import { buildRegistry, type Registry } from './rpc/registry.js';
import { streamTicket } from './streaming/tickets.js';
import type { StreamCaps } from './streaming/fan-out.js';
import { pino } from 'pino';
import { JobQueue, type WorkerOptions } from './jobs/queue.js';
import { loadSecretKey } from './crypto/secrets.js';

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
  /** Open streams allowed per credential and per organization in this process, over the configuration's (src/streaming/fan-out.ts has the defaults). */
  streamCaps?: StreamCaps;
  /** Overrides how long a client may take to send a request (src/http/slow-clients.ts; tests). */
  receiveTimeouts?: ServerDeps['receiveTimeouts'];
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
  /** Each started module (its manifest's `start`), by module name. */
  modules: ReadonlyMap<string, ModuleRuntime>;
  databases: Databases;
  services: Services;
  jobs: JobQueue;
  close(): Promise<void>;
}

/** Wires configuration to infrastructure (embedded: PGlite, memory; server mode: PostgreSQL, Redis) and the modules to the platform. */
export async function createApp(config: Config, options: AppOptions): Promise<RunningApp> {
  // Page cursors are sealed, and webhook secrets and signing keys encrypted, under the secret key: a server
  // without it (or with a malformed one) could not page a list, so it does not start. Embedded, the data
  // directory's key is made on first use, once the directory is this process's.
  if (config.databaseUrl) loadSecretKey(config);
  const registry = buildRegistry(options.modules);
  const databases = options.databases ?? (await openDatabases(config));
  // Every budget from one factory: shared through Redis when REDIS_URL is set, per process otherwise.
  const limiters = await openRateLimiterFactory({ redisUrl: config.redisUrl });
  // Every process declares the queues, so an API-only process can send before any worker has started.
  const jobs = new JobQueue(databases, registry.jobs, config, registry.leasedWork);
  await jobs.prepare();
  const { services, close: closeServices } = createServices(config, jobs, registry);
  // One limiter per budget of the table (src/ratelimit/budgets.ts), with the windows the options override.
  const windowOverrides: Partial<Record<BudgetName, RateWindow[]>> = {
    api: options.rateWindows,
    ingest: options.ingestRateWindows,
    cafe_ingest: options.cafeIngestRateWindows,
    public_pages: options.publicPageRateWindows,
    file_links: options.publicPageRateWindows,
    failed_auth: options.failedAuthRateWindows,
    login_account: options.loginWindows?.account,
    login_address: options.loginWindows?.address,
  };
  const budgets = new Map<BudgetName, RateLimiter>();
  const limiterOf = (budget: BudgetName): RateLimiter => {
    let limiter = budgets.get(budget);
    if (!limiter) {
      const leased = 'leased' in RATE_BUDGETS[budget];
      limiter = limiters.limiter(budget, windowOverrides[budget] ?? budgetWindows(budget), leased ? { leased } : undefined);
      budgets.set(budget, limiter);
    }
    return limiter;
  };
  let server: RunningApp['server'] | undefined;
  // Every credential resolver: the API keys' and those the modules add as they start (complete before any request).
  const storedCredentials = new StoredCredentialResolver(databases.service);
  const resolvers: CredentialResolver[] = [storedCredentials];
  const context: ModuleContext = {
    config,
    db: databases.service,
    services,
    resolvers,
    baseUrl: () => process.env.FIRSTCRACK_BASE_URL || listeningUrl(server),
    settings: { streamHeartbeatMs: options.streamHeartbeatMs, streamCaps: { ...config.streamCaps, ...options.streamCaps }, clock: options.clock },
  };
  const surfaces = surfacesOf(registry);
  const started = new Map<string, ModuleRuntime>();
  const moduleDeps: Partial<SurfaceDeps>[] = [];
  const authenticators: SurfaceAuthenticators = { stream_ticket: streamTicket(databases.service, resolvers) };
  for (const m of registry.modules) {
    if (!m.start) continue;
    const runtime = await m.start(context);
    started.set(m.name, runtime);
    resolvers.push(...(runtime.resolvers ?? []));
    moduleDeps.push(runtime.deps ?? {});
    Object.assign(authenticators, runtime.authenticators);
  }
  // What the modules' declarations of SurfaceDeps add is theirs to give: a module left out of the app leaves its surfaces out too.
  const deps = Object.assign({ db: databases.service, services, surfaces, registry, consoleDist: CONSOLE_DIST }, ...moduleDeps) as SurfaceDeps;
  server = await buildServer({
    registry,
    db: databases.service,
    resolvers,
    rateLimiter: limiterOf('api'),
    services,
    logLevel: config.logLevel,
    failedAuthentication: failedAuthenticationBudget(limiterOf('failed_auth')),
    receiveTimeouts: options.receiveTimeouts,
    // As many heavy calls at once as there are cores (at least two, so one slow call does not hold up all
    // the others), and never more than the pool less a quarter, which stays with cheap calls. A heavy call
    // holds its turn from reading its body to sending its answer, so this bounds the event loop's share
    // they take, not only their connections. PGlite has one connection and runs one transaction at a time anyway.
    heavyLaneSize: databases.service.kind === 'postgres' ? Math.min(Math.max(2, availableParallelism()), poolLessAQuarter(config.databasePoolSize)) : 1,
    // List exports each hold a connection while they stream (one snapshot transaction on PostgreSQL): a
    // quarter of the pool at most, and at most as many as there are cores (each is a core's work while the
    // client keeps up). PGlite's one connection is shared page by page (Dispatcher.exportPages).
    exportLaneSize: databases.service.kind === 'postgres' ? Math.max(1, Math.min(Math.max(2, availableParallelism()), Math.floor(config.databasePoolSize / 4))) : 1,
    surfaces: { list: surfaces, mount: { deps, resolvers, authenticators, limiter: limiterOf } },
    plugins: [
      // Before the server waits for open requests: a module's open streams would hold it open forever;
      // ending them lets watchers reconnect to another process.
      (app) => void app.addHook('preClose', async () => {
        for (const runtime of started.values()) await runtime.close?.();
      }),
      ...(options.plugins ?? []),
    ],
  });
  if (options.workers !== false) await jobs.startWorkers(server.log.child({ component: 'jobs' }), options.jobWorkers, {
      blobs: services.blobs,
      purgeOrganizationState: services.purgeOrganizationState,
      modules: registry.modules,
    });
  return {
    server,
    registry,
    modules: started,
    databases,
    services,
    jobs,
    async close() {
      // New requests and new jobs stop at once; running jobs get until the timeout.
      await Promise.all([jobs.stop({ timeoutMs: options.shutdownTimeoutMs }), server.close()]);
      storedCredentials.dispose();
      await closeServices();
      await limiters.close();
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
  // The modules' services too (their live stores), for the organization purge's live state.
  const { services, close: closeServices } = createServices(config, jobs, registry);
  try {
    await jobs.prepare();
    await jobs.startWorkers(pino({ level: config.logLevel }).child({ component: 'jobs' }), options.jobWorkers, {
      blobs: services.blobs,
      purgeOrganizationState: services.purgeOrganizationState,
      modules: registry.modules,
    });
  } catch (error) {
    await closeServices();
    if (!options.databases) await databases.close();
    throw error;
  }
  return {
    databases,
    jobs,
    async close() {
      await jobs.stop({ timeoutMs: options.shutdownTimeoutMs });
      await closeServices();
      if (!options.databases) await databases.close();
    },
  };
}

/** The connections of a pool of `size` that heavy calls may take: all but a quarter (at least one), and at least one. */
const poolLessAQuarter = (size: number) => Math.max(1, size - Math.max(1, Math.ceil(size / 4)));
