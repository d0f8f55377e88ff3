import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import type { Config } from './config.js';
import { openDatabases, type Databases } from './db/open.js';
import { StoredCredentialResolver } from './auth/credentials.js';
import { API_WINDOWS, RateLimiter, type RateWindow } from './ratelimit/limiter.js';
import { buildServer, type ServerDeps } from './http/server.js';
import { createServices } from './services.js';
import type { Services } from './rpc/define.js';
import { INGEST_WINDOWS, telemetryRoutes } from './telemetry/http.js';
import { certificatePages } from './modules/traceability/public-page.js';
import { startMaintenance } from './jobs/maintenance.js';

export interface AppOptions {
  /** Overrides the API rate windows (tests and benchmarks that need a large budget). */
  rateWindows?: RateWindow[];
  /** Overrides the telemetry ingest windows (its own budget, per bridge token). */
  ingestRateWindows?: RateWindow[];
  /** Overrides the stream heartbeat interval (tests). */
  streamHeartbeatMs?: number;
  databases?: Databases;
  /** Extra routes mounted on the same server (benchmarks' bare baselines). */
  plugins?: ServerDeps['plugins'];
}

export interface RunningApp {
  server: FastifyInstance;
  databases: Databases;
  services: Services;
  close(): Promise<void>;
}

/** Wires configuration to infrastructure: embedded (PGlite, memory) or server mode (PostgreSQL, Redis). */
export async function createApp(config: Config, options: AppOptions = {}): Promise<RunningApp> {
  const databases = options.databases ?? (await openDatabases(config));
  let redis: Redis | undefined;
  if (config.redisUrl) {
    redis = new Redis(config.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false, enableAutoPipelining: true });
    await redis.connect();
  }
  const services = createServices(config);
  const rateLimiter = new RateLimiter(options.rateWindows ?? API_WINDOWS, { redis, keyPrefix: 'firstcrack:rl' });
  const ingestRateLimiter = new RateLimiter(options.ingestRateWindows ?? INGEST_WINDOWS, { redis, keyPrefix: 'firstcrack:rl-ingest' });
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
    plugins: [telemetry, certificatePages(databases.service), ...(options.plugins ?? [])],
  });
  const stopMaintenance = startMaintenance(databases.owner, (task, error) => server.log.error({ err: error, task }, 'maintenance task failed'));
  return {
    server,
    databases,
    services,
    async close() {
      stopMaintenance();
      await server.close();
      await services.liveSessions.close();
      await services.blobs.close();
      redis?.disconnect();
      if (!options.databases) await databases.close();
    },
  };
}
