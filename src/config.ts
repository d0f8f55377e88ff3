import { resolve } from 'node:path';
import { z } from 'zod';

const Env = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default('127.0.0.1'),
  FIRSTCRACK_DATA_DIR: z.string().default('./.firstcrack'),
  DATABASE_URL: z.string().url().optional(),
  /** The service's own login (not the tables' owner). Derived from DATABASE_URL when unset. */
  DATABASE_APP_URL: z.string().url().optional(),
  REDIS_URL: z.string().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl?: string;
  databaseAppUrl?: string;
  redisUrl?: string;
  logLevel: string;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = Env.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n');
    throw new Error(`Invalid configuration:\n${lines}`);
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: resolve(e.FIRSTCRACK_DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    databaseAppUrl: e.DATABASE_APP_URL ?? (e.DATABASE_URL ? appRoleUrl(e.DATABASE_URL) : undefined),
    redisUrl: e.REDIS_URL || undefined,
    logLevel: e.LOG_LEVEL,
  };
}

/** The owner's URL with the service role's name: right where the server trusts local connections. */
export function appRoleUrl(ownerUrl: string): string {
  const url = new URL(ownerUrl);
  url.username = 'firstcrack_app';
  url.password = '';
  return url.toString();
}
