import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { startTestServer } from '../../../testing/harness.js';
import { importRoastLog } from './telemetry/importers/index.js';
import { deriveMetrics, downsampleTo1Hz } from './telemetry/metrics.js';
import { makeLocation } from '../../catalog/location/tenancy.cases.js';
import { assertLedgerInvariants, importLot } from '../../inventory/green/testing.js';
import { makeProfile, makeRoaster, refusedUnchanged, roastedLedgerViolations, unique } from './testing.js';

const server = await startTestServer();
const org = await server.createOrg('enterprise', 'Import roastery');

const FIXTURES = new URL('../../../../../shared/fixtures/roast-logs/', import.meta.url);
/** Fixture content as a client sends it: text as is, the binary Cropster .xls base64-encoded. */
const fixture = (name: string) => {
  const bytes = readFileSync(new URL(name, FIXTURES));
  return name.endsWith('.xls') ? bytes.toString('base64') : bytes.toString('utf8');
};
const roastLogs = readdirSync(FIXTURES).filter((name) => !name.endsWith('.md'));

const importRoast = (input: Record<string, unknown>) => org.call('production.roast.importLoggerRoast', { batchNumber: unique('IMP'), ...input });

describe('importLoggerRoast', () => {
  test('every fixture imports through the API as a completed batch with its curve and metrics', async () => {
    assert.ok(roastLogs.length >= 12, `fixtures found: ${roastLogs}`);
    const machine = await makeRoaster(org);
    for (const name of roastLogs) {
      const content = fixture(name);
      const expected = importRoastLog(content);
      const res = await importRoast({ content, machineId: machine.id });
      assert.equal(res.status, 200, `${name}: ${JSON.stringify(res.body)}`);
      const batch = res.body;
      assert.deepEqual([batch.state, batch.source, batch.importFormat, batch.machineId], ['completed', 'import', expected.format, machine.id], name);
      for (const warning of expected.warnings) assert.ok(batch.warnings.includes(warning), `${name}: warning ${warning}`);
      if (expected.meta.roastedAt) assert.equal(batch.startedAt, expected.meta.roastedAt, name);

      const metrics = deriveMetrics(expected.curve, undefined, expected.meta.metricsOptions);
      for (const key of ['totalTimeS', 'developmentTimeRatioPct', 'firstCrackStartS', 'dropTempC', 'turningPointS'] as const) {
        assert.equal(batch.metrics[key], metrics[key] === null ? null : Math.round(metrics[key]! * 100) / 100, `${name} ${key}`);
      }

      const downsampled = downsampleTo1Hz(expected.curve.samples);
      assert.deepEqual(batch.curve, { sampleCount: downsampled.length, fullSampleCount: expected.curve.samples.length, fullCurveKey: `curves/${org.id}/${batch.id}.json` }, name);
      const curve = await org.call('production.roast.getRoastCurve', { id: batch.id }, { method: 'GET' });
      assert.equal(curve.body.samples.length, downsampled.length, name);
      assert.deepEqual(curve.body.events, expected.curve.events, name);
      const full = JSON.parse((await server.app.services.blobs.get(batch.curve.fullCurveKey))!.toString('utf8'));
      assert.equal(full.samples.length, expected.curve.samples.length, name);
    }
    const imported = await server.owner.query<{ n: number }>(`select count(*)::int as n from roast_batches where org_id = $1 and source = 'import'`, [org.id]);
    assert.equal(imported[0].n, roastLogs.length);
  });

  test('a log without a charge event imports with timeless metrics and says why', async () => {
    const res = await importRoast({ content: fixture('roast_25-09-06_1405.alog') });
    assert.equal(res.status, 200);
    assert.ok(res.body.warnings.some((w: string) => /no charge event/.test(w)), JSON.stringify(res.body.warnings));
    assert.equal(res.body.metrics.totalTimeS, null);
    assert.equal(res.body.metrics.chargeTempC, null);
  });

  test('with a green lot it books exactly what a live roast does, weights from the file', async () => {
    const locationId = await makeLocation(org);
    const lot = await importLot(org, { weightKg: '10', locationId });
    const profile = await makeProfile(org, { targetTotalTimeS: 720 });
    // profile2.alog records 1.646 kg green and 1.395 kg roasted; the inputs lose to the file, with a warning.
    const res = await importRoast({ content: fixture('profile2.alog'), greenLotId: lot.id, profileId: profile.id, chargeWeightKg: '1.7', locationId });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const batch = res.body;
    assert.deepEqual([batch.chargeWeightKg, batch.dropWeightKg, batch.weightLossPct, batch.locationId], ['1.646', '1.395', '15.25', locationId]);
    assert.ok(batch.warnings.includes('chargeWeightKg 1.7 kg not used: the file records 1.646 kg'), JSON.stringify(batch.warnings));
    assert.deepEqual(batch.profileComparison.totalTimeS, { target: 720, actual: 735.12, difference: 15.12 });

    const ledger = await server.owner.query<{ kind: string; location_id: string; delta_kg: string; group_id: string }>(
      `select kind, location_id, delta_kg, group_id from green_lot_ledger where org_id = $1 and lot_id = $2 order by seq`,
      [org.id, lot.id],
    );
    assert.deepEqual(ledger.at(-1), { kind: 'roast_consume', location_id: locationId, delta_kg: '-1.646', group_id: batch.id });
    const roasted = batch.roastedLot;
    assert.deepEqual([roasted.lotCode, roasted.onHandKg, roasted.weightLossPct, roasted.roastedAt], [`R-${batch.batchNumber}`, '1.395', '15.25', '2015-08-10T12:25:14.000Z']);
    const lineage = await server.owner.query<{ from_kind: string; to_kind: string; weight_kg: string }>(
      `select from_kind, to_kind, weight_kg from lineage_edges where org_id = $1 and group_id = $2 order by from_kind`,
      [org.id, batch.id],
    );
    assert.deepEqual(lineage.map((e) => [e.from_kind, e.to_kind, e.weight_kg]), [['green_lot', 'roast_batch', '1.646'], ['roast_batch', 'roasted_lot', '1.395']]);
    const events = await server.owner.query<{ type: string }>(`select type from events where org_id = $1 order by id desc limit 2`, [org.id]);
    assert.deepEqual(events.map((e) => e.type).sort(), ['inventory.roast.lot_created', 'production.roast.batch_imported']);
    await assertLedgerInvariants(server.owner, org.id);
    assert.deepEqual(await roastedLedgerViolations(server.owner, org.id), []);
  });

  test('the inputs give the weights the file does not record', async () => {
    const site = await makeLocation(org);
    const lot = await importLot(org, { weightKg: '5', locationId: site });
    // The Ethiopia log records the green weight (0.225 kg) but not the roasted one.
    const content = fixture('3_Ethiopia Gerba Hechere_2026-02-21.alog');
    await refusedUnchanged(server.owner, org, () => importRoast({ content, greenLotId: lot.id }), 400, 'invalid_input', 'dropWeightKg');
    const res = await importRoast({ content, greenLotId: lot.id, dropWeightKg: '0.19' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual([res.body.chargeWeightKg, res.body.dropWeightKg, res.body.weightLossPct], ['0.225', '0.190', '15.56']);
    // A batch without a location roasts where its green came from.
    assert.deepEqual([res.body.locationId, res.body.roastedLot.locationId], [null, site]);

    // A log without weights takes both from the input; without them a green lot cannot be charged.
    const weightless = fixture('RST_LOG1.csv');
    await refusedUnchanged(server.owner, org, () => importRoast({ content: weightless, greenLotId: lot.id }), 400, 'invalid_input', 'chargeWeightKg');
    const given = await importRoast({ content: weightless, greenLotId: lot.id, chargeWeightKg: '1', dropWeightKg: '0.84' });
    assert.equal(given.status, 200, JSON.stringify(given.body));
    assert.deepEqual([given.body.chargeWeightKg, given.body.dropWeightKg, given.body.weightLossPct, given.body.roastedLot.onHandKg], ['1.000', '0.840', '16.00', '0.840']);
    const green = await org.call('inventory.green.getGreenLot', { id: lot.id });
    assert.equal(green.body.onHandKg, '3.775');
  });

  test('unreadable content is refused naming the problem, and nothing is created', async () => {
    const cases: [string, RegExp][] = [
      ['date,temperature\n1,2\n', /unrecognised roast log format/],
      ['{"title": "not a roast"}', /not a known roast log/],
      ['0M8R4KGx!!!', /not valid base64/],
      [fixture('profile2.alog').slice(0, 2000), /./],
    ];
    for (const [content, problem] of cases) {
      const res = await refusedUnchanged(server.owner, org, () => importRoast({ content }), 400, 'unreadable_roast_log', 'content');
      assert.match(res.body.detail, problem);
      assert.match(res.body.errors[0].message, problem);
    }
    await refusedUnchanged(server.owner, org, () => importRoast({ content: '' }), 400, 'invalid_input', 'content');
    // A binary log sent as text holds NUL characters, which no text input takes.
    const binary = readFileSync(new URL('export-roasts_PR-0002.xls', FIXTURES)).toString('latin1');
    await refusedUnchanged(server.owner, org, () => importRoast({ content: binary }), 400, 'invalid_input', 'content');
  });

  test('the rules of a live start hold, except those about the machine today', async () => {
    const lot = await importLot(org, { weightKg: '1' });
    const content = fixture('profile2.json'); // 1.646 kg green, 1.395 kg roasted
    const ghost = 'zz_0000000000ghost00000000000';
    await refusedUnchanged(server.owner, org, () => importRoast({ content, greenLotId: lot.id }), 409, 'insufficient_stock', 'chargeWeightKg');
    await refusedUnchanged(server.owner, org, () => importRoast({ content, machineId: ghost.replace('zz', 'mch') }), 404, 'not_found', 'machineId');
    await refusedUnchanged(server.owner, org, () => importRoast({ content, profileId: ghost.replace('zz', 'prf') }), 404, 'not_found', 'profileId');
    await refusedUnchanged(server.owner, org, () => importRoast({ content, greenLotId: ghost.replace('zz', 'gl') }), 404, 'not_found', 'greenLotId');
    await refusedUnchanged(server.owner, org, () => importRoast({ content, locationId: ghost.replace('zz', 'loc') }), 404, 'not_found', 'locationId');
    const taken = await importRoast({ content });
    await refusedUnchanged(server.owner, org, () => importRoast({ content, batchNumber: taken.body.batchNumber }), 409, 'duplicate', 'batchNumber');
    await refusedUnchanged(server.owner, org, () => importRoast({ content, format: 'artisan' }), 400, 'invalid_input', 'format');
    const bigLot = await importLot(org, { weightKg: '10' });
    await server.owner.query(`update green_lots set quarantined = true where org_id = $1 and id = $2`, [org.id, bigLot.id]);
    await refusedUnchanged(server.owner, org, () => importRoast({ content, greenLotId: bigLot.id }), 409, 'lot_quarantined', 'greenLotId');

    // A roast is history: a machine deactivated since, or a charge outside today's range, does not stop its import.
    const retired = await makeRoaster(org, { minBatchKg: '5' });
    assert.equal((await org.call('catalog.machine.updateMachine', { id: retired.id, isActive: false })).status, 200);
    const res = await importRoast({ content, machineId: retired.id });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.chargeWeightKg, '1.646');
  });
});
