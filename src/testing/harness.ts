import { after } from 'node:test';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appRoleUrl, loadConfig, type Config } from '../config.js';
import { PgliteDatabase, PostgresDatabase, type Database } from '../db/client.js';
import { openDatabases, type Databases } from '../db/open.js';
import { createApp, type AppOptions, type RunningApp } from '../app.js';
import { MODULES } from '../modules/index.js';
import { createOrganization } from '../auth/organizations.js';
import { createApiKey } from '../auth/credentials.js';
import type { Plan } from '../auth/plans.js';
import type { Role } from '../auth/permissions.js';
import type { RateWindow } from '../ratelimit/limiter.js';
import { FirstcrackClient } from '../../clients/typescript/src/index.js';
import { openPgliteFromTemplate, preparePgliteTemplate, preparePostgresTemplate, withDatabase } from './template.js';

/** A budget large enough that functional tests never meet the rate limiter (which has its own tests). */
export const GENEROUS_WINDOWS: RateWindow[] = [
  { name: 'burst', points: 1_000_000, seconds: 10 },
  { name: 'sustained', points: 1_000_000, seconds: 60 },
];

export interface CallResult<T = any> {
  status: number;
  body: T;
  /** The answer's bytes as sent, decoded (the harness's calls set it). */
  text?: string;
  headers: Headers;
}

export interface CallOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  headers?: Record<string, string>;
  idempotencyKey?: string;
}

export interface TestOrg {
  id: string;
  /** The owner key. */
  key: string;
  createKey(role: Role, scopes?: string[]): Promise<string>;
  /** Calls an operation with the owner key. */
  call<T = any>(operation: string, input?: unknown, options?: CallOptions): Promise<CallResult<T>>;
  /** The typed client (clients/typescript) with the owner key: answers typed, problems thrown. */
  client: FirstcrackClient;
}

export interface TestServer {
  url: string;
  kind: 'pglite' | 'postgres';
  /** The configuration the app runs with (its data directory; in server mode, its own database's URL). */
  config: Config;
  app: RunningApp;
  /** Owner connection: for assertions that read across the organization boundary. */
  owner: Database;
  createOrg(plan?: Plan, name?: string): Promise<TestOrg>;
  call<T = any>(key: string | undefined, operation: string, input?: unknown, options?: CallOptions): Promise<CallResult<T>>;
  request(path: string, init?: RequestInit): Promise<Response>;
}

/** A fresh PostgreSQL database cloned from the migrated template; `drop` removes it. */
export async function createTestDatabase(databaseUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const template = process.env.FIRSTCRACK_TEST_PG_TEMPLATE ?? (await preparePostgresTemplate(databaseUrl));
  const name = `fc_test_${process.env.FIRSTCRACK_TEST_RUN ?? 'adhoc'}_${randomBytes(5).toString('hex')}`;
  const admin = PostgresDatabase.open(databaseUrl, 1);
  await admin.query(`create database ${name} template ${template}`);
  return {
    url: withDatabase(databaseUrl, name),
    drop: async () => {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.close();
    },
  };
}

/**
 * Starts the real service over HTTP on a fresh database cloned from the migrated template: PostgreSQL
 * when DATABASE_URL is set (and Redis when REDIS_URL is), PGlite otherwise; `config` overrides settings
 * (an S3 store, say). Closed after the file's tests.
 */
export async function startTestServer(
  options: {
    rateWindows?: RateWindow[];
    failedAuthRateWindows?: RateWindow[];
    /** The telemetry ingest budget, per bridge token. */
    ingestRateWindows?: RateWindow[];
    /** Budgets of the public pages and signed-file downloads, per client address. */
    publicPageRateWindows?: RateWindow[];
    config?: Partial<Config>;
    clock?: AppOptions['clock'];
    loginWindows?: AppOptions['loginWindows'];
    receiveTimeouts?: AppOptions['receiveTimeouts'];
    streamHeartbeatMs?: AppOptions['streamHeartbeatMs'];
    /** Server mode: the URL the service connects to in place of the test database's (a fault proxy's, src/testing/tcp-proxy.ts). */
    databaseVia?: (url: string) => string;
    /**
     * Embedded: PGlite on disk in this data directory, opened as `serve` opens it (locked, with its control
     * socket); a directory without a database starts from the migrated template. Removed after the file's tests.
     */
    onDisk?: string;
    /** Server mode: this existing database as it is (not cloned from the template, not dropped). */
    databaseUrl?: string;
  } = {},
): Promise<TestServer> {
  // Every answer, event and problem is checked against its operation's declaration (also when a file runs alone).
  process.env.FIRSTCRACK_CHECK_CONTRACT ??= '1';
  // Live sessions and blobs go to a directory of this test file's own.
  const dataDir = options.onDisk ?? mkdtempSync(join(tmpdir(), 'fc-test-'));
  const base = loadConfig();
  // Server mode needs the shared secret key; a test run makes its own.
  const secretKey = base.secretKey ?? (base.databaseUrl ? randomBytes(32).toString('base64') : undefined);
  const config = { ...base, secretKey, dataDir, logLevel: process.env.LOG_LEVEL ?? 'silent', ...options.config };
  let databases: Databases;
  let drop: () => Promise<void> = async () => {};
  if (config.databaseUrl) {
    const database = options.databaseUrl ? { url: options.databaseUrl, drop: async () => {} } : await createTestDatabase(config.databaseUrl);
    config.databaseUrl = database.url;
    config.databaseAppUrl = appRoleUrl(database.url);
    const via = options.databaseVia ?? ((url: string) => url);
    const owner = PostgresDatabase.open(via(database.url), 4);
    const service = PostgresDatabase.open(via(appRoleUrl(database.url)), 10);
    databases = { owner, service, close: async () => void (await Promise.all([owner.close(), service.close()])) };
    drop = database.drop;
  } else if (options.onDisk) {
    const pgdata = join(dataDir, 'pgdata');
    if (!existsSync(pgdata)) {
      const template = process.env.FIRSTCRACK_TEST_PGLITE_TEMPLATE ?? (await preparePgliteTemplate());
      await (await PgliteDatabase.open({ dataDir: pgdata, loadDataDir: new Blob([readFileSync(template)]) })).close();
    }
    databases = await openDatabases(config);
  } else {
    const template = process.env.FIRSTCRACK_TEST_PGLITE_TEMPLATE ?? (await preparePgliteTemplate());
    const db = await openPgliteFromTemplate(template);
    databases = { owner: db, service: db, close: () => db.close() };
  }
  const app = await createApp(config, {
    modules: MODULES,
    databases,
    rateWindows: options.rateWindows ?? GENEROUS_WINDOWS,
    failedAuthRateWindows: options.failedAuthRateWindows ?? GENEROUS_WINDOWS,
    ...(options.ingestRateWindows ? { ingestRateWindows: options.ingestRateWindows } : {}),
    publicPageRateWindows: options.publicPageRateWindows,
    clock: options.clock,
    loginWindows: options.loginWindows,
    receiveTimeouts: options.receiveTimeouts,
    streamHeartbeatMs: options.streamHeartbeatMs,
  });
  const url = await app.server.listen({ port: 0, host: '127.0.0.1' });
  after(async () => {
    await app.close();
    await databases.close();
    await drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const call = async (key: string | undefined, operation: string, input: unknown = {}, opts: CallOptions = {}): Promise<CallResult> => {
    const method = opts.method ?? 'POST';
    const headers: Record<string, string> = { ...(key ? { authorization: `Bearer ${key}` } : {}), ...opts.headers };
    if (opts.idempotencyKey) headers['idempotency-key'] = opts.idempotencyKey;
    let path = `/rpc/v1/${operation}`;
    let body: string | undefined;
    if (method === 'GET') path += `?input=${encodeURIComponent(JSON.stringify(input))}`;
    else {
      body = JSON.stringify(input);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(url + path, { method, headers, body });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined, text, headers: response.headers };
  };

  const server: TestServer = {
    url,
    config,
    kind: databases.owner.kind,
    app,
    owner: databases.owner,
    call,
    request: (path, init) => fetch(url + path, init),
    async createOrg(plan = 'enterprise', name = 'Test roastery') {
      const org = await createOrganization(databases.owner, name, plan);
      return {
        id: org.organizationId,
        key: org.apiKey,
        createKey: async (role, scopes = []) => (await createApiKey(databases.owner, org.organizationId, role, scopes)).apiKey,
        call: (operation, input, opts) => call(org.apiKey, operation, input, opts),
        client: new FirstcrackClient({ baseUrl: url, token: org.apiKey }),
      };
    },
  };
  return server;
}
