import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { setTimeout as pause } from 'node:timers/promises';
import { startTestServer } from '../../../testing/harness.js';
import { assertProblem } from '../../../testing/problems.js';
import type { Curve, CurveSample, RoastEvent } from './telemetry/curve.js';
import type { FullCurve } from './curve-files.js';
import { toArtisanAlog } from './telemetry/exports.js';
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

const CSV_HEADER_EVENTS = ['CHARGE', 'TP', 'DRYe', 'FCs', 'FCe', 'SCs', 'SCe', 'DROP', 'COOL'];
const CSV_ROW_LABELS = ['CHARGE', 'TP', 'DRY End', 'FCs', 'FCe', 'SCs', 'SCe', 'DROP', 'COOL'];

/**
 * Artisan's CSV import (`importCSV`) as it reads a file, failing where it would: tab-separated, a 12-cell header
 * (Date, Unit, the nine event times, Time) read by position, times through `stringtoseconds` (int minutes and int
 * seconds only), rows zipped with the column names and dropped when Time1 does not increase, ET/BT through float().
 * Returns the seconds it reads per row and, per header event, the row its time falls on.
 */
function artisanReadsCsv(text: string, label: string) {
  const stringToSeconds = (value: string) => {
    const match = /^(-?\d+):(\d+)$/.exec(value);
    assert.ok(match, `${label}: Artisan's stringtoseconds reads "${value}"`);
    return Number(match[1]) * 60 + Math.sign(Number(match[1]) || 1) * Number(match[2]);
  };
  const pyFloat = (value: string) => {
    assert.match(value, /^-?\d+(\.\d+)?(e[+-]?\d+)?$/, `${label}: Python float() reads "${value}"`);
    return Number(value);
  };
  const [headerLine, fieldLine, ...rest] = text.split('\r\n');
  assert.equal(rest.pop(), '', `${label}: CRLF after the last row`);
  const header = headerLine.split('\t');
  assert.equal(header.length, 12, `${label}: 12 header cells`);
  assert.match(header[0], /^Date:\d\d\.\d\d\.\d{4}$/);
  assert.equal(header[1], 'Unit:C');
  assert.match(header[11], /^Time:\d\d:\d\d$/);
  const fields = fieldLine.split('\t');
  assert.deepEqual(fields.slice(0, 5), ['Time1', 'Time2', 'ET', 'BT', 'Event']);
  const seconds: number[] = [];
  const labels = new Map<number, string>();
  for (const line of rest) {
    const row = line.split('\t');
    assert.equal(row.length, fields.length, `${label}: a cell per column`);
    const t = stringToSeconds(row[0]);
    assert.ok(seconds.length === 0 || t > seconds[seconds.length - 1], `${label}: Time1 ${row[0]} increases (Artisan drops the row otherwise)`);
    if (row[1] !== '') stringToSeconds(row[1]);
    pyFloat(row[2]);
    pyFloat(row[3]);
    for (const extra of row.slice(5)) pyFloat(extra);
    if (row[4] !== '') labels.set(seconds.length, row[4]);
    seconds.push(t);
  }
  const events = new Map<string, number>();
  CSV_HEADER_EVENTS.forEach((name, i) => {
    const [key, value] = [header[2 + i].slice(0, name.length + 1), header[2 + i].slice(name.length + 1)];
    assert.equal(key, `${name}:`, `${label}: header cell ${2 + i}`);
    if (value === '') return;
    const row = seconds.indexOf(stringToSeconds(value));
    assert.ok(row >= 0, `${label}: ${name} at ${value} falls on a row`);
    events.set(name, row);
  });
  // Every event in the header is named on its row, unless an earlier event took that row's one Event cell.
  CSV_HEADER_EVENTS.forEach((name, i) => {
    const row = events.get(name);
    if (row !== undefined && [...events.entries()].every(([other, r]) => other === name || r !== row || CSV_HEADER_EVENTS.indexOf(other) > i)) {
      assert.equal(labels.get(row), CSV_ROW_LABELS[i], `${label}: ${name} named on its row`);
    }
  });
  assert.ok([...labels.values()].every((name) => CSV_ROW_LABELS.includes(name)), `${label}: only event names in the Event column`);
  return { seconds, events, labels };
}

/** The .alog's times and weights carry no binary-float noise (10.999999999999998): at most 9 decimals, none ending in a run of 9s. */
function assertNoTimeNoise(alog: string, label: string): void {
  for (const key of ['timex', 'weight', 'firstcrack_events', 'samplinginterval']) {
    const value = new RegExp(`'${key}': (\\[[^\\]]*\\]|[^,]*)`).exec(alog)?.[1];
    assert.ok(value !== undefined, `${label}: ${key} written`);
    for (const number of value.match(/-?\d+\.\d+/g) ?? []) {
      assert.ok(/^-?\d+\.\d{1,9}$/.test(number) && !/9{6,}\d?$/.test(number), `${label}: ${key} holds ${number}`);
    }
  }
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
    assertNoTimeNoise(alog.text, 'live batch');
    const fromAlog = await importLog(alog.text, { machineId: machine.id });
    assert.deepEqual([fromAlog.chargeWeightKg, fromAlog.dropWeightKg], ['10.000', '8.500']);
    // The live batch's start is its charge (t 0): the export's roastepoch and timex give it back to the millisecond.
    assert.equal(fromAlog.startedAt, liveBatch.startedAt, 'roast date');
    assert.deepEqual(fromAlog.metrics, liveBatch.metrics);
    assertSameCurve(await fullCurve(fromAlog.id), posted, 'live batch via .alog');

    const csv = await download(liveBatch.id, 'csv');
    const read = artisanReadsCsv(csv.text, 'live batch CSV');
    const [header, columns] = csv.text.split('\r\n');
    assert.match(header, /^Date:\d\d\.\d\d\.\d{4}\tUnit:C\tCHARGE:00:04\tTP:01:20\tDRYe:04:04\tFCs:08:04\tFCe:\tSCs:\tSCe:\tDROP:10:04\tCOOL:\tTime:\d\d:\d\d$/);
    assert.equal(columns, 'Time1\tTime2\tET\tBT\tEvent\tburner\tfan_speed\tinlet.probe-3\t');
    // One row per whole second, as Artisan writes and reads it: 00:00 to 10:04.
    assert.deepEqual([read.seconds.length, read.seconds[0], read.seconds.at(-1)], [605, 0, 604]);
    const fromCsv = await importLog(csv.text, { machineId: machine.id, chargeWeightKg: '10', dropWeightKg: '8.5' });
    const csvCurve = await fullCurve(fromCsv.id);
    assert.equal(csvCurve.samples.length, 605);
    assert.deepEqual(csvCurve.events.map((e) => [e.type, e.t]), [['charge', 0], ['turning_point', 76_000], ['dry_end', 240_000], ['first_crack_start', 480_000], ['drop', 600_000]]);
  });

  test('the .alog carries no time noise whatever the millisecond the batch started on', () => {
    // The live batch above starts at the clock's millisecond; the epoch's float noise once reached timex for 34
    // of every 1,000 of them (2.039999998), so every millisecond of one second is written here, with the live
    // curve's first 300 irregular samples (the noise depends on the start and the samples' times, not their number).
    const live = irregularTelemetry();
    const curve: Curve = { samples: live.samples.slice(0, 300), events: live.events.filter((event) => event.type === 'charge') };
    for (let ms = 0; ms < 1000; ms++) {
      const startedAt = new Date(Date.UTC(2026, 10, 28, 15, 0, 0, ms)).toISOString();
      const alog = toArtisanAlog({ curve, title: 'noise', startedAt, timeZone: 'Europe/Berlin', chargeWeightG: '10000.0', dropWeightG: '8500.0' });
      assertNoTimeNoise(alog, `started at ${startedAt}`);
    }
  });

  test('every shared fixture round-trips: import, export .alog, import: same samples, events, special events, weights, dates and metrics; the CSV is what Artisan reads', async () => {
    assert.ok(roastLogs.length >= 12, `fixtures found: ${roastLogs}`);
    let specialEvents = 0;
    for (const name of roastLogs) {
      const original = await importLog(fixture(name));
      const full = (await fullCurve(original.id)) as FullCurve;

      const alog = (await download(original.id, 'alog')).text;
      assertNoTimeNoise(alog, name);
      const viaAlog = await importLog(alog);
      assert.equal(viaAlog.importFormat, 'artisan_alog');
      for (const field of ['chargeWeightKg', 'dropWeightKg', 'chargeWeightG', 'dropWeightG', 'weightLossPct', 'startedAt', 'completedAt', 'metrics'] as const) {
        assert.deepEqual(viaAlog[field], original[field], `${name}: ${field} via .alog`);
      }
      const again = (await fullCurve(viaAlog.id)) as FullCurve;
      assertSameCurve(again, full, `${name} via .alog`);
      // Burner step times to a millionth of a millisecond, like sample times.
      const settingsOf = (curve: FullCurve) =>
        curve.settings?.energy ? { ...curve.settings, energy: { ...curve.settings.energy, burner: curve.settings.energy.burner.map((step) => ({ ...step, t: Math.round(step.t * 1e6) / 1e6 })) } } : curve.settings;
      // A log without settings is exported with Artisan's default phase temperatures.
      assert.deepEqual(settingsOf(again), settingsOf(full) ?? { phases: { dryEndC: 150, firstCrackC: 200 } }, `${name}: metric settings`);
      // Every detail the log had comes back (the export adds the sampling interval and type names a non-Artisan log lacks).
      for (const [key, value] of Object.entries(full.details ?? {})) {
        if (key !== 'specialEvents') assert.deepEqual(again.details?.[key as keyof typeof again.details], value, `${name}: ${key}`);
      }
      const specials = full.details?.specialEvents ?? [];
      assert.equal(again.details?.specialEvents?.length ?? 0, specials.length, `${name}: every special event`);
      specials.forEach((event, i) => {
        const back = again.details!.specialEvents![i];
        assert.deepEqual({ ...back, t: event.t }, event, `${name}: special event ${i}`);
        assert.ok(Math.abs(back.t - event.t) <= 1e-6, `${name}: special event ${i} time`);
      });
      specialEvents += specials.length;

      const csv = (await download(original.id, 'csv')).text;
      const read = artisanReadsCsv(csv, name);
      assert.ok(read.seconds.length >= Math.floor((full.samples.at(-1)!.t - full.samples[0].t) / 1000 / 10), `${name}: rows`);
      const viaCsv = await importLog(csv);
      assert.equal(viaCsv.importFormat, 'artisan_csv');
      const csvCurve = await fullCurve(viaCsv.id);
      assert.equal(csvCurve.samples.length, read.seconds.length, `${name}: every CSV row is a sample`);
      const types = (curve: Curve) => curve.events.map((e) => e.type).filter((type) => type !== 'turning_point');
      assert.deepEqual(types(csvCurve), types(full), `${name}: the events via CSV`);
    }
    // Artisan logs hold 14, 2, 61 and 9 special events.
    assert.ok(specialEvents >= 14 + 2 + 2 + 61 + 9, `special events compared: ${specialEvents}`);
  });

  test('a link works without an API key until it expires, then 410; an altered link is 403', async () => {
    // Long enough for the link to be used before it expires on a busy machine; the wait below is until it does.
    const issued = await link(liveBatch.id, 'alog', 4);
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
