import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { startTestServer } from '../../../testing/harness.js';
import { setOrganizationTimeZone } from '../../../auth/organizations.js';
import { importRoastLog } from './telemetry/importers/index.js';
import { deriveMetrics, downsampleTo1Hz } from './telemetry/metrics.js';
import { makeLocation } from '../../catalog/location/tenancy.cases.js';
import { assertLedgerInvariants, importLot } from '../../inventory/green/testing.js';
import { generated } from '../../reporting/testing.js';
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
      // Dated by the log: charge and drop on its clock (a zone-less local time is read in UTC here: no zone is set).
      const origin = expected.meta.roastedAt ?? (expected.meta.localRoastedAt && `${expected.meta.localRoastedAt}Z`);
      if (origin) {
        const at = (ms: number) => new Date(Math.round(Date.parse(origin) + ms)).toISOString();
        assert.deepEqual([batch.startedAt, batch.completedAt], [at(expected.span.startMs), at(expected.span.endMs)], name);
      }

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
    // profile2.alog records 1646.0 g green and 1395.0 g roasted; the request wins, and the warning names both values.
    const res = await importRoast({ content: fixture('profile2.alog'), greenLotId: lot.id, profileId: profile.id, chargeWeightKg: '1.7', locationId });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const batch = res.body;
    assert.deepEqual([batch.chargeWeightKg, batch.dropWeightKg, batch.weightLossPct, batch.locationId], ['1.700', '1.395', '17.94', locationId]);
    assert.deepEqual([batch.chargeWeightG, batch.dropWeightG], ['1700.0', '1395.0']);
    assert.ok(batch.warnings.includes("chargeWeightKg: the request's 1.7 kg is used; the log records 1646.0 g"), JSON.stringify(batch.warnings));
    assert.deepEqual(batch.profileComparison.totalTimeS, { target: 720, actual: 735.12, difference: 15.12 });

    const ledger = await server.owner.query<{ kind: string; location_id: string; delta_kg: string; group_id: string }>(
      `select kind, location_id, delta_kg, group_id from green_lot_ledger where org_id = $1 and lot_id = $2 order by seq`,
      [org.id, lot.id],
    );
    assert.deepEqual(ledger.at(-1), { kind: 'roast_consume', location_id: locationId, delta_kg: '-1.700', group_id: batch.id });
    const roasted = batch.roastedLot;
    // Roasted at the log's charge: recording start 12:25:14 + 21.2555 s.
    assert.deepEqual([roasted.lotCode, roasted.onHandKg, roasted.weightLossPct, roasted.roastedAt], [`R-${batch.batchNumber}`, '1.395', '17.94', batch.startedAt]);
    assert.match(batch.startedAt, /^2015-08-10T12:25:35\.25[56]Z$/);
    const lineage = await server.owner.query<{ from_kind: string; to_kind: string; weight_kg: string }>(
      `select from_kind, to_kind, weight_kg from lineage_edges where org_id = $1 and group_id = $2 order by from_kind`,
      [org.id, batch.id],
    );
    assert.deepEqual(lineage.map((e) => [e.from_kind, e.to_kind, e.weight_kg]), [['green_lot', 'roast_batch', '1.700'], ['roast_batch', 'roasted_lot', '1.395']]);
    const events = await server.owner.query<{ type: string }>(`select type from events where org_id = $1 order by id desc limit 2`, [org.id]);
    assert.deepEqual(events.map((e) => e.type).sort(), ['inventory.roast.lot_created', 'production.roast.batch_imported']);
    // The certificate shows the roast's own dates, not the day of import.
    const certificate = await org.call('traceability.issueCertificate', { roastedLotId: roasted.id });
    assert.equal(certificate.status, 200, JSON.stringify(certificate.body));
    const [certified] = certificate.body.snapshot.roastBatches;
    assert.deepEqual([certified.startedAt, certified.completedAt], [batch.startedAt, batch.completedAt]);
    assert.match(batch.completedAt, /^2015-08-10T12:37:50\.37[34]Z$/);
    const page = await (await server.request(certificate.body.publicPath)).text();
    assert.equal(page.match(/Roasted on<\/dt><dd>([^<]*)/)?.[1], '10 August 2015', 'the public page');
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
    assert.ok(
      res.body.warnings.includes(`the charge of 1.646 kg is below the machine's minimum batch of 5.000 kg (${retired.code})`),
      `a charge outside the machine's range is a warning: ${JSON.stringify(res.body.warnings)}`,
    );
    const within = await importRoast({ content, machineId: (await makeRoaster(org, { minBatchKg: '1', maxBatchKg: '2' })).id });
    assert.ok(!within.body.warnings.some((w: string) => /minimum batch|maximum batch/.test(w)), JSON.stringify(within.body.warnings));
  });

  test('an imported roast keeps its own dates: charge and drop from the log, a local time read in the machine location’s zone', async () => {
    const own = await server.createOrg('enterprise', 'Dated roastery');
    const call = (input: Record<string, unknown>) => own.call('production.roast.importLoggerRoast', { batchNumber: unique('IMP'), ...input });
    // profile2.alog: recording started at roastepoch 1439209514 (2015-08-10 12:25:14 UTC), charge at 21.2555 s, drop at 756.3735 s.
    const alog = await call({ content: fixture('profile2.alog') });
    assert.equal(alog.status, 200, JSON.stringify(alog.body));
    const epoch = 1_439_209_514_000;
    assert.ok(Math.abs(Date.parse(alog.body.startedAt) - (epoch + 21_255.5)) <= 1, alog.body.startedAt);
    assert.ok(Math.abs(Date.parse(alog.body.completedAt) - (epoch + 756_373.5)) <= 1, alog.body.completedAt);
    assert.ok(!alog.body.warnings.some((w: string) => /time zone/.test(w)), 'an epoch needs no zone');

    // The CSV says Date:10.08.2015 Time:14:25 without a zone, CHARGE 00:15 and DROP 12:30 from the first sample.
    const berlin = (await own.call('catalog.location.createLocation', { code: unique('L'), name: 'Berlin', kind: 'warehouse', timezone: 'Europe/Berlin' })).body;
    const machine = (await own.call('catalog.machine.registerMachine', { name: 'Probat', code: unique('M'), locationId: berlin.id })).body;
    const csv = await call({ content: fixture('profile2.csv'), machineId: machine.id });
    assert.equal(csv.status, 200, JSON.stringify(csv.body));
    assert.deepEqual([csv.body.startedAt, csv.body.completedAt], ['2015-08-10T12:25:15.000Z', '2015-08-10T12:37:30.000Z']);
    assert.ok(
      csv.body.warnings.includes(`the log's roast time 2015-08-10 14:25:00 has no time zone: read in Europe/Berlin, the time zone of machine ${machine.code}'s location ${berlin.code}`),
      JSON.stringify(csv.body.warnings),
    );
    // Without a zone anywhere it is read as UTC, and the answer says so.
    const utc = await call({ content: fixture('profile2.csv') });
    assert.equal(utc.body.startedAt, '2015-08-10T14:25:15.000Z');
    assert.ok(utc.body.warnings.some((w: string) => w.startsWith("the log's roast time 2015-08-10 14:25:00 has no time zone: read in UTC")), JSON.stringify(utc.body.warnings));

    // The production summary for August 2015 counts them; the roast's month, not the month of import.
    const august = await generated(own, { kind: 'production_summary', parameters: { from: '2015-08-01', to: '2015-08-31' } });
    assert.equal(august.status, 'ready', JSON.stringify(august));
    assert.equal(august.summary.batches, 3);
    const today = new Date().toISOString().slice(0, 10);
    assert.equal((await generated(own, { kind: 'production_summary', parameters: { from: today, to: today } })).summary.batches, 0);
    const listed = await own.call('production.roast.listRoastBatches', { filter: { from: '2015-08-10', to: '2015-08-10' } }, { method: 'GET' });
    assert.equal(listed.body.items.length, 3);

    // With neither location zoned, the organization's time zone is next (New York: UTC-4 in August).
    assert.equal(await setOrganizationTimeZone(server.owner, own.id, 'America/New_York'), true);
    const organizationZone = await call({ content: fixture('profile2.csv') });
    assert.equal(organizationZone.body.startedAt, '2015-08-10T18:25:15.000Z');
    assert.ok(organizationZone.body.warnings.some((w: string) => w.includes('read in America/New_York, the organization’s time zone')), JSON.stringify(organizationZone.body.warnings));
  });

  test('weights keep what the scale said: 130.0 g → 115.2 g is an 11.38 % loss (Artisan: 11.4 %), and the .alog gives 115.2 g back', async () => {
    const content = fixture('profile2.alog').replace("'weight': [1646.0, 1395.0, 'g']", "'weight': [130.0, 115.2, 'g']");
    assert.ok(content.includes("[130.0, 115.2, 'g']"), 'the exported .alog gives back the weights as weighed');
    const res = await importRoast({ content });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const b = res.body;
    assert.deepEqual([b.chargeWeightG, b.dropWeightG, b.chargeWeightKg, b.dropWeightKg, b.weightLossPct], ['130.0', '115.2', '0.130', '0.115', '11.38']);
    assert.equal(b.metrics.weightLossPct, 11.38);
    const issued = await org.call('production.roast.getRoastCurveLink', { id: b.id, format: 'alog' });
    const alog = await (await server.request(issued.body.url)).text();
    assert.ok(alog.includes("'weight': [130.0, 115.2, 'g']"), 'the export gives the weights back as weighed');
    const again = await importRoast({ content: alog });
    assert.deepEqual([again.body.chargeWeightG, again.body.dropWeightG, again.body.weightLossPct], ['130.0', '115.2', '11.38']);
    // With a green lot, stock moves to the gram.
    const lot = await importLot(org, { weightKg: '1' });
    const booked = await importRoast({ content, greenLotId: lot.id });
    assert.equal(booked.status, 200, JSON.stringify(booked.body));
    assert.equal(booked.body.roastedLot.onHandKg, '0.115');
    assert.equal((await org.call('inventory.green.getGreenLot', { id: lot.id })).body.onHandKg, '0.870');
  });

  test('a log without a charge keeps its marked events, timed from the start of recording, with phase metrics empty and a warning', async () => {
    const content = fixture('profile2.alog').replace("'timeindex': [3, 42, 109, 134, 0, 0, 149, 0]", "'timeindex': [-1, 42, 109, 134, 0, 0, 149, 0]");
    assert.notEqual(content, fixture('profile2.alog'));
    const res = await importRoast({ content });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.ok(res.body.warnings.some((w: string) => /no charge event: sample and event times are from the start of recording/.test(w)), JSON.stringify(res.body.warnings));
    const curve = await org.call('production.roast.getRoastCurve', { id: res.body.id }, { method: 'GET' });
    assert.deepEqual(curve.body.events.map((e: { type: string; t: number }) => [e.type, Math.round(e.t)]), [
      ['dry_end', 221_288], ['first_crack_start', 556_342], ['first_crack_end', 681_361], ['drop', 756_374],
    ]);
    const m = res.body.metrics;
    assert.deepEqual([m.dryEndS, m.firstCrackStartS, m.firstCrackEndS, m.dropS], [221.29, 556.34, 681.36, 756.37]);
    assert.equal(typeof m.turningPointS, 'number');
    assert.deepEqual([m.chargeTempC, m.dryingPhaseS, m.developmentPhaseS, m.totalTimeS, m.aucCMin, m.rorTotalCPerMin], [null, null, null, null, null, null]);
    // Dated from the first sample to the drop.
    assert.ok(Math.abs(Date.parse(res.body.startedAt) - (1_439_209_514_000 + 6_251)) <= 1, res.body.startedAt);
  });
});
