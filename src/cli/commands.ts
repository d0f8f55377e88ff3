import { ConfigError, loadConfig, type Config } from '../config.js';
import type { Databases } from '../db/open.js';
import { migrate } from '../db/migrate.js';
import { limitHeapGrowth } from '../lib/heap.js';
import {
  createOrganization,
  listApiKeys,
  listOrganizations,
  organizationExists,
  OrganizationInputError,
  renameOrganization,
  setOrganizationTimeZone,
  setOrganizationPlan,
  type OrganizationSummary,
} from '../auth/organizations.js';
import { ApiKeyRefusedError, createApiKey, revokeCredential } from '../auth/credentials.js';
import { PLANS, type Plan } from '../auth/plans.js';
import { ROLES, type Role } from '../auth/permissions.js';
import { CliError, UsageError, type Command, type CommandInput } from './run.js';
import { SecretKeyError } from '../crypto/secrets.js';

/**
 * Every firstcrack command, one entry each. A new command (say `worker`) is one more entry here; its
 * options, usage line and `--help` come from the entry. The database drivers and the app are imported
 * when a command runs, so `--help` and usage errors answer without loading them.
 */

export const ENVIRONMENT_HELP = `Environment: PORT (8080), HOST (127.0.0.1), FIRSTCRACK_DATA_DIR (./.firstcrack), DATABASE_URL, DATABASE_POOL_SIZE,
REDIS_URL, LOG_LEVEL, S3_BUCKET (blobs in S3-compatible storage) with S3_ENDPOINT, S3_REGION, S3_ACCESS_KEY_ID,
S3_SECRET_ACCESS_KEY, S3_FORCE_PATH_STYLE, S3_PREFIX, FIRSTCRACK_BASE_URL (the URL clients reach the service at: the JWT
issuer and audience), FIRSTCRACK_SECRET_KEY (32 bytes base64: encrypts webhook secrets and signing keys; required with DATABASE_URL).`;

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
    limitHeapGrowth(cfg.heapGrowthPercent);
    const apiOnly = values['no-workers'] === true;
    const [{ createApp }, { MODULES }, { DataDirInUseError }, { keepWorkerThreadStarted }, { checkPostOffThread }] = await Promise.all([
      import('../app.js'),
      import('../modules/index.js'),
      import('../db/open.js'),
      import('../lib/off-thread.js'),
      import('../modules/production/roast/telemetry/http.js'),
    ]);
    keepWorkerThreadStarted(checkPostOffThread);
    let app;
    try {
      app = await createApp(cfg, { modules: MODULES, workers: !apiOnly });
    } catch (error) {
      if (error instanceof DataDirInUseError) throw new CliError(error.message, 3);
      if (error instanceof SecretKeyError) throw new CliError(error.message, 2);
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
    limitHeapGrowth(cfg.heapGrowthPercent);
    const [{ runWorkers }, { MODULES }, { DataDirInUseError }] = await Promise.all([import('../app.js'), import('../modules/index.js'), import('../db/open.js')]);
    let workers;
    try {
      workers = await runWorkers(cfg, { modules: MODULES });
    } catch (error) {
      if (error instanceof DataDirInUseError) throw new CliError(error.message, 3);
      if (error instanceof SecretKeyError) throw new CliError(error.message, 2);
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

const orgSetTimezone: Command = {
  path: ['org', 'set-timezone'],
  summary: "set the time zone an organization's reports print times in (default UTC)",
  options: {
    org: orgOption,
    timezone: { type: 'string', value: 'TZ', description: 'an IANA time zone such as Europe/Berlin, or UTC', required: true },
  },
  async run({ values }) {
    await refusalsAsUsage(this, () =>
      withDatabases(async (db) => {
        const zone = text(values, 'timezone');
        if (!(await setOrganizationTimeZone(db.owner, text(values, 'org'), zone))) throw new UsageError(`no organization ${text(values, 'org')}`, this);
        console.log(`Organization ${text(values, 'org')} now prints times in ${zone}.`);
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
    const { replayRoast, ReplayError } = await import('../modules/production/roast/telemetry/replay.js');
    const { ImportError } = await import('../modules/production/roast/telemetry/importers/index.js');
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

const HAND_KEYS: Record<string, string> = { c: 'charge', t: 'turning_point', d: 'dry_end', f: 'first_crack_start', F: 'first_crack_end', s: 'second_crack_start', S: 'second_crack_end', x: 'drop', o: 'cool_end' };

const bridgeCommand: Command = {
  path: ['bridge'],
  summary: "read a roasting machine (Modbus TCP/RTU, MQTT or a TC4-style serial line) and post its telemetry live, journaling everything first",
  details:
    'Runs beside the roaster with the machine\'s bridge token. --config names a TOML (or .json) file: the service, the source and ' +
    'its channels (bt and et in °C or °F, any others), the batch rules, the auto-event thresholds and the journal (README "Machine bridge", ' +
    'examples/bridge/). mode "start" starts each batch itself (startRoastBatch, numbered from batch.number_pattern); mode "attach" follows ' +
    'the batch started in the console on this machine (or --batch). Charge, turning point and drop are marked automatically; on a terminal, ' +
    'keys mark events by hand: c charge, t turning point, d dry end, f/F first crack start/end, s/S second crack start/end, x drop, o cool end. ' +
    'Every reading is written to the journal before it is posted; while the service is unreachable or out of budget the bridge keeps reading ' +
    'and posts the backlog, in order and with the same seq, when it can. Restarted, it resumes the journal\'s recording. ' +
    'FIRSTCRACK_BRIDGE_TOKEN and FIRSTCRACK_API_KEY override the file\'s credentials. Exit codes: 2 a bad configuration or option, 1 the machine or service failed.',
  options: {
    config: { type: 'string', value: 'PATH', description: 'the configuration file (.toml or .json)', required: true },
    check: { type: 'boolean', description: 'read every channel once, print the values and exit (check the wiring before charging)' },
    batch: { type: 'string', value: 'ID', description: 'record into this live batch (rb_…) instead of starting or finding one' },
    once: { type: 'boolean', description: 'stop after one batch is recorded and all of it posted' },
    speed: { type: 'string', value: 'N', description: 'roast time runs N times as fast as the clock, 1 to 1000 (simulated machines only; default 1)' },
    json: { type: 'boolean', description: 'print --check readings, and each finished batch, as JSON lines; no status line' },
  },
  async run({ values }) {
    const speed = values.speed === undefined ? 1 : Number(values.speed);
    if (!Number.isFinite(speed) || speed < 1 || speed > 1000) throw new UsageError('--speed must be a number from 1 to 1000', this);
    const { loadBridgeConfig, BridgeConfigError } = await import('../bridge/config.js');
    let config;
    try {
      config = loadBridgeConfig(text(values, 'config'));
    } catch (error) {
      if (error instanceof BridgeConfigError) throw new UsageError(error.message, this);
      throw error;
    }
    const { Bridge, checkChannels } = await import('../bridge/bridge.js');
    const { statusLine, formatReadings } = await import('../bridge/status.js');
    if (values.check) {
      try {
        const { label, readings } = await checkChannels(config);
        console.log(values.json ? JSON.stringify(readings) : `${label}\n${formatReadings(config, readings)}`);
      } catch (error) {
        throw new CliError(`bridge --check: ${(error as Error).message}`, 1);
      }
      return;
    }
    if (config.batch.mode === 'attach' && !values.batch && !config.service.api_key) {
      throw new UsageError('batch.mode = "attach" finds the live batch with service.api_key (or FIRSTCRACK_API_KEY); without one, name it with --batch', this);
    }
    const abort = new AbortController();
    const stop = () => abort.abort();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    const live = process.stdout.isTTY && !values.json;
    const bridge = new Bridge({
      config,
      batchId: values.batch as string | undefined,
      once: values.once === true,
      speed,
      signal: abort.signal,
      log: (line) => console.log(live ? `\r\x1b[2K${line}` : line),
      onStatus: live ? (status) => process.stdout.write(`\r\x1b[2K${statusLine(status)}`) : undefined,
    });
    const stdin = process.stdin;
    if (stdin.isTTY) {
      stdin.setRawMode(true);
      stdin.setEncoding('utf8');
      stdin.on('data', (key: string) => {
        if (key === '\u0003') return stop();
        if (HAND_KEYS[key]) bridge.markByHand(HAND_KEYS[key]);
      });
    }
    console.log(`Bridge reading ${config.source.kind} at ${config.source.poll_hz} Hz for machine ${config.service.machine}; journal in ${config.journal.dir}.`);
    try {
      const results = await bridge.run();
      if (values.json) for (const result of results) console.log(JSON.stringify(result));
    } catch (error) {
      throw new CliError(`bridge: ${(error as Error).message}`, 1);
    } finally {
      if (stdin.isTTY) (stdin.setRawMode(false), stdin.pause());
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      if (live) process.stdout.write('\n');
    }
  },
};

// ---------------------------------------------------------------------------------------------------
// Identity: OAuth clients, signing keys, users (src/modules/identity).

const roleOption = { type: 'string', value: 'R', description: `the role: ${ROLES.join(', ')}`, required: true } as const;

function roleValue(values: CommandInput['values'], command: Command): Role {
  const role = text(values, 'role');
  if (!ROLES.includes(role as Role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`, command);
  return role as Role;
}

/** Identity's refusals (a bad scope or email, a weak password, an unknown user) are the caller's mistake: one line, exit 2. */
async function identityRefusalsAsUsage(command: Command, work: () => Promise<void>): Promise<void> {
  const { IdentityInputError } = await import('../modules/identity/service.js');
  try {
    await work();
  } catch (error) {
    if (error instanceof IdentityInputError) throw new UsageError(error.message, command);
    throw error;
  }
}

/** Where users open a one-time login link: the token rides in the fragment, so no server log or link scanner sees it. */
function loginLink(token: string): string {
  const cfg = config();
  const base = (process.env.FIRSTCRACK_BASE_URL || `http://${cfg.host}:${cfg.port}`).replace(/\/+$/, '');
  return `${base}/app/#loginToken=${token}`;
}

const oauthClientCreate: Command = {
  path: ['oauth-client', 'create'],
  summary: 'create an OAuth 2.0 client (client credentials) for an organization; the secret is shown once',
  details:
    "A client holds its role's permissions narrowed by its scopes, like an API key, and gets access tokens at POST /api/auth/oauth2/token " +
    '(HTTP Basic client_id:client_secret, grant_type=client_credentials; resource=<base URL> for a JWT, none for an opaque token).',
  options: {
    org: orgOption,
    role: roleOption,
    scopes: { type: 'string', value: 'a,b', description: 'permission names or patterns, comma-separated (inventory.*, orders.read)' },
    label: { type: 'string', value: 'L', description: 'a name to recognise the client by' },
    json: { type: 'boolean', description: 'print {"clientId","clientSecret"} as JSON' },
  },
  async run({ values }) {
    const role = roleValue(values, this);
    const scopes = values.scopes ? text(values, 'scopes').split(',').map((s) => s.trim()).filter(Boolean) : [];
    await identityRefusalsAsUsage(this, () =>
      withDatabases(async (db) => {
        await requireOrganization(db, text(values, 'org'), this);
        const { createOAuthClient } = await import('../modules/identity/service.js');
        const issued = await createOAuthClient(db.owner, text(values, 'org'), { role, scopes, label: (values.label as string | undefined) ?? null });
        if (values.json) console.log(JSON.stringify({ clientId: issued.clientId, clientSecret: issued.clientSecret }));
        else console.log(`OAuth client ${issued.clientId} (${role}${scopes.length ? `, scopes ${scopes.join(',')}` : ''}). Secret, shown once:\n  ${issued.clientSecret}`);
      }),
    );
  },
};

const oauthClientList: Command = {
  path: ['oauth-client', 'list'],
  summary: "list an organization's OAuth clients, revoked ones included (never their secrets)",
  options: { org: orgOption, json: { type: 'boolean', description: 'print a JSON array of {clientId, role, scopes, label, createdAt, revokedAt}' } },
  async run({ values }) {
    const clients = await withDatabases(async (db) => {
      await requireOrganization(db, text(values, 'org'), this);
      const { listAllOAuthClients } = await import('../modules/identity/service.js');
      return listAllOAuthClients(db.owner, text(values, 'org'));
    });
    if (values.json) console.log(JSON.stringify(clients));
    else if (clients.length === 0) console.log('No OAuth clients.');
    else {
      console.log(
        table(
          ['CLIENT ID', 'ROLE', 'SCOPES', 'CREATED', 'REVOKED', 'LABEL'],
          clients.map((c) => [c.clientId, c.role, c.scopes.length ? c.scopes.join(',') : '(all of the role)', c.createdAt.replace(/\.\d{3}Z$/, 'Z'), c.revokedAt?.replace(/\.\d{3}Z$/, 'Z') ?? '-', c.label ?? '']),
        ),
      );
    }
  },
};

const oauthClientRevoke: Command = {
  path: ['oauth-client', 'revoke'],
  summary: 'revoke an OAuth client: no new tokens; its opaque tokens stop within a second, its JWTs at their expiry (at most 1 h)',
  options: { org: orgOption },
  positionals: [{ name: 'CLIENT_ID', description: 'the client id (ocl_…)' }],
  async run({ values, positionals: [clientId] }) {
    await withDatabases(async (db) => {
      const { revokeOAuthClient } = await import('../modules/identity/service.js');
      if (!(await revokeOAuthClient(db.owner, text(values, 'org'), clientId))) throw new UsageError(`no live OAuth client ${clientId} in ${text(values, 'org')}`, this);
      console.log(`Revoked ${clientId}.`);
    });
  },
};

const keysRotate: Command = {
  path: ['keys', 'rotate'],
  summary: 'add a JWT signing key; the old ones stop signing and stay published until every token they signed has expired',
  details: 'Running API processes pick the new key up within a minute; until then they may still sign with the old one, which stays published long enough.',
  options: { json: { type: 'boolean', description: 'print {"kid","retired"} as JSON' } },
  async run({ values }) {
    const cfg = config();
    await withDatabases(async (db) => {
      const [{ Identity }, { configuredKeyEncryption, EncryptionKeyError }] = await Promise.all([import('../modules/identity/authority.js'), import('../auth/key-encryption.js')]);
      const identity = new Identity({ db: db.owner, keyEncryption: configuredKeyEncryption(cfg), baseUrl: () => '' });
      try {
        const result = await identity.rotateKeys();
        console.log(values.json ? JSON.stringify(result) : `Signing with ${result.kid} now${result.retired.length ? `; retired ${result.retired.join(', ')} (published until their tokens expire)` : ''}.`);
      } catch (error) {
        if (error instanceof EncryptionKeyError) throw new CliError(error.message, 2);
        throw error;
      }
    });
  },
};

const userCreate: Command = {
  path: ['user', 'create'],
  summary: 'create a user with a membership in an organization (a password, or a one-time login link)',
  details:
    'Users log in at POST /api/auth/login with {"email","password"} (or {"loginToken"} from a login link) and act in one of their ' +
    'organizations by naming it in X-Service-Org. Passwords are 12 to 1024 characters; without --password a one-time login link, good for 24 hours, is printed.',
  options: {
    email: { type: 'string', value: 'E', description: 'the email address (unique, case-insensitive)', required: true },
    org: orgOption,
    role: roleOption,
    password: { type: 'string', value: 'P', description: 'the password (else a one-time login link is printed)' },
    json: { type: 'boolean', description: 'print {"userId"} (with "loginLink" when no password was given) as JSON' },
  },
  async run({ values }) {
    const role = roleValue(values, this);
    await identityRefusalsAsUsage(this, () =>
      withDatabases(async (db) => {
        await requireOrganization(db, text(values, 'org'), this);
        const { createUser } = await import('../modules/identity/service.js');
        const created = await db.owner.transaction((tx) =>
          createUser(tx, { email: text(values, 'email'), orgId: text(values, 'org'), role, password: values.password as string | undefined }),
        );
        const link = created.loginToken ? loginLink(created.loginToken) : undefined;
        if (values.json) console.log(JSON.stringify(link ? { userId: created.userId, loginLink: link } : { userId: created.userId }));
        else console.log(`User ${created.userId} (${role} in ${text(values, 'org')}).${link ? `\nOne-time login link (24 hours):\n  ${link}` : ''}`);
      }),
    );
  },
};

const userAddMembership: Command = {
  path: ['user', 'add-membership'],
  summary: "add a user to another organization with a role (or change the user's role there)",
  options: { user: { type: 'string', value: 'ID', description: 'the user id (usr_…)', required: true }, org: orgOption, role: roleOption },
  async run({ values }) {
    const role = roleValue(values, this);
    await identityRefusalsAsUsage(this, () =>
      withDatabases(async (db) => {
        await requireOrganization(db, text(values, 'org'), this);
        const { addMembership } = await import('../modules/identity/service.js');
        await addMembership(db.owner, { userId: text(values, 'user'), orgId: text(values, 'org'), role });
        console.log(`User ${text(values, 'user')} is ${role} in ${text(values, 'org')}.`);
      }),
    );
  },
};

const userRemoveMembership: Command = {
  path: ['user', 'remove-membership'],
  summary: 'end a user’s membership in an organization (its sessions stop acting there, open streams included, within 2 s)',
  options: { user: { type: 'string', value: 'ID', description: 'the user id (usr_…)', required: true }, org: orgOption },
  async run({ values }) {
    await identityRefusalsAsUsage(this, () =>
      withDatabases(async (db) => {
        const { removeMembership } = await import('../modules/identity/service.js');
        await removeMembership(db.owner, { userId: text(values, 'user'), orgId: text(values, 'org') });
        console.log(`User ${text(values, 'user')} is no longer a member of ${text(values, 'org')}.`);
      }),
    );
  },
};

const userResetPassword: Command = {
  path: ['user', 'reset-password'],
  summary: "set a user's password, or clear it and print a one-time login link",
  options: {
    user: { type: 'string', value: 'ID', description: 'the user id (usr_…)', required: true },
    password: { type: 'string', value: 'P', description: 'the new password (else a one-time login link is printed)' },
    json: { type: 'boolean', description: 'print {} (or {"loginLink"}) as JSON' },
  },
  async run({ values }) {
    await identityRefusalsAsUsage(this, () =>
      withDatabases(async (db) => {
        const { resetPassword } = await import('../modules/identity/service.js');
        const result = await resetPassword(db.owner, { userId: text(values, 'user'), password: values.password as string | undefined });
        const link = result.loginToken ? loginLink(result.loginToken) : undefined;
        if (values.json) console.log(JSON.stringify(link ? { loginLink: link } : {}));
        else console.log(link ? `Password cleared. One-time login link (24 hours):\n  ${link}` : `Password of ${text(values, 'user')} changed.`);
      }),
    );
  },
};

/** A positive number option, checked before anything runs. */
function positiveNumber(values: CommandInput['values'], name: string, fallback: number, command: Command, integer = false): number {
  const given = values[name];
  if (given === undefined) return fallback;
  const n = Number(given);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) throw new UsageError(`--${name} must be a positive ${integer ? 'integer' : 'number'}`, command);
  return n;
}

const simulateBar: Command = {
  path: ['simulate-bar'],
  summary: 'post realistic espresso shots to a cafe site through the shot channel (demos, load)',
  details:
    'Against a running server: registers espresso machines SIM-1…SIM-n at the site (reused when they exist), issues each a bar ' +
    'machine token, and posts one shot per post from every group head at the given rate until --duration passes or Ctrl-C. ' +
    'With --faulty-group G, group head G of SIM-1 pulls bad shots, so getLiveBar shows it failing. The API key needs cafe.write.',
  options: {
    site: { type: 'string', value: 'ID', description: 'the cafe site (cs_…)', required: true },
    url: { type: 'string', value: 'URL', description: 'the server (default http://127.0.0.1:8080, or FIRSTCRACK_URL)' },
    key: { type: 'string', value: 'KEY', description: 'an API key with cafe.write (default FIRSTCRACK_API_KEY)' },
    machines: { type: 'string', value: 'N', description: 'espresso machines to simulate (default 3)' },
    groups: { type: 'string', value: 'N', description: 'group heads per machine, 1 to 6 (default 2)' },
    rate: { type: 'string', value: 'R', description: 'shots per minute per group head (default 2)' },
    duration: { type: 'string', value: 'S', description: 'stop after S seconds (default: run until Ctrl-C)' },
    'faulty-group': { type: 'string', value: 'G', description: 'make group head G of the first machine pull bad shots' },
  },
  async run({ values }) {
    const apiKey = (values.key as string | undefined) ?? process.env.FIRSTCRACK_API_KEY;
    if (!apiKey) throw new UsageError('--key (or FIRSTCRACK_API_KEY) is required', this);
    const groups = positiveNumber(values, 'groups', 2, this, true);
    if (groups > 6) throw new UsageError('--groups must be 1 to 6', this);
    const options = {
      baseUrl: ((values.url as string | undefined) ?? process.env.FIRSTCRACK_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, ''),
      apiKey,
      siteId: text(values, 'site'),
      machines: positiveNumber(values, 'machines', 3, this, true),
      groups,
      rate: positiveNumber(values, 'rate', 2, this),
      durationSeconds: values.duration === undefined ? undefined : positiveNumber(values, 'duration', 60, this),
      faultyGroup: values['faulty-group'] === undefined ? undefined : positiveNumber(values, 'faulty-group', 1, this, true),
    };
    const { simulateBar: simulate } = await import('../modules/cafe/simulator.js');
    const abort = new AbortController();
    process.once('SIGINT', () => abort.abort());
    console.log(`Simulating ${options.machines} machine(s) × ${groups} group head(s) at ${options.rate} shot(s)/min each on site ${options.siteId}.`);
    const report = (s: { posted: number; accepted: number; refused: number; elapsedS: number }) =>
      console.log(`${s.elapsedS.toFixed(0)} s: ${s.posted} shots posted, ${s.accepted} accepted, ${s.refused} refused`);
    try {
      report(await simulate({ ...options, signal: abort.signal, onProgress: report }));
    } catch (error) {
      throw new CliError(`simulate-bar: ${(error as Error).message}`, 1);
    }
  },
};

// ---------------------------------------------------------------------------------------------------
// Backups (src/db/backup.ts; README "Backups and restores").

const backupCommand: Command = {
  path: ['backup'],
  summary: 'write a consistent backup (database, live roast sessions, blobs) to one file while the service runs',
  details:
    'Embedded, the running server (serve or worker) makes the copy when asked over the control socket in the data directory, ' +
    'holding requests only while it copies the database files; with no server running, the command opens the data directory itself. ' +
    'Server mode: pg_dump (PostgreSQL client tools on the PATH) and the blob directory; blobs in S3 stay in the bucket. ' +
    'With --dir and --keep, the file is named firstcrack-<UTC time>.tar.gz in that folder and only the newest N are kept: run it from cron or a systemd timer. ' +
    'The file is written as <FILE>.firstcrack-<pid>-….partial and renamed once complete and on disk; a run killed mid-way leaves no complete-looking file, ' +
    'and the next run removes what it left (only runs whose process is gone).',
  options: {
    out: { type: 'string', value: 'FILE', description: 'the backup file to write (.tar.gz)' },
    dir: { type: 'string', value: 'DIR', description: 'write firstcrack-<time>.tar.gz into this folder instead' },
    keep: { type: 'string', value: 'N', description: 'with --dir: keep the newest N backups there, remove older ones' },
    json: { type: 'boolean', description: 'print {file, schemaVersion, bytes, pauseMs} as JSON' },
  },
  async run({ values }) {
    const out = values.out as string | undefined;
    const dir = values.dir as string | undefined;
    if (!out === !dir) throw new UsageError('give --out FILE or --dir DIR', this);
    const keep = values.keep === undefined ? undefined : Number(values.keep);
    if (keep !== undefined && (!dir || !Number.isInteger(keep) || keep < 1)) throw new UsageError('--keep takes a whole number from 1, with --dir', this);
    const { backup, BackupError, pruneBackups, scheduledBackupName } = await import('../db/backup.js');
    const { DataDirInUseError } = await import('../db/open.js');
    const { mkdirSync } = await import('node:fs');
    const { join } = await import('node:path');
    if (dir) mkdirSync(dir, { recursive: true });
    try {
      const result = await backup(config(), out ?? join(dir!, scheduledBackupName(new Date())));
      const removed = keep && dir ? pruneBackups(dir, keep) : [];
      if (values.json) console.log(JSON.stringify({ file: result.file, schemaVersion: result.manifest.schemaVersion, bytes: result.bytes, pauseMs: result.pauseMs, removed, cleaned: result.cleaned }));
      else {
        const pause = result.pauseMs === undefined ? '' : `; requests waited ${Math.round(result.pauseMs)} ms${result.throughServer ? ' (made by the running server)' : ''}`;
        console.log(`Backed up to ${result.file} (${result.bytes} bytes, schema ${result.manifest.schemaVersion}${pause}).${removed.length ? ` Removed ${removed.join(', ')}.` : ''}`);
        if (result.cleaned.length) console.log(`Removed what a backup killed before left: ${result.cleaned.join(', ')}.`);
      }
    } catch (error) {
      if (error instanceof BackupError) throw new CliError(error.message, 1);
      if (error instanceof DataDirInUseError) throw new CliError(error.message, 3);
      throw error;
    }
  },
};

const restoreCommand: Command = {
  path: ['restore'],
  summary: 'restore a backup into an empty data directory (embedded) or an empty database (DATABASE_URL), then migrate it forward',
  details:
    "A backup made at an older schema is migrated forward; one made by a newer Firstcrack is refused, nothing written. " +
    'Server mode needs pg_restore on the PATH.',
  options: {
    from: { type: 'string', value: 'FILE', description: 'the backup file', required: true },
    json: { type: 'boolean', description: 'print {schemaVersion, migrated} as JSON' },
  },
  async run({ values }) {
    const { restore, BackupError } = await import('../db/backup.js');
    const { DataDirInUseError } = await import('../db/open.js');
    try {
      const result = await restore(config(), text(values, 'from'));
      if (values.json) console.log(JSON.stringify({ schemaVersion: result.manifest.schemaVersion, createdAt: result.manifest.createdAt, migrated: result.migrated }));
      else console.log(`Restored the backup of ${result.manifest.createdAt} (schema ${result.manifest.schemaVersion})${result.migrated.length ? `; migrated forward: ${result.migrated.join(', ')}` : ''}.`);
    } catch (error) {
      if (error instanceof BackupError) throw new CliError(error.message, 1);
      if (error instanceof DataDirInUseError) throw new CliError(error.message, 3);
      throw error;
    }
  },
};

const orgExport: Command = {
  path: ['org', 'export'],
  summary: 'write everything an organization owns to one .tar.gz: JSON per table and its blobs (stop an embedded server first)',
  details:
    'organization.json, tables/<table>.json for every table with an org_id column (the modules\' manifests name their owners in manifest.json) ' +
    'and blobs/ (roast curves, exports, imports, reports; from the data directory or S3, as configured), read in one snapshot. ' +
    'The same archive identity.exportOrganization builds for a hosted customer.',
  options: { org: orgOption, out: { type: 'string', value: 'FILE', description: 'the archive to write (.tar.gz)', required: true } },
  async run({ values }) {
    const [{ exportOrganization }, { MODULES }, { createBlobStore }] = await Promise.all([
      import('../jobs/organization-export.js'),
      import('../modules/index.js'),
      import('../services.js'),
    ]);
    const cfg = config();
    const blobs = createBlobStore(cfg);
    try {
      await withDatabases(async (db) => {
        await requireOrganization(db, text(values, 'org'), this);
        const result = await exportOrganization(db.owner, MODULES, text(values, 'org'), text(values, 'out'), blobs);
        const rows = Object.values(result.tables).reduce((a, b) => a + b, 0);
        console.log(`Exported ${rows} rows of ${Object.keys(result.tables).length} tables and ${result.blobs} blobs to ${result.file}.`);
      });
    } finally {
      await blobs.close();
    }
  },
};

export const COMMANDS: Command[] = [
  serve, worker, migrateCommand, orgCreate, orgList, orgRename, orgSetPlan, orgSetTimezone, apikeyCreate, apikeyList, apikeyRevoke,
  oauthClientCreate, oauthClientList, oauthClientRevoke, keysRotate, userCreate, userAddMembership, userRemoveMembership, userResetPassword,
  simulateBar, replayRoastCommand, bridgeCommand, backupCommand, restoreCommand, orgExport,
];
