import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { openDatabases, DataDirInUseError, type Databases } from '../db/open.js';
import { migrate } from '../db/migrate.js';
import { createApp, runWorkers } from '../app.js';
import { JOBS } from '../jobs/catalog.js';
import { createOrganization } from '../auth/organizations.js';
import { createApiKey, revokeCredential } from '../auth/credentials.js';
import { PLANS, type Plan } from '../auth/plans.js';
import { ROLES, isValidPattern, type Role } from '../auth/permissions.js';

const USAGE = `Usage: firstcrack <command>

  serve [--no-workers]                          start the API and the job workers (embedded PGlite, or DATABASE_URL);
                                                --no-workers: the API only, jobs run in \`firstcrack worker\` processes
  worker                                        run only the job workers (jobs: ${Object.keys(JOBS).join(', ')})
  migrate                                       apply pending database migrations
  org create --name N --plan P [--json]         create an organization and its owner API key
                                                plans: ${PLANS.join(', ')}
  apikey create --org ID --role R [--scopes a,b] [--json]
                                                roles: ${ROLES.join(', ')}; scopes are permission patterns (inventory.*)
  apikey revoke ID                              revoke an API key or bridge token

Environment: PORT (8080), HOST (127.0.0.1), FIRSTCRACK_DATA_DIR (./.firstcrack), DATABASE_URL, REDIS_URL, LOG_LEVEL,
S3_BUCKET (blobs in S3-compatible storage) with S3_ENDPOINT, S3_REGION, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY,
S3_FORCE_PATH_STYLE, S3_PREFIX.`;

class UsageError extends Error {}

async function main(argv: string[]): Promise<void> {
  const [command, sub] = argv;
  const config = loadConfig();
  switch (command) {
    case 'serve':
      return serve(config, argv.slice(1));
    case 'worker':
      return worker(config);
    case 'migrate':
      return withDatabases(config, async (db) => {
        const applied = await migrate(db.owner);
        console.log(applied.length ? `Applied ${applied.join(', ')}.` : 'The database is up to date.');
      });
    case 'org':
      if (sub !== 'create') break;
      return orgCreate(config, argv.slice(2));
    case 'apikey':
      if (sub === 'create') return apikeyCreate(config, argv.slice(2));
      if (sub === 'revoke') return apikeyRevoke(config, argv.slice(2));
      break;
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      console.log(USAGE);
      return;
  }
  throw new UsageError(`Unknown command: ${argv.join(' ')}`);
}

async function withDatabases(config: Config, work: (db: Databases) => Promise<void>): Promise<void> {
  const db = await openDatabases(config);
  try {
    await work(db);
  } finally {
    await db.close();
  }
}

async function orgCreate(config: Config, args: string[]) {
  const { values } = parseArgs({ args, options: { name: { type: 'string' }, plan: { type: 'string' }, json: { type: 'boolean' } } });
  if (!values.name) throw new UsageError('--name is required');
  if (!PLANS.includes(values.plan as Plan)) throw new UsageError(`--plan must be one of ${PLANS.join(', ')}`);
  await withDatabases(config, async (db) => {
    const org = await createOrganization(db.owner, values.name!, values.plan as Plan);
    if (values.json) console.log(JSON.stringify({ organizationId: org.organizationId, apiKey: org.apiKey }));
    else console.log(`Organization ${org.organizationId} created.\nOwner API key (shown once, store it now):\n  ${org.apiKey}`);
  });
}

async function apikeyCreate(config: Config, args: string[]) {
  const { values } = parseArgs({
    args,
    options: { org: { type: 'string' }, role: { type: 'string' }, scopes: { type: 'string' }, json: { type: 'boolean' } },
  });
  if (!values.org) throw new UsageError('--org is required');
  if (!ROLES.includes(values.role as Role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
  const scopes = values.scopes ? values.scopes.split(',').map((s) => s.trim()).filter(Boolean) : [];
  const bad = scopes.filter((s) => !isValidPattern(s));
  if (bad.length) throw new UsageError(`Unknown scope ${bad.join(', ')}: use permission names or patterns such as inventory.*`);
  await withDatabases(config, async (db) => {
    const [org] = await db.owner.query(`select id from organizations where id = $1`, [values.org]);
    if (!org) throw new UsageError(`No organization ${values.org}.`);
    const key = await createApiKey(db.owner, values.org!, values.role as Role, scopes);
    if (values.json) console.log(JSON.stringify(key));
    else console.log(`API key ${key.id} (${key.role}${scopes.length ? `, scopes ${scopes.join(',')}` : ''}), shown once:\n  ${key.apiKey}`);
  });
}

async function apikeyRevoke(config: Config, args: string[]) {
  const [id] = args;
  if (!id) throw new UsageError('apikey revoke needs the key id');
  await withDatabases(config, async (db) => {
    if (!(await revokeCredential(db.owner, id))) throw new UsageError(`No live credential ${id}.`);
    console.log(`Revoked ${id}.`);
  });
}

async function serve(config: Config, args: string[]) {
  const { values } = parseArgs({ args, options: { 'no-workers': { type: 'boolean' } } });
  const app = await createApp(config, { workers: !values['no-workers'] });
  const [{ count }] = await app.databases.owner.query<{ count: number }>(`select count(*)::int as count from organizations`);
  let firstKey: string | undefined;
  if (count === 0) {
    const org = await createOrganization(app.databases.owner, 'My roastery', 'enterprise');
    firstKey = org.apiKey;
    console.log(`\nFirstcrack created your organization ${org.organizationId} and its owner API key.`);
    console.log(`It is shown only this once; store it now:\n\n  ${org.apiKey}\n`);
  }
  const address = await app.server.listen({ port: config.port, host: config.host });
  if (firstKey) {
    console.log(`Try it:\n\n  curl -s -X POST ${address}/rpc/v1/catalog.location.createLocation \\
    -H 'Authorization: Bearer ${firstKey}' -H 'Content-Type: application/json' \\
    -d '{"name":"Main roastery","code":"HQ","kind":"roastery"}'\n`);
  }
  console.log(
    `Firstcrack listening on ${address} (${config.databaseUrl ? 'PostgreSQL' : `embedded, data in ${config.dataDir}`}${values['no-workers'] ? ', API only' : ''}). API reference: ${address}/docs`,
  );
  const stop = async () => {
    await app.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/** Runs jobs until SIGTERM/SIGINT, which stops fetching and gives running jobs up to 30 seconds. */
async function worker(config: Config) {
  const workers = await runWorkers(config);
  console.log(`Firstcrack worker running jobs (${config.databaseUrl ? 'PostgreSQL' : `embedded, data in ${config.dataDir}`}).`);
  const stop = async () => {
    await workers.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main(process.argv.slice(2)).catch((error) => {
  if (error instanceof UsageError) {
    console.error(`firstcrack: ${error.message}\n\n${USAGE}`);
    process.exit(2);
  }
  if (error instanceof ConfigError) {
    console.error(`firstcrack: ${error.message}`);
    process.exit(2);
  }
  if (error instanceof DataDirInUseError) {
    console.error(`firstcrack: ${error.message}`);
    process.exit(3);
  }
  console.error(error);
  process.exit(1);
});
