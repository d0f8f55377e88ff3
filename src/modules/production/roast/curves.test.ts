import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { setTimeout as pause } from 'node:timers/promises';
import { startTestServer } from '../../../testing/harness.js';
import { assertProblem } from '../../../testing/problems.js';
import type { Curve, CurveSample, RoastEvent } from './telemetry/curve.js';
import { bridgeToken, makeRoaster, postCurve, startBatch, unique } from './testing.js';

// The fixture round trip downloads some sixty files from one address: more than a person's download budget.
const server = await startTestServer({ publicPageRateWindows: [{ name: 'burst', points: 10_000, seconds: 10 }] });
const org = await server.createOrg('enterprise', 'Curve roastery');

const FIXTURES = new URL('../../../../../shared/fixtures/roast-logs/', import.meta.url);
const fixture = (name: string) => {
  const bytes = readFileSync(new URL(name, FIXTURES));
  return name.endsWith('.xls') ? bytes.toString('base64') : bytes.toString('utf8');
};
const roastLogs = readdirSync(FIXTURES).filter((name) => !name.endsWith('.md'));

const link = (id: string, format: string, expiresInSeconds?: number) =>
  org.call('production.roast.getRoastCurveLink', { id, format, ...(expiresInSeconds && { expiresInSeconds }) });

/** The linked file, fetched as a stranger would: no API key, nothing but the link. */
async function download(id: string, format: 'full' | 'alog' | 'csv'): Promise<{ text: string; headers: Headers }> {
  const issued = await link(id, format);
  assert.equal(issued.status, 200, JSON.stringify(issued.body));
  const res = await server.request(issued.body.url);
  assert.equal(res.status, 200, `${format}: ${await res.clone().text()}`);
  assert.equal(res.headers.get('content-type'), issued.body.contentType);
  assert.equal(res.headers.get('content-disposition'), `attachment; filename="${issued.body.filename}"`);
  return { text: await res.text(), headers: res.headers };
}

const fullCurve = async (id: string): Promise<Curve & { batchId: string }> => JSON.parse((await download(id, 'full')).text);

const importLog = async (content: string, input: Record<string, unknown> = {}) => {
  const res = await org.call('production.roast.importLoggerRoast', { content, batchNumber: unique('RT'), ...input });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
};

/**
 * Round-trip sameness: every reading exactly, times to a billionth of a millisecond (an export writes seconds
 * from the start of recording, and the importer's `s × 1000 − charge` can differ from the stored ms in the last bit).
 */
function assertSameCurve(actual: Curve, expected: Curve, label: string): void {
  assert.equal(actual.samples.length, expected.samples.length, `${label}: sample count`);
  const close = (a: number, b: number) => Math.abs(a - b) <= 1e-6;
  actual.samples.forEach((sample: CurveSample, i) => {
    const want = expected.samples[i];
    assert.ok(close(sample.t, want.t), `${label}: sample ${i} at ${sample.t} ms, expected ${want.t}`);
    assert.deepEqual({ ...sample, t: want.t }, want, `${label}: sample ${i}`);
  });
  assert.deepEqual(actual.events.map((e: RoastEvent) => e.type), expected.events.map((e) => e.type), `${label}: events`);
  actual.events.forEach((event, i) => assert.ok(close(event.t, expected.events[i].t), `${label}: ${event.type} at ${event.t}, expected ${expected.events[i].t}`));
}

/** A bridge's irregular ~10 Hz telemetry: jittered whole-ms intervals, readings with every decimal, extra channels some of which drop out. */
function irregularTelemetry(): Curve {
  const samples: CurveSample[] = [];
  let t = -4321;
  for (let i = 0; t <= 600_000; i++) {
    const s = t / 1000;
    const bt = 200 - 105 * Math.sin(Math.min(s, 75) / 150 * Math.PI) + Math.max(0, s - 75) * 0.22 + Math.sin(i) / 7;
    samples.push({
      t,
      bt: i % 997 === 5 ? null : bt,
      et: bt + 40 + Math.cos(i) / 3,
      channels: { burner: (i % 50) * 2, fan_speed: 1200 + (i % 7) / 3, 'inlet.probe-3': i % 13 === 0 ? null : bt + 120.125 },
    });
    t += 100 + ((i * 37) % 41) - 20;
  }
  return {
    samples,
    events: [
      { type: 'charge', t: 0 },
      { type: 'turning_point', t: 75_432 },
      { type: 'dry_end', t: 240_050 },
      { type: 'first_crack_start', t: 480_013 },
      { type: 'drop', t: 599_950 },
    ],
  };
}

describe('getRoastCurveLink', () => {
  let liveBatch: any;
  let posted: Curve;
  let machine: any;

  test('the full-fidelity curve of a live batch comes back through the link exactly as the bridge posted it', async () => {
    machine = await makeRoaster(org);
    const token = await bridgeToken(org, machine.id);
    const batch = await startBatch(org, { machineId: machine.id });
    posted = irregularTelemetry();
    await postCurve(server, token, batch.id, posted);
    const completed = await org.call('production.roast.completeRoastBatch', { id: batch.id, dropWeightKg: '8.5' });
    assert.equal(completed.status, 200, JSON.stringify(completed.body));
    liveBatch = completed.body;

    const issued = await link(batch.id, 'full');
    assert.equal(issued.status, 200, JSON.stringify(issued.body));
    assert.deepEqual(
      { ...issued.body, url: undefined, expiresAt: undefined },
      { batchId: batch.id, format: 'full', url: undefined, signedBy: 'service', expiresAt: undefined, contentType: 'application/json', filename: `${batch.batchNumber}-${batch.id}.json` },
    );
    assert.match(issued.body.url, new RegExp(`^/files/v1/curves/${batch.id}\\.json\\?org=`));
    const full = await fullCurve(batch.id);
    assert.equal(full.batchId, batch.id);
    assert.equal(full.samples.length, posted.samples.length);
    assert.equal(full.samples.length, liveBatch.curve.fullSampleCount);
    // Every sample, every channel, every value: deepEqual compares each number with Object.is.
    assert.deepEqual(full.samples, posted.samples);
    assert.deepEqual(full.events, posted.events);
  });

  test('its .alog and CSV exports import back to the same samples and, on the same machine, the same metrics', async () => {
    const alog = await download(liveBatch.id, 'alog');
    for (const part of [
      "{'version': '3.2.0', 'mode': 'C', ",
      `'title': '${liveBatch.batchNumber}'`,
      "'weight': [10000.0, 8500.0, 'g']",
      "'timeindex': [43, 2444, 4843, 0, 0, 0, 6043, 0]",
      "'extraname1': ['burner', 'fan_speed'], 'extraname2': ['inlet.probe-3', '']",
    ]) {
      assert.ok(alog.text.includes(part), `the .alog holds ${part}`);
    }
    const fromAlog = await importLog(alog.text, { machineId: machine.id });
    assert.deepEqual([fromAlog.chargeWeightKg, fromAlog.dropWeightKg], ['10.000', '8.500']);
    assert.equal(Math.floor(Date.parse(fromAlog.startedAt) / 1000), Math.floor(Date.parse(liveBatch.startedAt) / 1000), 'roast date to the second');
    assert.deepEqual(fromAlog.metrics, liveBatch.metrics);
    assertSameCurve(await fullCurve(fromAlog.id), posted, 'live batch via .alog');

    const csv = await download(liveBatch.id, 'csv');
    const [header, columns, firstRow] = csv.text.split('\r\n');
    assert.match(header, /^Date:\d\d\.\d\d\.\d{4}\tUnit:C\tCHARGE:00:04\.321\tTP:01:19\.753\tDRYe:/);
    assert.equal(columns, 'Time1\tTime2\tET\tBT\tEvent\tburner\tfan_speed\tinlet.probe-3\t');
    assert.equal(firstRow.split('\t')[0], '00:00');
    assert.equal(csv.text.split('\r\n').filter((row) => row.split('\t')[4] === 'FCs').length, 1, 'first crack marked on one row');
    const fromCsv = await importLog(csv.text, { machineId: machine.id, chargeWeightKg: '10', dropWeightKg: '8.5' });
    assert.deepEqual(fromCsv.metrics, liveBatch.metrics);
    assertSameCurve(await fullCurve(fromCsv.id), posted, 'live batch via CSV');
  });

  test('every shared fixture round-trips: import, export .alog and CSV, import the export: same samples, events and metrics', async () => {
    assert.ok(roastLogs.length >= 12, `fixtures found: ${roastLogs}`);
    let csvMetricsCompared = 0;
    for (const name of roastLogs) {
      const original = await importLog(fixture(name));
      const full = await fullCurve(original.id);

      const viaAlog = await importLog((await download(original.id, 'alog')).text);
      assert.equal(viaAlog.importFormat, 'artisan_alog');
      assert.deepEqual([viaAlog.chargeWeightKg, viaAlog.dropWeightKg], [original.chargeWeightKg, original.dropWeightKg], `${name}: weights`);
      assert.equal(Math.floor(Date.parse(viaAlog.startedAt) / 1000), Math.floor(Date.parse(original.startedAt) / 1000), `${name}: roast date`);
      assert.deepEqual(viaAlog.metrics, original.metrics, `${name}: metrics via .alog`);
      assertSameCurve(await fullCurve(viaAlog.id), full, `${name} via .alog`);

      const viaCsv = await importLog((await download(original.id, 'csv')).text, {
        ...(original.chargeWeightKg && { chargeWeightKg: original.chargeWeightKg }),
        ...(original.dropWeightKg && { dropWeightKg: original.dropWeightKg }),
      });
      assert.equal(viaCsv.importFormat, 'artisan_csv');
      assertSameCurve(await fullCurve(viaCsv.id), full, `${name} via CSV`);
      // The CSV carries no metric settings (phase temperatures, AUC, energy loads): the .alog does.
      if ((full as { settings?: unknown }).settings === undefined) {
        assert.deepEqual(viaCsv.metrics, original.metrics, `${name}: metrics via CSV`);
        csvMetricsCompared++;
      }
    }
    assert.ok(csvMetricsCompared >= 6, `CSV metrics compared for ${csvMetricsCompared} fixtures`);
  });

  test('a link works without an API key until it expires, then 410; an altered link is 403', async () => {
    const issued = await link(liveBatch.id, 'alog', 1);
    assert.equal(issued.status, 200, JSON.stringify(issued.body));
    const res = await fetch(new URL(issued.body.url, server.url), { headers: {} });
    assert.equal(res.status, 200);
    const url = new URL(issued.body.url, server.url);
    for (const path of [
      url.pathname.replace('.alog', '.json') + url.search, // the export's signature does not open the full curve
      url.pathname + url.search.replace(/sig=./, (s) => (s.endsWith('A') ? 'sig=B' : 'sig=A')),
      url.pathname,
    ]) {
      const refused = await server.request(path);
      assert.equal(refused.status, 403, path);
      assert.equal((await refused.json()).code, 'link_invalid');
    }
    await pause(Math.max(0, Date.parse(issued.body.expiresAt) - Date.now()) + 50);
    const expired = await server.request(issued.body.url);
    assert.equal(expired.status, 410);
    assert.equal((await expired.json()).code, 'link_expired');
  });

  test('another organization’s batch is 404; a live, aborted or telemetry-less batch has no curve to link (409)', async () => {
    const other = await server.createOrg('enterprise', 'Elsewhere');
    const stranger = await other.call('production.roast.getRoastCurveLink', { id: liveBatch.id, format: 'full' });
    assertProblem(stranger, 404, 'not_found', 'id');

    const live = await startBatch(org, { machineId: machine.id });
    const refused = await link(live.id, 'alog');
    assertProblem(refused, 409, 'batch_not_completed', 'id');
    assert.equal(refused.body.state, 'live');
    assert.equal((await org.call('production.roast.abortRoastBatch', { id: live.id, reason: 'dumped' })).status, 200);
    assert.equal((await link(live.id, 'csv')).body.state, 'aborted');

    const silent = await startBatch(org, { machineId: machine.id });
    assert.equal((await org.call('production.roast.completeRoastBatch', { id: silent.id })).status, 200);
    assertProblem(await link(silent.id, 'full'), 409, 'no_telemetry', 'id');

    assertProblem(await link(liveBatch.id, 'pdf'), 400, 'invalid_input', 'format');
    assertProblem(await link(liveBatch.id, 'full', 7 * 24 * 3600 + 1), 400, 'invalid_input', 'expiresInSeconds');
  });
});
