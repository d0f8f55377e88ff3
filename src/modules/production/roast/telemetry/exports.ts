import type { Curve, CurveSample, RoastEvent, RoastEventType } from './curve.js';
import { AUC_BEGINS, DEFAULT_DRY_END_C, DEFAULT_FIRST_CRACK_C, deriveMetrics, type Fuel, type MetricsOptions } from './metrics.js';
import { EXACT_EVENTS_KEY, TIMEINDEX_SLOTS } from './importers/artisan.js';
import { encodeLocal, int, toPythonLiteral, type PythonWritable } from './importers/python-literal.js';
import type { LogDetails } from './importers/types.js';
import { offsetSecondsAt, wallClockAt } from '../../../../lib/time-zones.js';

/**
 * A stored roast curve written back out as the logger files Artisan reads, so a roaster can open any batch
 * (live or imported) in Artisan, and importLoggerRoast reads the .alog back to the same samples, events, weights,
 * dates, special events and metrics (round trip, checked on every shared fixture in curves.test.ts); the CSV is
 * what Artisan's own CSV import reads (whole seconds).
 *
 * Both files are in °C (`mode` 'C') and put the start of recording at the first sample, or at charge when no
 * sample precedes it; Artisan's "no reading" is -1, so a reading of exactly -1 (and a BT/ET of 0, which Artisan
 * reads as a disconnected probe) comes back as no reading. Times are written to the nanosecond, so no binary-float
 * noise (10.999999999999998 s) reaches the file.
 */
export interface RoastExport {
  curve: Curve;
  /** The logger file's own settings the metrics were computed with (phase temperatures, AUC, energy loads). */
  settings?: MetricsOptions;
  /** An imported log's texts, sampling interval and special events. */
  details?: LogDetails;
  title: string;
  /** The batch's start, an ISO instant: its charge (t 0), or its first sample when the curve has no charge. */
  startedAt: string;
  /** The IANA zone the roast's local date and time are written in. */
  timeZone: string;
  /** Weights as weighed, grams with one decimal. */
  chargeWeightG: string | null;
  dropWeightG: string | null;
}

/** Artisan's "no reading". */
const reading = (value: number | null | undefined): number => (typeof value === 'number' ? value : -1);

/** Seconds to the nanosecond: drops the noise of binary-float arithmetic (`10.999999999999998` → 11). */
const ns = (seconds: number) => Math.round(seconds * 1e9) / 1e9 + 0;

/** Channel names in the order they first occur. */
function channelNames(samples: CurveSample[]): string[] {
  const names = new Set<string>();
  for (const sample of samples) for (const name of Object.keys(sample.channels ?? {})) names.add(name);
  return [...names];
}

/** The sample nearest to `t` (the earlier one on a tie); samples sorted by t, at least one. */
function nearestIndex(samples: CurveSample[], t: number): number {
  let lo = 0;
  let hi = samples.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (samples[mid].t < t) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 && t - samples[lo - 1].t <= samples[lo].t - t ? lo - 1 : lo;
}

/**
 * The curve on Artisan's clock. Its time axis starts at the start of recording: the first sample, or charge (t 0)
 * when it comes first; a curve without a charge keeps its own axis (already from the start of recording). The
 * recording start falls on a whole second of `roastepoch`, so timex carries the fraction (as Artisan's own files
 * do: 0.39853463) and a re-import dates the batch to the millisecond.
 */
function prepared(roast: RoastExport) {
  const samples = [...roast.curve.samples].sort((a, b) => a.t - b.t);
  if (samples.length === 0) throw new Error('a curve without samples has no export');
  const charge = roast.curve.events.find((event) => event.type === 'charge');
  const origin = Math.min(0, samples[0].t);
  // startedAt is the instant of charge, or of the first sample without one.
  const anchor = charge ? charge.t : samples[0].t;
  // startedAt is kept to the millisecond. With a charge the samples are timed from it, so the fraction of a second
  // goes into timex; without one they are timed from the start of recording, which stays timex 0 on a whole second.
  const start = Date.parse(roast.startedAt) + (origin - anchor);
  const epoch = charge ? Math.floor(start / 1000) : Math.round(start / 1000);
  // In milliseconds, where it is exact: `start / 1000 - epoch` carries the float noise of a ten-digit epoch.
  const fractionMs = charge ? start - epoch * 1000 : 0;
  const recordingStart = epoch * 1000 + fractionMs;
  return {
    samples,
    charge,
    epoch,
    recordingStart,
    seconds: (t: number) => ns((fractionMs + t - origin) / 1000),
    names: channelNames(samples),
  };
}

const pad2 = (n: number) => String(n).padStart(2, '0');

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The roast's local date and time in its zone: Artisan's roastdate (Qt's 'Sat Feb 21 2026'), roastisodate, roasttime. */
function localRoastTime(ms: number, zone: string) {
  const wall = wallClockAt(ms, zone);
  const day = new Date(`${wall.slice(0, 10)}T00:00:00Z`);
  return {
    isoDate: wall.slice(0, 10),
    time: wall.slice(11, 19),
    qtDate: `${WEEKDAYS[day.getUTCDay()]} ${MONTHS[day.getUTCMonth()]} ${day.getUTCDate()} ${day.getUTCFullYear()}`,
  };
}

const grams = (g: string | null) => (g === null ? 0 : Number(g));
/** Artisan's sourcetypes: 0 LPG, 1 natural gas, 2 electricity. */
const SOURCE_TYPES: Record<Fuel, number> = { lpg: 0, natural_gas: 1, electric: 2 };
/** The event type burner steps are written as when the log named none (Artisan's etypes[3]); load_etypes stores it + 1. */
const BURNER_ETYPE = 3;
const ETYPES = ['Air', 'Drum', 'Damper', 'Burner', '--'];
/** A number Artisan shows in an integer field stays an int; a fraction stays exact as a float. */
const intOrFloat = (value: number) => (Number.isInteger(value) ? int(value) : value);

/**
 * The batch as an Artisan profile (`.alog`): the Python literal Artisan's `ast.literal_eval` loader reads. Keys:
 * `timex` (s from the start of recording), `temp1` ET, `temp2` BT, extra channels as extra devices (two curves
 * each, `extratimex`/`extratemp1`/`extratemp2`/`extraname1`/`extraname2`; with an odd count the last device's
 * second curve is unnamed and without readings), `timeindex` (each event at its nearest sample), `weight` [charge,
 * drop, 'g'] as weighed, `title`, `beans`, `roastertype`, `operator`, `roastingnotes`, `samplinginterval`, the roast's
 * local `roastdate`/`roastisodate`/`roasttime` in its zone with `roasttzoffset` (seconds west of UTC at that moment)
 * and `roastepoch` (the start of recording), every special event of an imported log with its type names (`etypes`),
 * internal values and labels, `phases`, AUC settings and the log's energy load. Events that fall between samples (and
 * the turning point, which Artisan derives) keep their exact times under `firstcrack_events`, which Artisan ignores
 * and the importer prefers over `timeindex`.
 */
export function toArtisanAlog(roast: RoastExport): string {
  const { samples, seconds, names, epoch, recordingStart } = prepared(roast);
  const timex = samples.map((sample) => seconds(sample.t));
  const events = roast.curve.events;
  const timeindex = TIMEINDEX_SLOTS.map((type, slot) => {
    const event = events.find((e) => e.type === type);
    // Artisan's unset: -1 for CHARGE, 0 for the others (so an event on the first sample reads as unset there).
    return int(event ? nearestIndex(samples, event.t) : slot === 0 ? -1 : 0);
  });
  const devices = Math.ceil(names.length / 2);
  const curveOf = (name: string | undefined) => samples.map((sample) => (name === undefined ? -1 : reading(sample.channels?.[name])));
  // Artisan formats extra names with str.format (its "{3}" placeholders), so literal braces are doubled.
  const extraName = (name: string | undefined) => encodeLocal(name ?? '').replace(/[{}]/g, '$&$&');
  // Device d carries channel d as its first curve and channel devices + d as its second: the importer reads every
  // first curve, then every second one, so the channels come back in their order.
  const perDevice = <T extends PythonWritable>(make: (first: number, second: number) => T) =>
    Array.from({ length: devices }, (_, d) => make(d, devices + d));
  const settings = roast.settings ?? {};
  const details = roast.details ?? {};
  const local = localRoastTime(recordingStart, roast.timeZone);
  const texts = Object.fromEntries(
    (
      [
        ['beans', details.beans],
        ['roastertype', details.roasterType],
        ['operator', details.operator],
        ['roastingnotes', details.roastingNotes],
      ] as const
    ).map(([key, value]) => [key, encodeLocal(value ?? '')]),
  );
  const profile: Record<string, PythonWritable> = {
    // The profile format these keys follow (the oldest Artisan release among the shared fixtures).
    version: '3.2.0',
    mode: 'C',
    title: encodeLocal(roast.title),
    ...texts,
    roastdate: local.qtDate,
    roastisodate: local.isoDate,
    roasttime: local.time,
    roastepoch: int(epoch),
    roasttzoffset: int(-offsetSecondsAt(recordingStart, roast.timeZone)),
    weight: [grams(roast.chargeWeightG), grams(roast.dropWeightG), 'g'],
    samplinginterval: details.samplingIntervalS ?? medianInterval(timex),
    timeindex,
    timex,
    temp1: samples.map((sample) => reading(sample.et)),
    temp2: samples.map((sample) => reading(sample.bt)),
    extradevices: perDevice(() => int(25)),
    extratimex: perDevice(() => timex),
    extratemp1: perDevice((first) => curveOf(names[first])),
    extratemp2: perDevice((_, second) => curveOf(names[second])),
    extraname1: perDevice((first) => extraName(names[first])),
    extraname2: perDevice((_, second) => extraName(names[second])),
    extramathexpression1: perDevice(() => ''),
    extramathexpression2: perDevice(() => ''),
    extraDelta1: perDevice(() => false),
    extraDelta2: perDevice(() => false),
    extraNoneTempHint1: perDevice(() => false),
    extraNoneTempHint2: perDevice(() => false),
    etypes: (details.eventTypes ?? ETYPES).map(encodeLocal),
    phases: [
      settings.phases?.dryEndC ?? DEFAULT_DRY_END_C,
      settings.phases?.dryEndC ?? DEFAULT_DRY_END_C,
      settings.phases?.firstCrackC ?? DEFAULT_FIRST_CRACK_C,
      230,
    ].map(intOrFloat),
    [EXACT_EVENTS_KEY]: events.map((event) => [event.type, seconds(event.t)]),
    ...aucSettings(settings),
    ...energyLoad(settings, samples, details.specialEvents !== undefined),
    ...specialEvents(details, samples),
  };
  return `${toPythonLiteral(profile)}\n`;
}

/** The log's special events at their samples, as Artisan keeps them (index, type, internal value, label). */
function specialEvents({ specialEvents: events }: LogDetails, samples: CurveSample[]): Record<string, PythonWritable> {
  if (!events) return {};
  return {
    specialevents: events.map((event) => int(nearestIndex(samples, event.t))),
    specialeventstype: events.map((event) => int(event.type)),
    specialeventsvalue: events.map((event) => event.value),
    specialeventsStrings: events.map((event) => encodeLocal(event.label)),
  };
}

function medianInterval(timex: number[]): number {
  const gaps = timex.slice(1).map((t, i) => t - timex[i]).sort((a, b) => a - b);
  return gaps.length === 0 ? 1 : ns(gaps[gaps.length >> 1]);
}

function aucSettings({ auc }: MetricsOptions): Record<string, PythonWritable> {
  if (!auc) return {};
  return {
    ...(auc.begin && { AUCbegin: int(AUC_BEGINS.indexOf(auc.begin)) }),
    ...(auc.baseC !== undefined && { AUCbase: intOrFloat(auc.baseC) }),
    ...(auc.baseFromEvent && { AUCbaseFlag: true }),
  };
}

/**
 * The log's burner as Artisan's first energy load: rating in kW (ratingunits 3), its fuel, and the event type its
 * steps are recorded as. A log's own special events already hold the steps; otherwise each power step is written as
 * a burner special event at its nearest sample, valued in Artisan's internal encoding (pct / 10 + 1).
 */
function energyLoad({ energy }: MetricsOptions, samples: CurveSample[], logHasEvents: boolean): Record<string, PythonWritable> {
  if (!energy) return {};
  const etype = energy.eventType ?? BURNER_ETYPE;
  const four = <T extends PythonWritable>(first: T, rest: T) => [first, rest, rest, rest];
  const load = {
    loadlabels: four('Burner', ''),
    loadratings: four(ns(energy.ratingKw), 0),
    ratingunits: four(int(3), int(0)),
    sourcetypes: four(int(SOURCE_TYPES[energy.fuel]), int(0)),
    load_etypes: four(int(etype + 1), int(0)),
    loadevent_zeropcts: four(int(0), int(0)),
    loadevent_hundpcts: four(int(100), int(100)),
    presssure_percents: four(energy.pressure === true, false),
    electricEnergyMix: intOrFloat(energy.renewablePct ?? 0),
  };
  if (logHasEvents) return load;
  const steps = energy.burner.map((step) => ({ index: nearestIndex(samples, step.t), value: ns(step.pct / 10 + 1) }));
  return {
    ...load,
    specialevents: steps.map((step) => int(step.index)),
    specialeventstype: steps.map(() => int(etype)),
    specialeventsvalue: steps.map((step) => step.value),
    specialeventsStrings: steps.map(() => ''),
  };
}

/** Labels of Artisan's CSV header and Event column, per event. */
const CSV_EVENTS: { type: RoastEventType; header: string; label: string }[] = [
  { type: 'charge', header: 'CHARGE', label: 'CHARGE' },
  { type: 'turning_point', header: 'TP', label: 'TP' },
  { type: 'dry_end', header: 'DRYe', label: 'DRY End' },
  { type: 'first_crack_start', header: 'FCs', label: 'FCs' },
  { type: 'first_crack_end', header: 'FCe', label: 'FCe' },
  { type: 'second_crack_start', header: 'SCs', label: 'SCs' },
  { type: 'second_crack_end', header: 'SCe', label: 'SCe' },
  { type: 'drop', header: 'DROP', label: 'DROP' },
  { type: 'cool_end', header: 'COOL', label: 'COOL' },
];

/** Artisan's mm:ss of whole seconds (its CSV reader, `stringtoseconds`, takes nothing else); minutes are not wrapped. */
function clock(seconds: number): string {
  return `${pad2(Math.floor(seconds / 60))}:${pad2(seconds % 60)}`;
}

/** Python's str(float), as Artisan's writer prints readings: 219.0, not 219. */
const pyFloat = (value: number) => (Number.isInteger(value) ? value.toFixed(1) : String(value));

/** A tab-separated cell, quoted when it holds a tab, quote or line break. */
const cell = (text: string) => (/[\t"\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);

/**
 * The batch as Artisan's CSV export, the layout Artisan's CSV import (`importCSV`) reads: tab-separated; line 1
 * `Date:` (dd.MM.yyyy) and `Time:` (HH:MM), the roast's local date and time in its zone, `Unit:C` and every event
 * (CHARGE, TP, DRYe, FCs, FCe, SCs, SCe, DROP, COOL; TP as marked, else as derived) at its row's Time1; line 2 the
 * column names `Time1 Time2 ET BT Event` and one column per extra channel (an odd count gets an unnamed column of
 * -1, as Artisan reads channels in pairs); then one row per whole second, as Artisan writes it: Time1 mm:ss from the
 * first sample (the first sample of each second, like Artisan's writer, which skips a row whose Time1 repeats),
 * Time2 from charge (empty before it), ET, BT, the event label on its row, the channels. No weights, special events
 * nor metric settings: the .alog carries those.
 */
export function toArtisanCsv(roast: RoastExport): string {
  const { samples, names, charge, recordingStart } = prepared(roast);
  const first = samples[0].t;
  const time1 = (t: number) => Math.round((t - first) / 1000);
  // One row per whole second of Time1: the first sample that rounds to it.
  const rows: number[] = [];
  samples.forEach((sample, i) => {
    if (rows.length === 0 || time1(sample.t) !== time1(samples[rows[rows.length - 1]].t)) rows.push(i);
  });
  /** The written row nearest to `t`. */
  const rowAt = (t: number) => {
    const target = time1(t);
    let best = 0;
    rows.forEach((index, r) => {
      if (Math.abs(time1(samples[index].t) - target) < Math.abs(time1(samples[rows[best]].t) - target)) best = r;
    });
    return best;
  };
  const eventRows = new Map<RoastEventType, number>();
  for (const { type } of CSV_EVENTS) {
    const event = roast.curve.events.find((e) => e.type === type) ?? (type === 'turning_point' ? derivedTurningPoint(roast, charge) : undefined);
    if (event) eventRows.set(type, rowAt(event.t));
  }
  const labels = new Map<number, string>();
  for (const { type, label } of CSV_EVENTS) {
    const row = eventRows.get(type);
    // One Event cell per row: the first event on a row names it; the header lists every event.
    if (row !== undefined && !labels.has(row)) labels.set(row, label);
  }
  const local = wallClockAt(recordingStart, roast.timeZone);
  const header = [
    `Date:${local.slice(8, 10)}.${local.slice(5, 7)}.${local.slice(0, 4)}`,
    'Unit:C',
    ...CSV_EVENTS.map(({ type, header: label }) => {
      const row = eventRows.get(type);
      return `${label}:${row === undefined ? '' : clock(time1(samples[rows[row]].t))}`;
    }),
    `Time:${local.slice(11, 16)}`,
  ];
  const columns = names.length % 2 === 1 ? [...names, ''] : names;
  const lines = rows.map((index, r) => {
    const sample = samples[index];
    return [
      clock(time1(sample.t)),
      charge && sample.t >= charge.t ? clock(Math.round((sample.t - charge.t) / 1000)) : '',
      pyFloat(reading(sample.et)),
      pyFloat(reading(sample.bt)),
      labels.get(r) ?? '',
      ...columns.map((name, c) => pyFloat(c >= names.length ? -1 : reading(sample.channels?.[name]))),
    ].join('\t');
  });
  return [header.map(cell).join('\t'), ['Time1', 'Time2', 'ET', 'BT', 'Event', ...columns].map(cell).join('\t'), ...lines].join('\r\n') + '\r\n';
}

/** The turning point Artisan's CSV writer derives (findTPint) when none is marked, at its sample's time. */
function derivedTurningPoint(roast: RoastExport, charge: RoastEvent | undefined): RoastEvent | undefined {
  const seconds = deriveMetrics(roast.curve, undefined, roast.settings).turningPointS;
  return seconds === null ? undefined : { type: 'turning_point', t: (charge?.t ?? 0) + seconds * 1000 };
}
