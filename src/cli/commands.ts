import { ConfigError, loadConfig, type Config } from '../config.js';
import type { Databases } from '../db/open.js';
import { migrate } from '../db/migrate.js';
import {
  createOrganization,
  listApiKeys,
  listOrganizations,
  organizationExists,
  OrganizationInputError,
  renameOrganization,
  setOrganizationPlan,
  type OrganizationSummary,
} from '../auth/organizations.js';
import { ApiKeyRefusedError, createApiKey, revokeCredential } from '../auth/credentials.js';
import { PLANS, type Plan } from '../auth/plans.js';
import { ROLES, type Role } from '../auth/permissions.js';
import { CliError, UsageError, type Command, type CommandInput } from './run.js';

/**
 * Every firstcrack command, one entry each. A new command (say `worker`) is one more entry here; its
 * options, usage line and `--help` come from the entry. The database drivers and the app are imported
 * when a command runs, so `--help` and usage errors answer without loading them.
 */

export const ENVIRONMENT_HELP = `Environment: PORT (8080), HOST (127.0.0.1), FIRSTCRACK_DATA_DIR (./.firstcrack), DATABASE_URL, DATABASE_POOL_SIZE,
REDIS_URL, LOG_LEVEL, S3_BUCKET (blobs in S3-compatible storage) with S3_ENDPOINT, S3_REGION, S3_ACCESS_KEY_ID,
S3_SECRET_ACCESS_KEY, S3_FORCE_PATH_STYLE, S3_PREFIX.`;

function config(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) throw new CliError(error.message, 2);
    throw error;
  }
}

async function withDatabases<T>(work: (db: Databases) => Promise<T>): Promise<T> {
  const { openDatabases, DataDirInUseError } = await import('../db/open.js');
  let db: Databases;
  try {
    db = await openDatabases(config());
  } catch (error) {
    if (error instanceof DataDirInUseError) throw new CliError(error.message, 3);
    throw error;
  }
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

const text = (values: CommandInput['values'], name: string) => values[name] as string;

/** Checked before the database is opened, so the mistake is reported at once. */
function planValue(values: CommandInput['values'], command: Command): Plan {
  const plan = text(values, 'plan');
  if (!PLANS.includes(plan as Plan)) throw new UsageError(`--plan must be one of ${PLANS.join(', ')}`, command);
  return plan as Plan;
}

/** Input the organization and key functions refuse is the caller's mistake: one line, exit 2. */
async function refusalsAsUsage(command: Command, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (error instanceof OrganizationInputError || error instanceof ApiKeyRefusedError) throw new UsageError(error.message, command);
    throw error;
  }
}

async function requireOrganization(db: Databases, organizationId: string, command: Command): Promise<void> {
  if (!(await organizationExists(db.owner, organizationId))) throw new UsageError(`no organization ${organizationId}`, command);
}

/** Columns padded to their widest cell, a header row first. */
function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  return [header, ...rows].map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]))).join('  ').trimEnd()).join('\n');
}

const timestamp = (at: Date) => at.toISOString().replace(/\.\d{3}Z$/, 'Z');

const organizationJson = (org: OrganizationSummary) => ({ id: org.id, name: org.name, plan: org.plan, createdAt: org.createdAt.toISOString() });

const planOption = { type: 'string', value: 'P', description: `the plan: ${PLANS.join(', ')}`, required: true } as const;
const orgOption = { type: 'string', value: 'ID', description: 'the organization id (org_…)', required: true } as const;

const serve: Command = {
  path: ['serve'],
  summary: 'start the API and the job workers (embedded PGlite in FIRSTCRACK_DATA_DIR, or PostgreSQL at DATABASE_URL)',
  details:
    'On the first start with an empty database it creates an organization and prints its owner API key once. ' +
    'With --no-workers it serves the API only, and jobs run in `firstcrack worker` processes.',
  options: { 'no-workers': { type: 'boolean', description: 'serve the API only; run jobs in `firstcrack worker` processes' } },
  async run({ values }) {
    const cfg = config();
    const apiOnly = values['no-workers'] === true;
    const [{ createApp }, { DataDirInUseError }] = await Promise.all([import('../app.js'), import('../db/open.js')]);
    let app;
    try {
      app = await createApp(cfg, { workers: !apiOnly });
    } catch (error) {
      if (error instanceof DataDirInUseError) throw new CliError(error.message, 3);
      throw error;
    }
    const [{ count }] = await app.databases.owner.query<{ count: number }>(`select count(*)::int as count from organizations`);
    let first: { organizationId: string; apiKey: string } | undefined;
    if (count === 0) {
      first = await createOrganization(app.databases.owner, 'My roastery', 'enterprise');
      console.log(`\nFirstcrack created your organization "My roastery" (${first.organizationId}, enterprise plan) and its owner API key.`);
      console.log(`The key is shown only this once; store it now:\n\n  ${first.apiKey}\n`);
      console.log(`The name heads your public certificate pages. To rename the organization, stop the server and run:\n`);
      console.log(`  npx firstcrack org rename --org ${first.organizationId} --name "Your roastery"\n`);
    }
    const address = await app.server.listen({ port: cfg.port, host: cfg.host });
    if (first) {
      console.log(`Try it:\n\n  curl -s -X POST ${address}/rpc/v1/catalog.location.createLocation \\
    -H 'Authorization: Bearer ${first.apiKey}' -H 'Content-Type: application/json' \\
    -d '{"name":"Main roastery","code":"HQ","kind":"roastery"}'\n`);
    }
    console.log(
      `Firstcrack listening on ${address} (${cfg.databaseUrl ? 'PostgreSQL' : `embedded, data in ${cfg.dataDir}`}${apiOnly ? ', API only' : ''}). API reference: ${address}/docs, console: ${address}/app/`,
    );
    const stop = async () => {
      await app.close();
      process.exit(0);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  },
};

const worker: Command = {
  path: ['worker'],
  summary: 'run only the job workers (against DATABASE_URL; embedded, it holds the data directory like serve)',
  details: 'SIGTERM or SIGINT stops fetching jobs at once and gives running ones up to 30 seconds; those still running are retried.',
  async run() {
    const cfg = config();
    const [{ runWorkers }, { DataDirInUseError }] = await Promise.all([import('../app.js'), import('../db/open.js')]);
    let workers;
    try {
      workers = await runWorkers(cfg);
    } catch (error) {
      if (error instanceof DataDirInUseError) throw new CliError(error.message, 3);
      throw error;
    }
    console.log(`Firstcrack worker running jobs (${cfg.databaseUrl ? 'PostgreSQL' : `embedded, data in ${cfg.dataDir}`}).`);
    const stop = async () => {
      await workers.close();
      process.exit(0);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  },
};

const migrateCommand: Command = {
  path: ['migrate'],
  summary: 'apply pending database migrations',
  async run() {
    await withDatabases(async (db) => {
      const applied = await migrate(db.owner);
      console.log(applied.length ? `Applied ${applied.join(', ')}.` : 'The database is up to date.');
    });
  },
};

const orgCreate: Command = {
  path: ['org', 'create'],
  summary: 'create an organization and its owner API key (shown once)',
  options: {
    name: { type: 'string', value: 'N', description: 'the organization name, 1 to 200 characters', required: true },
    plan: planOption,
    json: { type: 'boolean', description: 'print {"organizationId","apiKey"} as JSON' },
  },
  async run({ values }) {
    const plan = planValue(values, this);
    await refusalsAsUsage(this, () =>
      withDatabases(async (db) => {
        const org = await createOrganization(db.owner, text(values, 'name'), plan);
        if (values.json) console.log(JSON.stringify({ organizationId: org.organizationId, apiKey: org.apiKey }));
        else console.log(`Organization ${org.organizationId} created.\nOwner API key (shown once, store it now):\n  ${org.apiKey}`);
      }),
    );
  },
};

const orgList: Command = {
  path: ['org', 'list'],
  summary: 'list the organizations',
  options: { json: { type: 'boolean', description: 'print a JSON array of {id, name, plan, createdAt}' } },
  async run({ values }) {
    const orgs = await withDatabases((db) => listOrganizations(db.owner));
    if (values.json) console.log(JSON.stringify(orgs.map(organizationJson)));
    else if (orgs.length === 0) console.log('No organizations yet.');
    else console.log(table(['ID', 'PLAN', 'CREATED', 'NAME'], orgs.map((o) => [o.id, o.plan, timestamp(o.createdAt), o.name])));
  },
};

const orgRename: Command = {
  path: ['org', 'rename'],
  summary: 'rename an organization (the name heads its public certificate pages)',
  options: {
    org: orgOption,
    name: { type: 'string', value: 'N', description: 'the new name, 1 to 200 characters', required: true },
    json: { type: 'boolean', description: 'print the organization as JSON' },
  },
  async run({ values }) {
    await refusalsAsUsage(this, () =>
      withDatabases(async (db) => {
        const org = await renameOrganization(db.owner, text(values, 'org'), text(values, 'name'));
        if (!org) throw new UsageError(`no organization ${text(values, 'org')}`, this);
        console.log(values.json ? JSON.stringify(organizationJson(org)) : `Organization ${org.id} is now named "${org.name}".`);
      }),
    );
  },
};

const orgSetPlan: Command = {
  path: ['org', 'set-plan'],
  summary: "change an organization's plan",
  options: { org: orgOption, plan: planOption, json: { type: 'boolean', description: 'print the organization as JSON' } },
  async run({ values }) {
    const plan = planValue(values, this);
    await refusalsAsUsage(this, () =>
      withDatabases(async (db) => {
        const org = await setOrganizationPlan(db.owner, text(values, 'org'), plan);
        if (!org) throw new UsageError(`no organization ${text(values, 'org')}`, this);
        console.log(values.json ? JSON.stringify(organizationJson(org)) : `Organization ${org.id} is now on the ${org.plan} plan.`);
      }),
    );
  },
};

const apikeyCreate: Command = {
  path: ['apikey', 'create'],
  summary: 'create an API key for an organization (the secret is shown once)',
  details: "A key holds its role's permissions, narrowed by its scopes when it has any; a key left no permission is refused.",
  options: {
    org: orgOption,
    role: { type: 'string', value: 'R', description: `the role: ${ROLES.join(', ')}`, required: true },
    scopes: { type: 'string', value: 'a,b', description: 'permission names or patterns, comma-separated (inventory.*, orders.read)' },
    json: { type: 'boolean', description: 'print {"id","apiKey","role","scopes"} as JSON' },
  },
  async run({ values }) {
    const role = text(values, 'role');
    if (!ROLES.includes(role as Role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`, this);
    const scopes = values.scopes ? text(values, 'scopes').split(',').map((s) => s.trim()).filter(Boolean) : [];
    await refusalsAsUsage(this, () =>
      withDatabases(async (db) => {
        await requireOrganization(db, text(values, 'org'), this);
        const key = await createApiKey(db.owner, text(values, 'org'), role as Role, scopes);
        if (values.json) console.log(JSON.stringify(key));
        else console.log(`API key ${key.id} (${key.role}${scopes.length ? `, scopes ${scopes.join(',')}` : ''}), shown once:\n  ${key.apiKey}`);
      }),
    );
  },
};

const apikeyList: Command = {
  path: ['apikey', 'list'],
  summary: "list an organization's API keys, revoked ones included (never their secrets)",
  options: { org: orgOption, json: { type: 'boolean', description: 'print a JSON array of {id, role, scopes, label, createdAt, revokedAt}' } },
  async run({ values }) {
    const keys = await withDatabases(async (db) => {
      await requireOrganization(db, text(values, 'org'), this);
      return listApiKeys(db.owner, text(values, 'org'));
    });
    if (values.json) {
      console.log(JSON.stringify(keys.map((k) => ({ ...k, createdAt: k.createdAt.toISOString(), revokedAt: k.revokedAt?.toISOString() ?? null }))));
    } else if (keys.length === 0) {
      console.log('No API keys.');
    } else {
      console.log(
        table(
          ['ID', 'ROLE', 'SCOPES', 'CREATED', 'REVOKED', 'LABEL'],
          keys.map((k) => [k.id, k.role, k.scopes.length ? k.scopes.join(',') : '(all of the role)', timestamp(k.createdAt), k.revokedAt ? timestamp(k.revokedAt) : '-', k.label ?? '']),
        ),
      );
    }
  },
};

const apikeyRevoke: Command = {
  path: ['apikey', 'revoke'],
  summary: 'revoke an API key or bridge token',
  positionals: [{ name: 'ID', description: 'the key or token id (key_…, brt_…)' }],
  async run({ positionals: [id] }) {
    await withDatabases(async (db) => {
      if (!(await revokeCredential(db.owner, id))) throw new UsageError(`no live credential ${id}`, this);
      console.log(`Revoked ${id}.`);
    });
  },
};

const replayRoastCommand: Command = {
  path: ['replay-roast'],
  summary: 'replay a roast log live: start a batch and post its samples and events through the bridge channel',
  details:
    'Reads the log with the importers (Artisan .alog/.json/.csv, IKAWA, Roest, Loring, Aillio; a Cropster .xls is read as binary), ' +
    'starts a batch on the machine with the API (production.roast.startRoastBatch) and posts the samples to ' +
    '/ingest/v1/roast/{batchId}/samples with the machine\'s bridge token as they happened, --speed times as fast, so the ' +
    'roast can be watched live in the console (/app/). Without --bridge-token a token is issued for the replay. ' +
    'The batch stays live at the end unless --complete is given. Credentials: --api-key or FIRSTCRACK_API_KEY ' +
    '(a user access token works too, with --org).',
  options: {
    file: { type: 'string', value: 'PATH', description: 'the roast log', required: true },
    machine: { type: 'string', value: 'ID', description: 'the machine (mch_…) the batch roasts on', required: true },
    speed: { type: 'string', value: 'N', description: 'how many times faster than real time, 0.1 to 1000 (default 1)' },
    url: { type: 'string', value: 'URL', description: 'the service (default http://HOST:PORT from the environment, http://127.0.0.1:8080)' },
    'api-key': { type: 'string', value: 'KEY', description: 'the API key (default FIRSTCRACK_API_KEY)' },
    org: { type: 'string', value: 'ID', description: 'the organization (X-Service-Org), for a user access token' },
    'bridge-token': { type: 'string', value: 'TOKEN', description: "the machine's bridge token (fcb_…); default: issue one" },
    'batch-number': { type: 'string', value: 'B', description: 'the batch number (default REPLAY-<time>)' },
    'charge-kg': { type: 'string', value: 'KG', description: "the charge weight (default the log's green weight, else 10)" },
    profile: { type: 'string', value: 'ID', description: 'the roast profile (prf_…)' },
    'green-lot': { type: 'string', value: 'ID', description: 'the green lot consumed (gl_…)' },
    complete: { type: 'boolean', description: 'complete the batch after the last sample' },
    'drop-kg': { type: 'string', value: 'KG', description: 'the drop weight, with --complete' },
    json: { type: 'boolean', description: 'print the result as JSON' },
  },
  async run({ values }) {
    const speed = values.speed === undefined ? 1 : Number(values.speed);
    if (!Number.isFinite(speed) || speed < 0.1 || speed > 1000) throw new UsageError('--speed must be a number from 0.1 to 1000', this);
    const token = (values['api-key'] as string | undefined) ?? process.env.FIRSTCRACK_API_KEY;
    if (!token) throw new UsageError('--api-key (or FIRSTCRACK_API_KEY) is required', this);
    const { readFileSync, existsSync } = await import('node:fs');
    const file = text(values, 'file');
    if (!existsSync(file)) throw new UsageError(`no file ${file}`, this);
    const bytes = readFileSync(file);
    // A binary Excel workbook (OLE2) goes to the importers base64-encoded; text logs as UTF-8.
    const isOle2 = bytes.subarray(0, 4).equals(Buffer.from([0xd0, 0xcf, 0x11, 0xe0]));
    const content = isOle2 ? bytes.toString('base64') : bytes.toString('utf8');
    const baseUrl = (values.url as string | undefined) ?? `http://${process.env.HOST ?? '127.0.0.1'}:${process.env.PORT ?? '8080'}`;
    const { replayRoast, ReplayError } = await import('../telemetry/replay.js');
    const { ImportError } = await import('../telemetry/importers/index.js');
    const controller = new AbortController();
    const interrupt = () => controller.abort(new CliError('interrupted; the batch stays live', 130));
    process.once('SIGINT', interrupt);
    try {
      const result = await replayRoast({
        baseUrl,
        token,
        organizationId: values.org as string | undefined,
        machineId: text(values, 'machine'),
        content,
        speed,
        bridgeToken: values['bridge-token'] as string | undefined,
        batchNumber: values['batch-number'] as string | undefined,
        chargeWeightKg: values['charge-kg'] as string | undefined,
        profileId: values.profile as string | undefined,
        greenLotId: values['green-lot'] as string | undefined,
        complete: values.complete === true,
        dropWeightKg: values['drop-kg'] as string | undefined,
        signal: controller.signal,
        onBatch: (batch) => {
          if (!values.json) console.log(`Batch ${batch.batchNumber} (${batch.id}) is live: ${baseUrl}/app/#/batches/${batch.id}`);
        },
        onProgress: (p) => {
          if (!values.json && process.stdout.isTTY) process.stdout.write(`\r${p.samplesSent}/${p.samplesTotal} samples, events: ${p.events.join(' ') || '-'}   `);
        },
      });
      if (values.json) console.log(JSON.stringify(result));
      else console.log(`${process.stdout.isTTY ? '\n' : ''}Replayed ${result.samples} samples and ${result.events} events in ${result.posts} posts${result.completed ? '; the batch is completed' : '; the batch is still live'}.`);
    } catch (error) {
      if (error instanceof ImportError) throw new UsageError(`${file}: ${error.message}`, this);
      // A refused request (bad machine, missing permission) is the caller's to fix: one line, exit 2.
      if (error instanceof ReplayError && error.status !== undefined && error.status < 500) throw new UsageError(error.message, this);
      if (error instanceof TypeError && /fetch failed/.test(error.message)) throw new CliError(`cannot reach ${baseUrl}: is the service running?`, 1);
      throw error;
    } finally {
      process.off('SIGINT', interrupt);
    }
  },
};

export const COMMANDS: Command[] = [serve, worker, migrateCommand, orgCreate, orgList, orgRename, orgSetPlan, apikeyCreate, apikeyList, apikeyRevoke, replayRoastCommand];
