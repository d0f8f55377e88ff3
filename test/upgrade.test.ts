import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { startTestServer } from '../src/testing/harness.js';
import { loadConfig, appRoleUrl } from '../src/config.js';
import { PgliteDatabase, PostgresDatabase } from '../src/db/client.js';
import { openDatabases } from '../src/db/open.js';
import { loadMigrations } from '../src/db/migrate.js';
import { withDatabase } from '../src/testing/template.js';
import { ledgerInvariantViolations } from '../src/modules/inventory/green/invariants.js';
import { roastedLedgerViolations } from '../src/modules/production/roast/testing.js';

/**
 * A database made by an older Firstcrack migrates forward when the current one starts on it. The fixture
 * (test/fixtures/upgrade/, README "Upgrades") was made by commit 6f44821: its test server on PostgreSQL,
 * one organization's traced chain (two producers, a split, a merge, two roasts, two shipped orders) and a
 * certificate, dumped with `pg_dump --inserts`. Server mode restores it into a new database; embedded, PGlite
 * runs the same SQL into a new data directory (that commit used the same PGlite, so its data directories
 * are this one's format; what differs between the versions is the schema, which this migrates).
 */

const fixture = JSON.parse(readFileSync(new URL('./fixtures/upgrade/6f44821.json', import.meta.url), 'utf8'));
/** psql's meta-commands (\restrict) are not SQL; the session settings the dump makes are undone after it. */
const dump =
  readFileSync(new URL('./fixtures/upgrade/6f44821.sql', import.meta.url), 'utf8')
    .split('\n')
    .filter((line) => !line.startsWith('\\'))
    .join('\n') + '\nreset search_path; reset row_security; reset check_function_bodies; reset client_min_messages;\n';

const work = mkdtempSync(join(tmpdir(), 'fc-upgrade-'));
after(() => rmSync(work, { recursive: true, force: true }));
const base = loadConfig();
const embedded = !base.databaseUrl;

let databaseUrl: string | undefined;
if (embedded) {
  const db = await PgliteDatabase.open({ dataDir: join(work, 'data', 'pgdata') });
  // The dump's grants name the service role, which the old migrations made in the database they ran on.
  await db.exec(`create role firstcrack_app login`);
  await db.exec(dump);
  await db.close();
} else {
  const name = `fc_test_upgrade_${randomBytes(5).toString('hex')}`;
  const admin = PostgresDatabase.open(base.databaseUrl!, 1);
  await admin.query(`create database ${name}`);
  after(async () => {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.close();
  });
  databaseUrl = withDatabase(base.databaseUrl!, name);
  const loader = PostgresDatabase.open(databaseUrl, 1);
  await loader.exec(dump);
  await loader.close();
}

test('a database made by commit 6f44821 migrates forward at start, its data whole and its certificate page answering', async () => {
  const versions = loadMigrations().map((m) => m.version);
  let migrated: string[];
  if (databaseUrl) {
    // What `firstcrack serve` does first: open the databases, migrating them.
    const dbs = await openDatabases({ ...base, databaseUrl, databaseAppUrl: appRoleUrl(databaseUrl) });
    migrated = (await dbs.owner.query<{ version: string }>(`select version from schema_migrations order by version`)).map((r) => r.version);
    await dbs.close();
  } else migrated = [];
  const server = await startTestServer({ onDisk: embedded ? join(work, 'data') : undefined, databaseUrl });
  if (embedded) migrated = (await server.owner.query<{ version: string }>(`select version from schema_migrations order by version`)).map((r) => r.version);
  assert.deepEqual(migrated, versions, 'every migration is applied');
  assert.ok(versions.includes('202611280640_platform_organization_timezone'), 'the fixture predates migrations it must be brought through');

  const db = server.owner;
  assert.deepEqual(await ledgerInvariantViolations(db), [], 'every green balance equals the sum of its ledger rows');
  assert.deepEqual(await roastedLedgerViolations(db, fixture.orgId), [], 'every roasted balance equals the sum of its ledger rows');
  // Columns added since: organizations got a time zone (null: UTC).
  const [org] = await db.query<{ timezone: string | null }>(`select timezone from organizations where id = $1`, [fixture.orgId]);
  assert.equal(org.timezone, null);

  // The old owner key still works, and lineage resolves through the old rows.
  const trace = await server.call(fixture.apiKey, 'traceability.traceBackward', { kind: 'order_line', id: fixture.orderLineId });
  assert.equal(trace.status, 200, JSON.stringify(trace.body));
  assert.ok(trace.body.nodes.some((n: any) => n.id === fixture.greenLotId), 'the shipped line traces back to the old green lot');
  const lot = await server.call(fixture.apiKey, 'inventory.green.getGreenLot', { id: fixture.greenLotId }, { method: 'GET' });
  assert.equal(lot.status, 200, JSON.stringify(lot.body));
  const page = await server.request(fixture.certificatePath);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /Old Rösterei/);
  // And it takes new writes.
  const created = await server.call(fixture.apiKey, 'catalog.location.createLocation', { name: 'New shelf', code: 'NEW1', kind: 'warehouse' });
  assert.equal(created.status, 200, JSON.stringify(created.body));
});
