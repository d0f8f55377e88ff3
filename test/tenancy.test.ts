import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestServer } from '../src/testing/harness.js';
import { REGISTRY } from '../src/modules/index.js';
import { PostgresDatabase } from '../src/db/client.js';

const { operations } = REGISTRY;
import type { TenancyCase } from '../src/testing/tenancy.js';

const modulesDir = fileURLToPath(new URL('../src/modules/', import.meta.url));

async function loadCases(): Promise<Map<string, TenancyCase>> {
  const files = (readdirSync(modulesDir, { recursive: true }) as string[]).filter((f) => f.endsWith('tenancy.cases.ts'));
  const all = new Map<string, TenancyCase>();
  for (const file of files) {
    const { cases } = (await import(join(modulesDir, file))) as { cases: TenancyCase[] };
    for (const c of cases) all.set(c.operation, c);
  }
  return all;
}

test('every registered operation keeps organizations apart', async (t) => {
  const server = await startTestServer();
  const cases = await loadCases();
  const missing = operations.map((op) => op.name).filter((name) => !cases.has(name));
  assert.deepEqual(missing, [], 'operations without a tenancy case in their module’s tenancy.cases.ts');

  const owner = await server.createOrg('enterprise', 'Owner roastery');
  const intruder = await server.createOrg('enterprise', 'Other roastery');
  const ownerEvents = async () =>
    (await server.owner.query<{ n: number }>(`select count(*)::int as n from events where org_id = $1`, [owner.id]))[0].n;

  for (const op of operations) {
    await t.test(op.name, async () => {
      const probe = cases.get(op.name)!;
      const { input, secretIds } = await probe.arrange(owner);
      const before = await ownerEvents();
      const res = await intruder.call(op.name, input);
      if (probe.expect === 'not_found') {
        assert.equal(res.status, 404, `${op.name} answered ${res.status}: ${JSON.stringify(res.body)}`);
        // Exactly the answer for ids that exist nowhere: same status, same body once the ids are masked.
        // One distinct ghost per secret id, so an input naming two records of a kind still names two.
        const ghost = (id: string) => id.replace(/_[0-9a-z]+$/, `_0000000000ghost${String(secretIds.indexOf(id)).padStart(11, '0')}`);
        const ghostInput = JSON.parse(secretIds.reduce((text, id) => text.replaceAll(id, ghost(id)), JSON.stringify(input)));
        const nowhere = await intruder.call(op.name, ghostInput);
        const mask = (body: unknown, ids: string[]) => ids.reduce((text, id) => text.replaceAll(id, '<id>'), JSON.stringify(body));
        assert.equal(nowhere.status, 404);
        assert.equal(mask(res.body, secretIds), mask(nowhere.body, secretIds.map(ghost)));
      } else {
        assert.equal(res.status, 200, `${op.name} answered ${res.status}: ${JSON.stringify(res.body)}`);
        const answer = JSON.stringify(res.body);
        for (const id of secretIds) assert.ok(!answer.includes(id), `${op.name} revealed ${id}`);
      }
      assert.equal(await ownerEvents(), before, `${op.name} by another organization changed the owner's records`);
    });
  }
});

test('row-level security confines the service role to one organization (server mode)', async (t) => {
  const server = await startTestServer();
  if (server.kind !== 'postgres') return t.skip('row-level security is enforced by the PostgreSQL server');
  const a = await server.createOrg();
  const b = await server.createOrg();
  await a.call('catalog.location.createLocation', { name: 'A', code: 'A', kind: 'warehouse' });
  const service = server.app.databases.service;
  const [role] = await service.query<{ current_user: string; rolsuper: boolean; owns: boolean }>(
    `select current_user, r.rolsuper, pg_has_role(current_user, (select tableowner from pg_tables where tablename = 'locations'), 'USAGE') as owns
     from pg_roles r where r.rolname = current_user`,
  );
  assert.deepEqual(role, { current_user: 'firstcrack_app', rolsuper: false, owns: false });
  // Without an organization set, and with the wrong one, no row is visible, even with no WHERE clause at all.
  assert.equal((await service.query(`select * from locations`)).length, 0);
  const seen = await service.transaction((tx) => tx.query(`select * from locations`), { orgId: b.id });
  assert.equal(seen.length, 0);
  const own = await service.transaction((tx) => tx.query(`select * from locations`), { orgId: a.id });
  assert.equal(own.length, 1);
  // On one connection: BEGIN carries the organization when the connection switches to it; a rollback
  // undoes that setting, and the connection's next use sets it again.
  const one = PostgresDatabase.open((service as PostgresDatabase).scoped.options.connectionString!, 1);
  try {
    const locations = (orgId: string, readOnly = false) => one.transaction((tx) => tx.query(`select * from locations`), { orgId, readOnly });
    assert.equal((await locations(b.id)).length, 0);
    await assert.rejects(
      one.transaction(async (tx) => {
        assert.equal((await tx.query(`select * from locations`)).length, 1);
        throw new Error('rolled back');
      }, { orgId: a.id }),
      /rolled back/,
    );
    assert.equal((await locations(a.id, true)).length, 1, 'a read after the rollback sees its organization');
    assert.equal((await locations(b.id, true)).length, 0);
    assert.equal((await locations(a.id)).length, 1, 'a transaction switching back sees its organization');
    assert.equal((await locations(a.id)).length, 1);
  } finally {
    await one.close();
  }
  // Writing a row for another organization is refused by the policy's WITH CHECK.
  await assert.rejects(
    service.transaction((tx) => tx.query(`insert into locations (org_id, id, code, name, kind) values ($1, 'loc_x', 'X', 'X', 'lab')`, [a.id]), { orgId: b.id }),
    /row-level security/,
  );
  // Every table that holds organization data has row-level security on (views run as the invoker, so
  // the tables under them apply it).
  const unprotected = await server.owner.query<{ table_name: string }>(
    `select c.table_name from information_schema.columns c join pg_class k on k.relname = c.table_name
     where c.column_name = 'org_id' and c.table_schema = 'public' and k.relkind in ('r', 'p') and not k.relrowsecurity`,
  );
  assert.deepEqual(unprotected, []);
  const ownerRightsViews = await server.owner.query<{ relname: string }>(
    `select k.relname from pg_class k join pg_namespace n on n.oid = k.relnamespace
     where n.nspname = 'public' and k.relkind = 'v'
       and exists (select 1 from information_schema.columns c where c.table_name = k.relname and c.column_name = 'org_id')
       and not coalesce('security_invoker=true' = any (k.reloptions), false)`,
  );
  assert.deepEqual(ownerRightsViews, [], 'views over organization data must run with the invoker’s rights');
});
