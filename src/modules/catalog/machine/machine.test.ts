import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { hashSecret } from '../../../auth/credentials.js';
import type { Plan } from '../../../auth/plans.js';
import { startTestServer, type TestOrg } from '../../../testing/harness.js';
import { makeLocation } from '../location/tenancy.cases.js';

const server = await startTestServer();
const org = await server.createOrg('enterprise', 'Machine roastery');
const other = await server.createOrg('enterprise', 'Other roastery');

const rowCount = async (table: 'machines' | 'events' | 'credentials', orgId = org.id) =>
  (await server.owner.query<{ n: number }>(`select count(*)::int as n from ${table} where org_id = $1`, [orgId]))[0].n;

const activeMachines = async (orgId: string) =>
  (await server.owner.query<{ n: number }>(`select count(*)::int as n from machines where org_id = $1 and is_active`, [orgId]))[0].n;

const lastEvent = async (type: string, orgId = org.id) =>
  (await server.owner.query<{ data: any }>(`select data from events where org_id = $1 and type = $2 order by id desc limit 1`, [orgId, type]))[0]?.data;

let codes = 0;
const nextCode = () => `MCH-${++codes}`;

async function register(input: Record<string, unknown> = {}, as: TestOrg = org) {
  const res = await as.call('catalog.machine.registerMachine', { name: 'Roaster', code: nextCode(), ...input });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

/** Asserts a refusal and that it wrote nothing (no machine, event or credential). */
async function refused(operation: string, input: unknown, status: number, code: string, path?: string, as: TestOrg = org) {
  const counts = () => Promise.all([rowCount('machines', as.id), rowCount('events', as.id), rowCount('credentials', as.id)]);
  const before = await counts();
  const res = await as.call(operation, input);
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.body.code, code);
  if (path !== undefined) assert.ok(res.body.errors?.some((e: { path: string }) => e.path === path), JSON.stringify(res.body));
  assert.deepEqual(await counts(), before);
  return res.body;
}

async function archivedLocation(as: TestOrg = org) {
  const id = await makeLocation(as);
  assert.equal((await as.call('catalog.location.archiveLocation', { id })).status, 200);
  return id;
}

describe('registering and changing machines', () => {
  test('registerMachine answers the machine with weights as 3-decimal strings and records an event', async () => {
    const locationId = await makeLocation(org);
    const machine = await register({
      name: 'Probat P12',
      code: 'P12',
      locationId,
      brand: 'Probat',
      model: 'P12 III',
      machineType: 'drum',
      capacityKg: 12,
      minBatchKg: '3.5',
      maxBatchKg: 12,
      connectivity: 'bridge',
      installedAt: '2021-03-15',
    });
    assert.match(machine.id, /^mch_[0-9a-z]+$/);
    assert.deepEqual({ ...machine, id: undefined, createdAt: undefined, updatedAt: undefined }, {
      id: undefined,
      code: 'P12',
      name: 'Probat P12',
      locationId,
      brand: 'Probat',
      model: 'P12 III',
      machineType: 'drum',
      capacityKg: '12.000',
      minBatchKg: '3.500',
      maxBatchKg: '12.000',
      connectivity: 'bridge',
      installedAt: '2021-03-15',
      burnerRatingKw: null,
      fuel: null,
      isActive: true,
      createdAt: undefined,
      updatedAt: undefined,
    });
    assert.deepEqual((await org.call('catalog.machine.getMachine', { id: machine.id })).body, machine);
    assert.deepEqual((await org.call('catalog.machine.getMachine', { id: machine.id }, { method: 'GET' })).body, machine);
    assert.deepEqual((await lastEvent('catalog.machine.registered')).machine, machine);

    const bare = await register({ name: 'Sample roaster' });
    assert.equal(bare.locationId, null);
    assert.equal(bare.capacityKg, null);
    assert.equal(bare.machineType, null);
  });

  test('input is validated field by field and unknown fields are refused', async () => {
    const base = { name: 'Checked', code: 'CHECKED' };
    await refused('catalog.machine.registerMachine', { ...base, machineType: 'wood_fired' }, 400, 'invalid_input', 'machineType');
    await refused('catalog.machine.registerMachine', { ...base, connectivity: 'bluetooth' }, 400, 'invalid_input', 'connectivity');
    await refused('catalog.machine.registerMachine', { ...base, capacityKg: 0 }, 400, 'invalid_input', 'capacityKg');
    await refused('catalog.machine.registerMachine', { ...base, capacityKg: '12.0001' }, 400, 'invalid_input', 'capacityKg');
    await refused('catalog.machine.registerMachine', { ...base, minBatchKg: -1 }, 400, 'invalid_input', 'minBatchKg');
    await refused('catalog.machine.registerMachine', { ...base, capacityKg: 10_000_000 }, 400, 'invalid_input', 'capacityKg');
    await refused('catalog.machine.registerMachine', { ...base, installedAt: '15/03/2021' }, 400, 'invalid_input', 'installedAt');
    await refused('catalog.machine.registerMachine', { ...base, isActive: false }, 400, 'invalid_input', 'isActive');
    await refused('catalog.machine.registerMachine', { name: 'No code' }, 400, 'invalid_input', 'code');
  });

  test('batch sizes must satisfy minBatchKg ≤ maxBatchKg ≤ capacityKg, compared exactly', async () => {
    const base = { name: 'Batch', code: 'BATCH' };
    await refused('catalog.machine.registerMachine', { ...base, minBatchKg: 8, maxBatchKg: 6 }, 400, 'invalid_input', 'minBatchKg');
    await refused('catalog.machine.registerMachine', { ...base, maxBatchKg: '15.001', capacityKg: 15 }, 400, 'invalid_input', 'maxBatchKg');
    await refused('catalog.machine.registerMachine', { ...base, minBatchKg: 16, capacityKg: '15.999' }, 400, 'invalid_input', 'minBatchKg');
    const full = await register({ minBatchKg: '15', maxBatchKg: 15, capacityKg: '15.000' });
    assert.deepEqual([full.minBatchKg, full.maxBatchKg, full.capacityKg], ['15.000', '15.000', '15.000'], 'equal sizes are allowed');
  });

  test('updateMachine checks batch sizes together with the stored ones, naming the field it changed', async () => {
    const machine = await register({ minBatchKg: 5, maxBatchKg: 12, capacityKg: 15 });
    await refused('catalog.machine.updateMachine', { id: machine.id, capacityKg: 11 }, 400, 'invalid_input', 'capacityKg');
    await refused('catalog.machine.updateMachine', { id: machine.id, maxBatchKg: '4.999' }, 400, 'invalid_input', 'maxBatchKg');
    await refused('catalog.machine.updateMachine', { id: machine.id, maxBatchKg: '15.5' }, 400, 'invalid_input', 'maxBatchKg');
    await refused('catalog.machine.updateMachine', { id: machine.id, minBatchKg: '12.001' }, 400, 'invalid_input', 'minBatchKg');
    await refused('catalog.machine.updateMachine', { id: machine.id, minBatchKg: 20, capacityKg: 25 }, 400, 'invalid_input', 'minBatchKg');
    assert.deepEqual((await org.call('catalog.machine.getMachine', { id: machine.id })).body, machine, 'refusals changed nothing');

    const grown = await org.call('catalog.machine.updateMachine', { id: machine.id, maxBatchKg: 20, capacityKg: 25 });
    assert.equal(grown.status, 200, JSON.stringify(grown.body));
    assert.deepEqual([grown.body.minBatchKg, grown.body.maxBatchKg, grown.body.capacityKg], ['5.000', '20.000', '25.000']);
    const uncapped = await org.call('catalog.machine.updateMachine', { id: machine.id, capacityKg: null });
    assert.equal(uncapped.body.capacityKg, null);
    const bigger = await org.call('catalog.machine.updateMachine', { id: machine.id, maxBatchKg: 60 });
    assert.equal(bigger.status, 200, 'no capacity stored, nothing to exceed');
  });

  test('updateMachine changes what it is given, clears with null, keeps the code and records an event', async () => {
    const machine = await register({ brand: 'Loring', model: 'S15', machineType: 'drum', connectivity: 'logger', installedAt: '2020-01-02' });
    const res = await org.call('catalog.machine.updateMachine', {
      id: machine.id, name: 'Loring Falcon', machineType: 'recirculating', model: null, connectivity: 'cloud_api', installedAt: '2022-12-31',
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.name, 'Loring Falcon');
    assert.equal(res.body.machineType, 'recirculating');
    assert.equal(res.body.model, null);
    assert.equal(res.body.brand, 'Loring');
    assert.equal(res.body.connectivity, 'cloud_api');
    assert.equal(res.body.installedAt, '2022-12-31');
    assert.equal(res.body.code, machine.code);
    assert.deepEqual((await lastEvent('catalog.machine.updated')).machine, res.body);
    await refused('catalog.machine.updateMachine', { id: machine.id, code: 'NEW' }, 400, 'invalid_input', 'code');
    await refused('catalog.machine.updateMachine', { id: 'mch_doesnotexist0000', name: 'x' }, 404, 'not_found', 'id');
    assert.equal((await org.call('catalog.machine.getMachine', { id: 'mch_doesnotexist0000' })).status, 404);
  });

  test('a machine code is unique within the organization and free in another one', async () => {
    await register({ code: 'DUP-MCH' });
    const problem = await refused('catalog.machine.registerMachine', { name: 'Twin', code: 'DUP-MCH' }, 409, 'duplicate', 'code');
    assert.match(problem.detail, /code/);
    await register({ code: 'DUP-MCH' }, other);
  });

  test('locationId must name a location of this organization that is not archived', async () => {
    const base = { name: 'Placed', code: 'PLACED' };
    await refused('catalog.machine.registerMachine', { ...base, locationId: 'loc_doesnotexist0000' }, 404, 'not_found', 'locationId');
    const foreign = await makeLocation(other);
    await refused('catalog.machine.registerMachine', { ...base, locationId: foreign }, 404, 'not_found', 'locationId');
    const archived = await archivedLocation();
    await refused('catalog.machine.registerMachine', { ...base, locationId: archived }, 409, 'location_archived', 'locationId');

    const machine = await register();
    await refused('catalog.machine.updateMachine', { id: machine.id, locationId: foreign }, 404, 'not_found', 'locationId');
    await refused('catalog.machine.updateMachine', { id: machine.id, locationId: archived }, 409, 'location_archived', 'locationId');
    const home = await makeLocation(org);
    const placed = await org.call('catalog.machine.updateMachine', { id: machine.id, locationId: home });
    assert.equal(placed.body.locationId, home);
    const unplaced = await org.call('catalog.machine.updateMachine', { id: machine.id, locationId: null });
    assert.equal(unplaced.body.locationId, null);
  });

  test('listMachines filters by type, connectivity, location, isActive and text, and pages with cursors', async () => {
    const tag = 'LSTM';
    const roastery = await makeLocation(org);
    const lab = await makeLocation(org);
    const drum = await register({ name: `${tag} Giesen W15`, brand: 'Giesen', machineType: 'drum', connectivity: 'bridge', locationId: roastery });
    const fluid = await register({ name: `${tag} Sivetz`, brand: 'Sivetz', machineType: 'fluid_bed', connectivity: 'none', locationId: roastery });
    const sample = await register({ name: `${tag} Ikawa`, model: 'Pro100', machineType: 'sample', connectivity: 'cloud_api', locationId: lab });
    await org.call('catalog.machine.updateMachine', { id: fluid.id, isActive: false });
    const ids = async (filter: Record<string, unknown>) => {
      const res = await org.call('catalog.machine.listMachines', { filter: { q: tag, ...filter } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.items.map((m: { id: string }) => m.id);
    };
    assert.deepEqual(await ids({}), [drum.id, fluid.id, sample.id], 'oldest first');
    assert.deepEqual(await ids({ machineType: 'drum' }), [drum.id]);
    assert.deepEqual(await ids({ connectivity: 'cloud_api' }), [sample.id]);
    assert.deepEqual(await ids({ locationId: roastery }), [drum.id, fluid.id]);
    assert.deepEqual(await ids({ locationId: roastery, isActive: true }), [drum.id]);
    assert.deepEqual(await ids({ isActive: false }), [fluid.id]);
    const byBrand = await org.call('catalog.machine.listMachines', { filter: { q: 'giesen' } });
    assert.deepEqual(byBrand.body.items.map((m: { id: string }) => m.id), [drum.id]);
    const byModel = await org.call('catalog.machine.listMachines', { filter: { q: 'pro100' } });
    assert.deepEqual(byModel.body.items.map((m: { id: string }) => m.id), [sample.id]);

    const paged: string[] = [];
    let cursor: string | undefined;
    do {
      const res = await org.call('catalog.machine.listMachines', { filter: { q: tag }, page: { limit: 2, ...(cursor ? { cursor } : {}) } }, { method: 'GET' });
      assert.ok(res.body.items.length <= 2, `a page holds at most 2 machines, not ${res.body.items.length}`);
      paged.push(...res.body.items.map((m: { id: string }) => m.id));
      cursor = res.body.nextCursor ?? undefined;
    } while (cursor);
    assert.deepEqual(paged, [drum.id, fluid.id, sample.id]);
    await refused('catalog.machine.listMachines', { filter: { brand: 'Giesen' } }, 400, 'invalid_input', 'filter.brand');
    await refused('catalog.machine.listMachines', { filter: { machineType: 'wood_fired' } }, 400, 'invalid_input', 'filter.machineType');
    await refused('catalog.machine.listMachines', { page: { cursor: 'garbage' } }, 400, 'invalid_cursor', 'page.cursor');
  });
});

describe('the plan’s machine cap', () => {
  async function orgOn(plan: Plan) {
    return server.createOrg(plan, `${plan} roastery`);
  }

  /**
   * Starts the requests together and, on PostgreSQL, holds the organization row until each of them is
   * blocked on a lock or done, so all have gone as far as they can at the same time: without a lock taken
   * before counting, both would count the same room under the cap. (PGlite runs transactions one at a
   * time, so there the requests merely start together.)
   */
  async function race<T>(orgId: string, start: () => Promise<T>[]): Promise<T[]> {
    if (server.kind !== 'postgres') return Promise.all(start());
    let requests: Promise<T[]> | undefined;
    await server.owner.transaction(async (tx) => {
      await tx.query(`select id from organizations where id = $1 for update`, [orgId]);
      let settled = 0;
      const started = start().map((request) => request.finally(() => settled++));
      requests = Promise.all(started);
      for (let waited = 0; ; waited += 10) {
        const [{ n }] = await server.owner.query<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
        );
        if (n + settled >= started.length) break;
        if (waited > 5000) throw new Error(`only ${n} of ${started.length} requests reached a lock`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    });
    return requests!;
  }

  test('free plan (cap 1): the second active machine is 402; a deactivated one makes room', async () => {
    const free = await orgOn('free');
    const first = await register({}, free);
    const problem = await refused('catalog.machine.registerMachine', { name: 'Second', code: 'SECOND' }, 402, 'machine_cap_reached', undefined, free);
    assert.equal(problem.machineCap, 1);
    assert.equal(problem.plan, 'free');

    const off = await free.call('catalog.machine.updateMachine', { id: first.id, isActive: false });
    assert.equal(off.body.isActive, false);
    const second = await register({}, free);
    assert.equal(await activeMachines(free.id), 1);

    // Re-activating counts like registering.
    await refused('catalog.machine.updateMachine', { id: first.id, isActive: true }, 402, 'machine_cap_reached', undefined, free);
    assert.equal((await free.call('catalog.machine.getMachine', { id: first.id })).body.isActive, false);
    // Saying isActive: true of a machine that is already active adds nothing, so it is no cap matter.
    const unchanged = await free.call('catalog.machine.updateMachine', { id: second.id, isActive: true, name: 'Still on' });
    assert.equal(unchanged.status, 200, JSON.stringify(unchanged.body));
    await free.call('catalog.machine.updateMachine', { id: second.id, isActive: false });
    const back = await free.call('catalog.machine.updateMachine', { id: first.id, isActive: true });
    assert.equal(back.status, 200, JSON.stringify(back.body));
    assert.equal(await activeMachines(free.id), 1);
  });

  test('starter plan (cap 2): of two concurrent registrations at cap − 1 exactly one wins', async () => {
    const starter = await orgOn('starter');
    await register({}, starter);
    const results = await race(starter.id, () =>
      ['RACE-A', 'RACE-B'].map((code) => starter.call('catalog.machine.registerMachine', { name: code, code })),
    );
    assert.deepEqual(results.map((r) => r.status).sort(), [200, 402], JSON.stringify(results.map((r) => r.body)));
    assert.equal(results.find((r) => r.status === 402)!.body.code, 'machine_cap_reached');
    assert.equal(await activeMachines(starter.id), 2);
    assert.equal(await rowCount('machines', starter.id), 2);
  });

  test('starter plan (cap 2): two concurrent re-activations at cap − 1 leave exactly one active more', async () => {
    const starter = await orgOn('starter');
    const machines = [await register({}, starter), await register({}, starter)];
    for (const m of machines) await starter.call('catalog.machine.updateMachine', { id: m.id, isActive: false });
    await register({}, starter);
    const results = await race(starter.id, () =>
      machines.map((m) => starter.call('catalog.machine.updateMachine', { id: m.id, isActive: true })),
    );
    assert.deepEqual(results.map((r) => r.status).sort(), [200, 402], JSON.stringify(results.map((r) => r.body)));
    assert.equal(await activeMachines(starter.id), 2);
  });
});

describe('machine bridge tokens', () => {
  async function issue(machineId: string, extra: Record<string, unknown> = {}) {
    const res = await org.call('catalog.machine.issueMachineBridgeToken', { machineId, ...extra });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as { id: string; token: string; machineId: string; expiresAt: string };
  }

  test('a token is issued for one machine, expires in 720 hours by default, and only its hash is kept', async () => {
    const machine = await register();
    const before = Date.now();
    const issued = await issue(machine.id);
    assert.deepEqual(Object.keys(issued).sort(), ['expiresAt', 'id', 'machineId', 'token']);
    assert.equal(issued.machineId, machine.id);
    assert.match(issued.token, /^fcb_/);
    const lifetime = Date.parse(issued.expiresAt) - before;
    assert.ok(Math.abs(lifetime - 720 * 3_600_000) < 60_000, `expires ${issued.expiresAt}`);

    const [row] = await server.owner.query<Record<string, unknown>>(`select * from credentials where org_id = $1 and id = $2`, [org.id, issued.id]);
    assert.equal(row.kind, 'machine_bridge');
    assert.equal(row.machine_id, machine.id);
    assert.equal(row.secret_hash, hashSecret(issued.token));
    assert.ok(!JSON.stringify(row).includes(issued.token), 'the secret itself is not stored');

    const event = await lastEvent('catalog.machine.bridge_token_issued');
    assert.deepEqual(event, { machineId: machine.id, credentialId: issued.id, expiresAt: issued.expiresAt });

    const short = await issue(machine.id, { expiresInHours: 1 });
    assert.ok(Math.abs(Date.parse(short.expiresAt) - Date.now() - 3_600_000) < 60_000, `a 1-hour token expires in an hour: ${short.expiresAt}`);
    assert.notEqual(short.token, issued.token);
  });

  test('the token is never returned by a read', async () => {
    const machine = await register({ connectivity: 'bridge' });
    const { token } = await issue(machine.id);
    const reads = [
      await org.call('catalog.machine.getMachine', { id: machine.id }),
      await org.call('catalog.machine.listMachines', {}),
      await org.call('catalog.machine.listMachines', { filter: { connectivity: 'bridge' } }, { method: 'GET' }),
    ];
    for (const read of reads) {
      assert.equal(read.status, 200);
      assert.ok(!JSON.stringify(read.body).includes(token), 'no read shows the token');
    }
    const events = await server.owner.query<{ data: unknown }>(`select data from events where org_id = $1`, [org.id]);
    assert.ok(!JSON.stringify(events).includes(token), 'no event carries the token');
  });

  // Credentials are resolved through a short cache, so a token whose end is tested is first presented after it ended.
  test('a bridge token is refused by /rpc operations with 403, and with 401 once expired', async () => {
    const machine = await register();
    const live = await issue(machine.id);
    const attempts: [string, Record<string, unknown>][] = [
      ['catalog.location.listLocations', {}],
      ['catalog.machine.getMachine', { id: machine.id }],
      ['catalog.machine.issueMachineBridgeToken', { machineId: machine.id }],
    ];
    for (const [operation, input] of attempts) {
      const res = await server.call(live.token, operation, input);
      assert.equal(res.status, 403, JSON.stringify(res.body));
      assert.equal(res.body.code, 'bridge_token_not_allowed');
    }
    const ended = await issue(machine.id);
    await server.owner.query(`update credentials set expires_at = now() - interval '1 minute' where org_id = $1 and id = $2`, [org.id, ended.id]);
    const expired = await server.call(ended.token, 'catalog.location.listLocations', {});
    assert.equal(expired.status, 401, JSON.stringify(expired.body));
    assert.equal(expired.body.code, 'unauthenticated');
  });

  test('deactivating a machine revokes its tokens, and an inactive machine gets none (409)', async () => {
    const machine = await register();
    const issued = await issue(machine.id);
    const off = await org.call('catalog.machine.updateMachine', { id: machine.id, isActive: false });
    assert.equal(off.status, 200);
    assert.equal((await lastEvent('catalog.machine.updated')).revokedBridgeTokens, 1);
    const [row] = await server.owner.query<{ revoked: boolean }>(
      `select revoked_at is not null as revoked from credentials where org_id = $1 and id = $2`,
      [org.id, issued.id],
    );
    assert.equal(row.revoked, true);
    assert.equal((await server.call(issued.token, 'catalog.location.listLocations', {})).status, 401, 'revoked');

    await refused('catalog.machine.issueMachineBridgeToken', { machineId: machine.id }, 409, 'machine_inactive');
    await org.call('catalog.machine.updateMachine', { id: machine.id, isActive: true });
    const [still] = await server.owner.query<{ revoked: boolean }>(
      `select revoked_at is not null as revoked from credentials where org_id = $1 and id = $2`,
      [org.id, issued.id],
    );
    assert.equal(still.revoked, true, 're-activation does not revive a revoked token');
    await issue(machine.id);
  });

  test('expiresInHours is a whole number of hours from 1 to 8760, and the machine must exist here', async () => {
    const machine = await register();
    for (const expiresInHours of [0, 8761, 1.5, '24']) {
      await refused('catalog.machine.issueMachineBridgeToken', { machineId: machine.id, expiresInHours }, 400, 'invalid_input', 'expiresInHours');
    }
    const yearLong = await issue(machine.id, { expiresInHours: 8760 });
    assert.ok(Math.abs(Date.parse(yearLong.expiresAt) - Date.now() - 8760 * 3_600_000) < 60_000, `an 8760-hour token expires in a year: ${yearLong.expiresAt}`);
    await refused('catalog.machine.issueMachineBridgeToken', { machineId: 'mch_doesnotexist0000' }, 404, 'not_found', 'machineId');
    const theirs = await register({}, other);
    await refused('catalog.machine.issueMachineBridgeToken', { machineId: theirs.id }, 404, 'not_found', 'machineId');
    await refused('catalog.machine.issueMachineBridgeToken', { machineId: machine.id, machine: 'x' }, 400, 'invalid_input', 'machine');
  });
});
