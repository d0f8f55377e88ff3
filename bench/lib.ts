import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import { loadConfig, type Config } from '../src/config.js';
import { createApp, type AppOptions, type RunningApp } from '../src/app.js';
import { MODULES } from '../src/modules/index.js';
import { appRoleUrl } from '../src/config.js';
import { PgliteDatabase, PostgresDatabase } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { limitHeapGrowth } from '../src/lib/heap.js';
import { keepWorkerThreadStarted } from '../src/lib/off-thread.js';
import { checkPostOffThread } from '../src/modules/production/roast/telemetry/http.js';
import type { Databases } from '../src/db/open.js';
import { GENEROUS_WINDOWS } from '../src/testing/harness.js';
import { preparePostgresTemplate, withDatabase } from '../src/testing/template.js';

/**
 * Benchmarks run the real service on a fresh database: PostgreSQL when DATABASE_URL is set (the
 * configuration the goals are stated for), otherwise in-memory PGlite. Rate limits are raised so the
 * limiter is exercised but never refuses.
 */
export async function startBenchApp(
  options: Partial<AppOptions> = {},
  /** e.g. `{ redisUrl }` for a benchmark that measures the server-mode stores, or a scratch `dataDir`. */
  configOverrides: Partial<Config> = {},
): Promise<{ app: RunningApp; url: string; kind: string; poolSize: number; close(): Promise<void> }> {
  const base = loadConfig();
  // A server needs its secret key (sealed page cursors, encrypted secrets): a benchmark's own when none is set.
  const secretKey = base.secretKey ?? (base.databaseUrl ? randomBytes(32).toString('base64') : undefined);
  const config = { ...base, secretKey, logLevel: process.env.BENCH_LOG_LEVEL ?? 'silent', redisUrl: undefined, ...configOverrides };
  // As `firstcrack serve` runs: measured with the heap setting it ships with.
  limitHeapGrowth(config.heapGrowthPercent);
  keepWorkerThreadStarted(checkPostOffThread);
  let databases: Databases;
  let drop = async () => {};
  if (config.databaseUrl) {
    const template = await preparePostgresTemplate(config.databaseUrl);
    const name = `fc_bench_${Date.now().toString(36)}`;
    const admin = PostgresDatabase.open(config.databaseUrl, 1);
    await admin.query(`create database ${name} template ${template}`);
    // Both pools alike: a bare route reading through the owner is measured on the same footing as the service.
    const owner = PostgresDatabase.open(withDatabase(config.databaseUrl, name), config.databasePoolSize);
    const service = PostgresDatabase.open(appRoleUrl(withDatabase(config.databaseUrl, name)), config.databasePoolSize);
    databases = { owner, service, close: async () => void (await Promise.all([owner.close(), service.close()])) };
    drop = async () => {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.close();
    };
  } else {
    const db = await PgliteDatabase.open({});
    await migrate(db);
    databases = { owner: db, service: db, close: () => db.close() };
  }
  const app = await createApp(config, { modules: MODULES, rateWindows: GENEROUS_WINDOWS, ...options, databases });
  const url = await app.server.listen({ port: 0, host: '127.0.0.1' });
  return {
    app,
    url,
    kind: databases.owner.kind,
    poolSize: config.databasePoolSize,
    async close() {
      await app.close();
      await databases.close();
      await drop();
    },
  };
}

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
}

export async function load(options: autocannon.Options): Promise<LoadResult> {
  const result = await autocannon({ connections: 32, duration: 5, ...options });
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx + result.errors,
  };
}

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export function printTable(title: string, rows: Record<string, string | number>[]) {
  console.log(`\n${title}`);
  console.table(rows);
}
