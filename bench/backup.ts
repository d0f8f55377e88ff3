// Backup and restore at scale (README "Backups and restores"): an organization with BACKUP_BENCH_LOTS green
// lots (default 100,000) of 50 ledger rows each (5,000,000), bulk-loaded with generate_series exactly as the
// service writes them (a 1000 kg receive, 48 transfers between two sites, a 1 kg adjustment; totals and
// balances equal to the sums). Measures: the backup's time and size, the longest answer of a request loop
// running during the backup against the same loop before it (the pause a backup causes), the restore's time
// into a new empty database or data directory (pg_restore or unpacking, then migrations), and the time the
// restored service takes to start answering. PostgreSQL with DATABASE_URL, else embedded PGlite on disk.
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node --import tsx bench/backup.ts
//   BACKUP_BENCH_LOTS=20000 node --import tsx bench/backup.ts      (embedded, smaller)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { appRoleUrl, loadConfig, type Config } from '../src/config.js';
import { PgliteDatabase, PostgresDatabase, type Database } from '../src/db/client.js';
import { openDatabases, type Databases } from '../src/db/open.js';
import { backup, restore } from '../src/db/backup.js';
import { createApp } from '../src/app.js';
import { MODULES } from '../src/modules/index.js';
import { createOrganization } from '../src/auth/organizations.js';
import { ledgerInvariantViolations } from '../src/modules/inventory/green/invariants.js';
import { GENEROUS_WINDOWS } from '../src/testing/harness.js';
import { preparePgliteTemplate, preparePostgresTemplate, withDatabase } from '../src/testing/template.js';
import { readFileSync } from 'node:fs';

const LOTS = Number(process.env.BACKUP_BENCH_LOTS ?? 100_000);
const ROWS_PER_LOT = 50;
const work = mkdtempSync(join(tmpdir(), 'fc-bench-backup-'));
const base = loadConfig();
const config: Config = { ...base, secretKey: base.secretKey ?? randomBytes(32).toString('base64'), dataDir: join(work, 'source'), logLevel: 'silent', redisUrl: undefined };
const cleanups: (() => Promise<void>)[] = [];
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

let databases: Databases;
if (base.databaseUrl) {
  const template = await preparePostgresTemplate(base.databaseUrl);
  const name = `fc_bench_backup_${Date.now().toString(36)}`;
  const admin = PostgresDatabase.open(base.databaseUrl, 1);
  await admin.query(`create database ${name} template ${template}`);
  cleanups.push(async () => {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.close();
  });
  config.databaseUrl = withDatabase(base.databaseUrl, name);
  config.databaseAppUrl = appRoleUrl(config.databaseUrl);
  databases = await openDatabases(config);
} else {
  const template = await preparePgliteTemplate();
  await (await PgliteDatabase.open({ dataDir: join(config.dataDir, 'pgdata'), loadDataDir: new Blob([readFileSync(template)]) })).close();
  databases = await openDatabases(config);
}
const owner = databases.owner;
const org = await createOrganization(owner, 'Bench roastery', 'enterprise');
console.log(`${owner.kind}: loading ${LOTS} lots, ${LOTS * ROWS_PER_LOT} ledger rows…`);
let started = performance.now();
await bulkLoad(owner, org.organizationId);
console.log(`loaded in ${seconds(performance.now() - started)}`);
const app = await createApp(config, { modules: MODULES, databases, rateWindows: GENEROUS_WINDOWS });
const url = await app.server.listen({ port: 0, host: '127.0.0.1' });

/** One client in a loop, a read and a write in turn, until stopped: the longest answer. */
async function requestLoop(stop: AbortSignal): Promise<{ count: number; maxMs: number; p50: number }> {
  const times: number[] = [];
  for (let i = 0; !stop.aborted; i++) {
    const t = performance.now();
    const op = i % 2 ? 'catalog.location.listLocations' : 'catalog.location.createLocation';
    const body = i % 2 ? {} : { name: `Shelf ${i}`, code: `B${i}-${randomBytes(3).toString('hex')}`, kind: 'warehouse' };
    const res = await fetch(`${url}/rpc/v1/${op}`, { method: 'POST', headers: { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${op}: ${res.status}`);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { count: times.length, maxMs: times.at(-1) ?? 0, p50: times[Math.floor(times.length / 2)] ?? 0 };
}

async function during<T>(work: () => Promise<T>): Promise<[T, Awaited<ReturnType<typeof requestLoop>>]> {
  const stop = new AbortController();
  const loop = requestLoop(stop.signal);
  try {
    return [await work(), await (stop.abort(), loop)];
  } finally {
    stop.abort();
  }
}

const [, quiet] = await during(() => new Promise((resolve) => setTimeout(resolve, 5000)));
const file = join(work, 'backup.tar.gz');
started = performance.now();
const [made, loaded] = await during(() => backup(config, file));
const backupMs = performance.now() - started;
await app.close();
await databases.close();

// Restore into a new, empty database or data directory, then start the service on it.
const target: Config = { ...config, dataDir: join(work, 'restored') };
if (base.databaseUrl) {
  const name = `fc_bench_restore_${Date.now().toString(36)}`;
  const admin = PostgresDatabase.open(base.databaseUrl, 1);
  await admin.query(`create database ${name}`);
  cleanups.push(async () => {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.close();
  });
  target.databaseUrl = withDatabase(base.databaseUrl, name);
  target.databaseAppUrl = appRoleUrl(target.databaseUrl);
}
started = performance.now();
await restore(target, file);
const restoreMs = performance.now() - started;
started = performance.now();
const restored = await createApp(target, { modules: MODULES, rateWindows: GENEROUS_WINDOWS });
const restoredUrl = await restored.server.listen({ port: 0, host: '127.0.0.1' });
const answer = await fetch(`${restoredUrl}/rpc/v1/inventory.green.listGreenLots`, { method: 'POST', headers: { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' }, body: '{}' });
const startMs = performance.now() - started;
if (answer.status !== 200) throw new Error(`restored service answered ${answer.status}`);
const [{ n }] = await restored.databases.owner.query<{ n: number }>(`select count(*)::int as n from green_lot_ledger where org_id = $1`, [org.organizationId]);
const violations = await ledgerInvariantViolations(restored.databases.owner, org.organizationId);
await restored.close();

console.log(`\n${owner.kind}, ${LOTS} lots, ${LOTS * ROWS_PER_LOT} ledger rows (restored: ${n}; invariants ${violations.length ? 'VIOLATED' : 'hold'})`);
console.log(`backup:   ${seconds(backupMs)}, ${(made.bytes / 1e6).toFixed(1)} MB${made.pauseMs !== undefined ? `, statements held ${made.pauseMs.toFixed(0)} ms for the instant's copy (${(made.copiedAtInstantBytes! / 1e6).toFixed(1)} MB)` : ''}`);
console.log(`requests: before the backup ${quiet.count} answers, median ${quiet.p50.toFixed(1)} ms, longest ${quiet.maxMs.toFixed(0)} ms; during it ${loaded.count}, median ${loaded.p50.toFixed(1)} ms, longest ${loaded.maxMs.toFixed(0)} ms`);
console.log(`restore:  ${seconds(restoreMs)} (into an empty ${base.databaseUrl ? 'database' : 'data directory'}, migrations included); service answering ${seconds(startMs)} after`);
console.log(`recovery: ${seconds(restoreMs + startMs)} from the backup file to the first answer`);
for (const cleanup of cleanups) await cleanup();
rmSync(work, { recursive: true, force: true });

async function bulkLoad(db: Database, orgId: string): Promise<void> {
  const [a, b] = ['loc_benchsitea000000000000000', 'loc_benchsiteb000000000000000'];
  await db.query(`insert into locations (org_id, id, name, code, kind) values ($1, $2, 'Site A', 'A', 'warehouse'), ($1, $3, 'Site B', 'B', 'warehouse')`, [orgId, a, b]);
  const chunk = 10_000;
  for (let from = 1; from <= LOTS; from += chunk) {
    const to = Math.min(LOTS, from + chunk - 1);
    const lotId = `format('gl_bench%s', lpad(i::text, 9, '0'))`;
    await db.transaction(async (tx) => {
      await tx.query(
        `insert into green_lots (org_id, id, lot_code, name, on_hand_kg, reserved_kg, opening_kg, ledger_seq)
         select $1, ${lotId}, format('B-%s', i), format('Bench lot %s', i), 999, 0, 1000, ${ROWS_PER_LOT} from generate_series($2::int, $3::int) i`,
        [orgId, from, to],
      );
      await tx.query(
        `insert into green_lot_ledger (org_id, id, lot_id, seq, kind, location_id, delta_kg, reserved_delta_kg, group_id, credential_id)
         select $1, format('glt_bench%sx%s', lpad(i::text, 9, '0'), lpad(s::text, 3, '0')), ${lotId}, s,
                case when s = 1 then 'receive' when s = ${ROWS_PER_LOT} then 'adjust' when s % 2 = 0 then 'transfer_out' else 'transfer_in' end,
                case when s = 1 or s = ${ROWS_PER_LOT} or s % 2 = 0 then $4 else $5 end,
                case when s = 1 then 1000 when s = ${ROWS_PER_LOT} then -1 when s % 2 = 0 then -2 else 2 end, 0,
                case when s between 2 and ${ROWS_PER_LOT - 1} then format('grp_bench%sx%s', i, s - s % 2) end, 'bench'
         from generate_series($2::int, $3::int) i cross join lateral generate_series(1, ${ROWS_PER_LOT}) s`,
        [orgId, from, to, a, b],
      );
      await tx.query(
        `insert into green_lot_balances (org_id, lot_id, location_id, on_hand_kg)
         select $1, ${lotId}, l.location_id, l.kg from generate_series($2::int, $3::int) i, (values ($4, 951), ($5, 48)) as l(location_id, kg)`,
        [orgId, from, to, a, b],
      );
    });
  }
  await db.exec(`analyze green_lots; analyze green_lot_ledger; analyze green_lot_balances`);
}
