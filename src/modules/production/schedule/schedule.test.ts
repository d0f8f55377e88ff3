import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startTestServer } from '../../../testing/harness.js';
import { makeLocation } from '../../catalog/location/tenancy.cases.js';
import { importLot } from '../../inventory/green/testing.js';
import { makeProfile, makeRoaster, refusedUnchanged, unique } from '../roast/testing.js';
import { assertProblem } from '../../../testing/problems.js';

const server = await startTestServer();

interface DemandLine {
  org_id: string;
  order_line_id: string;
  due_date: string | null;
  profile_id: string | null;
  green_lot_id: string | null;
  roast_level: string | null;
  is_decaf: boolean;
  ordered_kg: string;
  allocated_kg: string;
  expected_loss_pct: string | null;
}

/**
 * Stands in for the orders module: redefines the roast_demand view (the contract migration 0007 sets out)
 * over the given confirmed order lines, as the orders module will over its tables.
 */
async function setDemand(lines: DemandLine[]) {
  const json = JSON.stringify(lines).replaceAll("'", "''");
  await server.owner.exec(
    `create or replace view roast_demand with (security_invoker = true) as
     select org_id, order_line_id, due_date, profile_id, green_lot_id, roast_level, is_decaf,
            ordered_kg::numeric(14, 3) as ordered_kg, allocated_kg::numeric(14, 3) as allocated_kg,
            expected_loss_pct::numeric(5, 2) as expected_loss_pct
     from jsonb_to_recordset('${json}'::jsonb) as d(org_id text, order_line_id text, due_date date, profile_id text, green_lot_id text,
       roast_level text, is_decaf boolean, ordered_kg numeric, allocated_kg numeric, expected_loss_pct numeric)`,
  );
}

let lineNumber = 0;
const line = (fields: Partial<DemandLine> & Pick<DemandLine, 'org_id'>): DemandLine => ({
  order_line_id: `ol_${++lineNumber}`,
  due_date: '2030-01-10',
  profile_id: null,
  green_lot_id: null,
  roast_level: null,
  is_decaf: false,
  ordered_kg: '10',
  allocated_kg: '0',
  expected_loss_pct: null,
  ...fields,
});

describe('without sales orders', () => {
  test('there is no demand: the aggregate is empty and a schedule is a draft saying so', async () => {
    const org = await server.createOrg('enterprise', 'Quiet roastery');
    await makeRoaster(org);
    const demand = await org.call('production.schedule.listDemandAggregate', {}, { method: 'GET' });
    assert.equal(demand.status, 200, JSON.stringify(demand.body));
    assert.deepEqual(demand.body, { items: [], nextCursor: null });

    const res = await org.call('production.schedule.generateProductionSchedule', { name: 'Monday', scheduledDate: '2030-01-07' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.match(res.body.id, /^sch_/);
    assert.equal(res.body.state, 'draft');
    assert.deepEqual(res.body.batches, []);
    assert.deepEqual(res.body.totals, { batchCount: 0, greenKg: '0.000', expectedRoastedKg: '0.000' });
    assert.deepEqual(res.body.notes.map((n: any) => n.kind), ['no_demand']);
    const [event] = await server.owner.query<{ data: any }>(`select data from events where org_id = $1 and type = 'production.schedule.generated'`, [org.id]);
    assert.equal(event.data.schedule.id, res.body.id);
  });
});

describe('with demand', () => {
  test('merges confirmed lines less allocations and plans them light → dark, decaf last, on the location’s machines', async () => {
    const org = await server.createOrg('enterprise', 'Busy roastery');
    const other = await server.createOrg('enterprise', 'Neighbour');
    const site = await makeLocation(org);
    const drum = await makeRoaster(org, { locationId: site, code: 'DRUM' });
    const bigDrum = await makeRoaster(org, { code: 'ELSEWHERE', maxBatchKg: '60', capacityKg: '60' }); // not at the site
    const light = await makeProfile(org, { code: 'LIGHT', targetDropTempC: 205 });
    const dark = await makeProfile(org, { code: 'DARK', targetDropTempC: 225 });
    const decaf = await makeProfile(org, { code: 'DECAF' });
    const lightLot = await importLot(org, { weightKg: '100', locationId: site });
    const darkLot = await importLot(org, { weightKg: '100', locationId: site });
    const decafLot = await importLot(org, { weightKg: '9', locationId: site, state: 'decaf_green' });
    await org.call('inventory.green.reserveGreenLot', { id: decafLot.id, weightKg: '4' }); // 5 kg left to roast

    // The light profile has roasted before at 15.25 % loss (profile2.alog), which its demand is grossed up by.
    const history = await importLot(org, { weightKg: '5' });
    const imported = await org.call('production.roast.importLoggerRoast', {
      content: readFileSync(new URL('../../../../../shared/fixtures/roast-logs/profile2.alog', import.meta.url), 'utf8'),
      batchNumber: unique('HIST'),
      profileId: light.id,
      greenLotId: history.id,
    });
    assert.equal(imported.body.weightLossPct, '15.25');

    await setDemand([
      line({ org_id: org.id, profile_id: dark.id, green_lot_id: darkLot.id, roast_level: 'dark', ordered_kg: '17', expected_loss_pct: '15' }),
      line({ org_id: org.id, profile_id: light.id, green_lot_id: lightLot.id, roast_level: 'light', ordered_kg: '10', allocated_kg: '1.5', due_date: '2030-01-05' }),
      line({ org_id: org.id, profile_id: light.id, green_lot_id: lightLot.id, roast_level: 'light', ordered_kg: '2', due_date: '2030-01-08' }),
      line({ org_id: org.id, profile_id: decaf.id, green_lot_id: decafLot.id, roast_level: 'medium', is_decaf: true, ordered_kg: '8.5', expected_loss_pct: '15' }),
      // Fully allocated, due later than asked, another organization's: none of them is demand here.
      line({ org_id: org.id, profile_id: dark.id, green_lot_id: darkLot.id, roast_level: 'dark', ordered_kg: '5', allocated_kg: '5' }),
      line({ org_id: org.id, profile_id: dark.id, green_lot_id: darkLot.id, roast_level: 'dark', ordered_kg: '40', due_date: '2030-02-01' }),
      line({ org_id: other.id, profile_id: dark.id, green_lot_id: darkLot.id, roast_level: 'dark', ordered_kg: '99' }),
    ]);

    const aggregate = await org.call('production.schedule.listDemandAggregate', { dueBefore: '2030-01-31' }, { method: 'GET' });
    assert.equal(aggregate.status, 200, JSON.stringify(aggregate.body));
    assert.deepEqual(
      aggregate.body.items.map((d: any) => [d.profileCode, d.orderedKg, d.allocatedKg, d.openKg, d.orderLineCount, d.earliestDueDate, d.expectedLossPct, d.expectedLossSource, d.greenNeededKg]),
      [
        ['LIGHT', '12.000', '1.500', '10.500', 2, '2030-01-05', '15.25', 'profile_history', '12.390'],
        ['DARK', '22.000', '5.000', '17.000', 2, '2030-01-10', '15.00', 'demand', '20.000'],
        ['DECAF', '8.500', '0.000', '8.500', 1, '2030-01-10', '15.00', 'demand', '10.000'],
      ],
    );
    const everything = await org.call('production.schedule.listDemandAggregate', {}, { method: 'GET' });
    assert.equal(everything.body.items.find((d: any) => d.profileCode === 'DARK').openKg, '57.000');
    const early = await org.call('production.schedule.listDemandAggregate', { dueBefore: '2030-01-05' }, { method: 'GET' });
    assert.deepEqual(early.body.items.map((d: any) => [d.profileCode, d.openKg]), [['LIGHT', '8.500']]);

    const res = await org.call('production.schedule.generateProductionSchedule', {
      name: 'Saturday',
      scheduledDate: '2030-01-04',
      locationId: site,
      dueBefore: '2030-01-31',
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const schedule = res.body;
    assert.deepEqual([schedule.state, schedule.locationId, schedule.dueBefore, schedule.scheduledDate, schedule.maxBatchesPerMachine], ['draft', site, '2030-01-31', '2030-01-04', null]);
    assert.deepEqual(
      schedule.batches.map((b: any) => [b.position, b.machineId, b.machineSequence, b.profileId, b.greenLotId, b.roastLevel, b.isDecaf, b.greenKg, b.expectedRoastedKg]),
      [
        [1, drum.id, 1, light.id, lightLot.id, 'light', false, '12.390', '10.501'], // 12.390 × 0.8475 = 10.500525
        [2, drum.id, 2, dark.id, darkLot.id, 'dark', false, '10.000', '8.500'],
        [3, drum.id, 3, dark.id, darkLot.id, 'dark', false, '10.000', '8.500'],
        [4, drum.id, 4, decaf.id, decafLot.id, 'medium', true, '5.000', '4.250'],
      ],
    );
    assert.match(schedule.batches[0].id, /^sb_/);
    assert.deepEqual(schedule.totals, { batchCount: 4, greenKg: '37.390', expectedRoastedKg: '31.751' });
    assert.deepEqual(schedule.notes.map((n: any) => [n.kind, n.greenLotId, n.shortKg]), [['green_short', decafLot.id, '5.000']]);
    assert.deepEqual((await org.call('production.schedule.getProductionSchedule', { id: schedule.id }, { method: 'GET' })).body, schedule);

    // Capped at two batches per machine, the rest is noted; without the location, the larger drum elsewhere joins.
    const capped = await org.call('production.schedule.generateProductionSchedule', { name: 'Capped', scheduledDate: '2030-01-04', locationId: site, dueBefore: '2030-01-31', maxBatchesPerMachine: 2 });
    assert.deepEqual(capped.body.batches.map((b: any) => [b.profileId, b.greenKg]), [[light.id, '12.390'], [dark.id, '15.000']]);
    assert.deepEqual(
      capped.body.notes.map((n: any) => [n.kind, n.profileId, n.unplannedKg ?? n.shortKg]),
      [['over_capacity', dark.id, '5.000'], ['green_short', decaf.id, '5.000'], ['over_capacity', decaf.id, '5.000']],
    );
    const anywhere = await org.call('production.schedule.generateProductionSchedule', { name: 'Anywhere', scheduledDate: '2030-01-04', dueBefore: '2030-01-31' });
    // The dark demand fits the big drum in one batch; the others go to the drum that sorts first on a tie.
    assert.deepEqual(
      anywhere.body.batches.map((b: any) => [b.machineId, b.machineSequence, b.greenKg]),
      [[drum.id, 1, '12.390'], [bigDrum.id, 1, '20.000'], [drum.id, 2, '5.000']],
    );
  });
});

describe('releasing a schedule', () => {
  test('draft → released once, by a holder of production.schedule.approve; again is refused', async () => {
    const org = await server.createOrg('enterprise', 'Release roastery');
    const draft = (await org.call('production.schedule.generateProductionSchedule', { name: 'Tuesday', scheduledDate: '2030-01-08' })).body;

    const planner = await org.createKey('admin', ['production.schedule.read', 'production.schedule.write']);
    await refusedUnchanged(server.owner, org, () => server.call(planner, 'production.schedule.releaseScheduleToProduction', { id: draft.id }), 403, 'permission_denied');

    const res = await org.call('production.schedule.releaseScheduleToProduction', { id: draft.id });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.state, 'released');
    assert.ok(res.body.releasedAt, 'a released schedule has releasedAt');
    assert.match(res.body.releasedBy, /^[a-z]+_/);
    assert.deepEqual({ ...res.body, state: 'draft', releasedAt: null, releasedBy: null, updatedAt: null }, { ...draft, updatedAt: null });
    const [event] = await server.owner.query<{ data: any }>(`select data from events where org_id = $1 and type = 'production.schedule.released'`, [org.id]);
    assert.equal(event.data.schedule.state, 'released');

    const again = await refusedUnchanged(server.owner, org, () => org.call('production.schedule.releaseScheduleToProduction', { id: draft.id }), 409, 'schedule_already_released');
    assert.equal(again.body.releasedAt, res.body.releasedAt);
    await refusedUnchanged(server.owner, org, () => org.call('production.schedule.releaseScheduleToProduction', { id: 'sch_0000000000ghost00000000000' }), 404, 'not_found', 'id');
  });
});

describe('input rules', () => {
  test('refusals change nothing', async () => {
    const org = await server.createOrg('enterprise', 'Strict roastery');
    const generate = (input: Record<string, unknown>) => () =>
      org.call('production.schedule.generateProductionSchedule', { name: 'Day', scheduledDate: '2030-01-07', ...input });
    await refusedUnchanged(server.owner, org, generate({ locationId: 'loc_0000000000ghost00000000000' }), 404, 'not_found', 'locationId');
    await refusedUnchanged(server.owner, org, generate({ scheduledDate: '07.01.2030' }), 400, 'invalid_input', 'scheduledDate');
    await refusedUnchanged(server.owner, org, generate({ dueBefore: '2030-13-01' }), 400, 'invalid_input', 'dueBefore');
    await refusedUnchanged(server.owner, org, generate({ maxBatchesPerMachine: 0 }), 400, 'invalid_input', 'maxBatchesPerMachine');
    await refusedUnchanged(server.owner, org, generate({ maxBatchesPerMachine: 2.5 }), 400, 'invalid_input', 'maxBatchesPerMachine');
    await refusedUnchanged(server.owner, org, generate({ name: '' }), 400, 'invalid_input', 'name');
    await refusedUnchanged(server.owner, org, generate({ priority: 'high' }), 400, 'invalid_input', 'priority');
    assertProblem(await org.call('production.schedule.listDemandAggregate', { dueBefore: 'soon' }, { method: 'GET' }), 400, 'invalid_input', 'dueBefore');
    assertProblem(await org.call('production.schedule.getProductionSchedule', { id: 'sch_0000000000ghost00000000000' }, { method: 'GET' }), 404, 'not_found', 'id');
  });
});
