import { resolve } from 'node:path';
import { z } from 'zod';

/** An empty variable counts as unset (as `S3_BUCKET=` in an env file means "not configured"). */
const unsetIfEmpty = <T extends z.ZodType>(schema: T) => z.preprocess((value) => (value === '' ? undefined : value), schema.optional());

/** Every S3_* variable but S3_BUCKET, which turns S3-compatible storage on: none of them means anything without it. */
const S3_SETTINGS = ['S3_ENDPOINT', 'S3_REGION', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'S3_FORCE_PATH_STYLE', 'S3_PREFIX'] as const;

const POOL_SIZE_RULE = 'must be a whole number from 1 to 500';
const GRACE_DAYS_RULE = 'must be a whole number of days from 0 to 3650';
const HEAP_GROWTH_RULE = "must be a whole number from 0 (V8's own heuristics) to 300";
const STREAM_CAP_RULE = 'must be a whole number from 1 to 1000000';
const streamCap = z.coerce.number({ error: STREAM_CAP_RULE }).int(STREAM_CAP_RULE).min(1, STREAM_CAP_RULE).max(1_000_000, STREAM_CAP_RULE).optional();

const Env = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default('127.0.0.1'),
  /** The service's public address: the domain its own identifiers (EPCIS URIs) live under. */
  FIRSTCRACK_PUBLIC_URL: unsetIfEmpty(z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL, e.g. https://trace.example.com' })),
  FIRSTCRACK_DATA_DIR: z.string().default('./.firstcrack'),
  DATABASE_URL: z.string().url().optional(),
  /** The service's own login (not the tables' owner). Derived from DATABASE_URL when unset. */
  DATABASE_APP_URL: z.string().url().optional(),
  /** Connections the service keeps to PostgreSQL: about twice the database server's cores serves best. */
  DATABASE_POOL_SIZE: z.coerce.number({ error: POOL_SIZE_RULE }).int(POOL_SIZE_RULE).min(1, POOL_SIZE_RULE).max(500, POOL_SIZE_RULE).default(20),
  REDIS_URL: z.string().optional(),
  /** src/lib/heap.ts: how far the old generation may grow past its live size before a full collection. */
  FIRSTCRACK_HEAP_GROWTH_PERCENT: z.coerce
    .number({ error: HEAP_GROWTH_RULE })
    .int(HEAP_GROWTH_RULE)
    .min(0, HEAP_GROWTH_RULE)
    .max(300, HEAP_GROWTH_RULE)
    .default(30),
  /** Open event streams an API process holds per credential and per organization (src/streaming/fan-out.ts has the defaults). */
  FIRSTCRACK_STREAMS_PER_CREDENTIAL: streamCap,
  FIRSTCRACK_STREAMS_PER_ORGANIZATION: streamCap,
  /** Days an organization whose deletion an owner scheduled keeps working (and can cancel) before it is purged. */
  ORGANIZATION_DELETION_GRACE_DAYS: z.coerce
    .number({ error: GRACE_DAYS_RULE })
    .int(GRACE_DAYS_RULE)
    .min(0, GRACE_DAYS_RULE)
    .max(3650, GRACE_DAYS_RULE)
    .default(30),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  S3_BUCKET: unsetIfEmpty(
    z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be a bucket name: 3 to 63 lowercase letters, digits, dots and hyphens'),
  ),
  S3_ENDPOINT: unsetIfEmpty(z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL, e.g. http://127.0.0.1:9000' })),
  S3_REGION: unsetIfEmpty(z.string().regex(/^[a-z0-9-]+$/, 'must be a region name such as us-east-1 (Cloudflare R2: auto)')),
  S3_ACCESS_KEY_ID: unsetIfEmpty(z.string()),
  S3_SECRET_ACCESS_KEY: unsetIfEmpty(z.string()),
  S3_FORCE_PATH_STYLE: unsetIfEmpty(z.stringbool({ error: 'must be true or false' })),
  S3_PREFIX: unsetIfEmpty(z.string().refine((prefix) => !prefix.startsWith('/'), 'must not start with /')),
  FIRSTCRACK_SECRET_KEY: unsetIfEmpty(
    z.string().refine((value) => /^[A-Za-z0-9+/]{43}=$/.test(value), 'must be base64 of 32 random bytes (openssl rand -base64 32)'),
  ),
  WEBHOOK_ALLOW_PRIVATE_URLS: unsetIfEmpty(z.stringbool({ error: 'must be true or false' })),
  WEBHOOK_RETRY_SCHEDULE: unsetIfEmpty(
    z.string().regex(/^\d+(\.\d+)?(,\d+(\.\d+)?)*$/, 'must be comma-separated seconds, e.g. 0,5,300'),
  ),
});

/** Settings that only make sense together, judged on the raw variables so they are reported alongside malformed values. */
function combinationIssues(env: NodeJS.ProcessEnv): string[] {
  const isSet = (name: string) => env[name] !== undefined && env[name] !== '';
  const issues: string[] = [];
  if (!isSet('S3_BUCKET')) {
    for (const name of S3_SETTINGS.filter(isSet)) issues.push(`${name}: is set but S3_BUCKET is not; set S3_BUCKET to store blobs in S3, or unset ${name}`);
  }
  if (isSet('S3_ACCESS_KEY_ID') !== isSet('S3_SECRET_ACCESS_KEY')) {
    const missing = isSet('S3_ACCESS_KEY_ID') ? 'S3_SECRET_ACCESS_KEY' : 'S3_ACCESS_KEY_ID';
    issues.push(`${missing}: is required when the other S3 key is set (or unset both to use the default AWS credential chain)`);
  }
  return issues;
}

/** S3-compatible object storage for blobs (server mode); absent: blobs on the local filesystem. */
export interface S3Config {
  bucket: string;
  /** Unset: AWS S3 itself. */
  endpoint?: string;
  region: string;
  /** Unset: the AWS SDK's default credential chain (AWS_* environment, shared profile, instance or task role). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** Bucket in the path (http://host/bucket/key), as MinIO and most self-hosted stores need. */
  forcePathStyle: boolean;
  /** Empty, or a folder ending with '/' that every key is stored under. */
  prefix: string;
}

/** Thrown for unusable environment variables; each line names the variable. */
export class ConfigError extends Error {}

export interface Config {
  port: number;
  host: string;
  /** FIRSTCRACK_PUBLIC_URL without a trailing slash; https://firstcrack.invalid (a reserved name) when unset. */
  publicUrl: string;
  dataDir: string;
  databaseUrl?: string;
  databaseAppUrl?: string;
  databasePoolSize: number;
  redisUrl?: string;
  /** Percent the old generation may grow past what its last full collection left alive (0: V8's own); servers apply it. */
  heapGrowthPercent: number;
  logLevel: string;
  /** Open streams per credential and per organization in each API process; one left unset keeps the streaming platform's default. */
  streamCaps: { perCredential?: number; perOrganization?: number };
  s3?: S3Config;
  /** Base64 of the 32-byte key secrets are stored under (required in server mode; embedded: a key file in dataDir). */
  secretKey?: string;
  webhooks: WebhookConfig;
  /** ORGANIZATION_DELETION_GRACE_DAYS (30): how long a scheduled deletion waits before the purge. */
  organizationDeletionGraceDays: number;
}

export interface WebhookConfig {
  /** http:// and private addresses allowed (development and tests only); cloud metadata addresses never are. */
  allowPrivateUrls: boolean;
  /** Delay before each attempt, in seconds: Svix's schedule unless set (tests set a fast one). */
  retryScheduleSeconds: number[];
  /** An endpoint whose attempts have all failed for this long is disabled (5 days). */
  disableAfterMs: number;
  /** A 2xx within this time is success. */
  timeoutMs: number;
}

/** Svix's schedule: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (each with jitter). */
export const SVIX_RETRY_SCHEDULE_SECONDS = [0, 5, 300, 1800, 7200, 18000, 36000, 36000];

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = Env.safeParse(env);
  const issues = [...(parsed.error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`) ?? []), ...combinationIssues(env)];
  if (!parsed.success || issues.length > 0) throw new ConfigError(`Invalid configuration:\n${issues.map((issue) => `  ${issue}`).join('\n')}`);
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    publicUrl: (e.FIRSTCRACK_PUBLIC_URL ?? 'https://firstcrack.invalid').replace(/\/+$/, ''),
    dataDir: resolve(e.FIRSTCRACK_DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    databaseAppUrl: e.DATABASE_APP_URL ?? (e.DATABASE_URL ? appRoleUrl(e.DATABASE_URL) : undefined),
    databasePoolSize: e.DATABASE_POOL_SIZE,
    redisUrl: e.REDIS_URL || undefined,
    heapGrowthPercent: e.FIRSTCRACK_HEAP_GROWTH_PERCENT,
    logLevel: e.LOG_LEVEL,
    streamCaps: { perCredential: e.FIRSTCRACK_STREAMS_PER_CREDENTIAL, perOrganization: e.FIRSTCRACK_STREAMS_PER_ORGANIZATION },
    s3: e.S3_BUCKET
      ? {
          bucket: e.S3_BUCKET,
          endpoint: e.S3_ENDPOINT,
          region: e.S3_REGION ?? 'us-east-1',
          credentials: e.S3_ACCESS_KEY_ID && e.S3_SECRET_ACCESS_KEY ? { accessKeyId: e.S3_ACCESS_KEY_ID, secretAccessKey: e.S3_SECRET_ACCESS_KEY } : undefined,
          forcePathStyle: e.S3_FORCE_PATH_STYLE ?? false,
          prefix: e.S3_PREFIX ? e.S3_PREFIX.replace(/\/*$/, '/') : '',
        }
      : undefined,
    secretKey: e.FIRSTCRACK_SECRET_KEY,
    organizationDeletionGraceDays: e.ORGANIZATION_DELETION_GRACE_DAYS,
    webhooks: {
      allowPrivateUrls: e.WEBHOOK_ALLOW_PRIVATE_URLS ?? false,
      retryScheduleSeconds: e.WEBHOOK_RETRY_SCHEDULE ? e.WEBHOOK_RETRY_SCHEDULE.split(',').map(Number) : SVIX_RETRY_SCHEDULE_SECONDS,
      disableAfterMs: 5 * 24 * 3600 * 1000,
      timeoutMs: 15_000,
    },
  };
}

/** The owner's URL with the service role's name: right where the server trusts local connections. */
export function appRoleUrl(ownerUrl: string): string {
  const url = new URL(ownerUrl);
  url.username = 'firstcrack_app';
  url.password = '';
  return url.toString();
}
