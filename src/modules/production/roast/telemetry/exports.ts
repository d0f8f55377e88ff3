import type { Curve, CurveSample, RoastEvent, RoastEventType } from './curve.js';
import { AUC_BEGINS, DEFAULT_DRY_END_C, DEFAULT_FIRST_CRACK_C, type Fuel, type MetricsOptions } from './metrics.js';
import { EXACT_EVENTS_KEY, TIMEINDEX_SLOTS } from './importers/artisan.js';
import { encodeLocal, int, toPythonLiteral, type PythonWritable } from './importers/python-literal.js';

/**
 * A stored roast curve written back out as the logger files Artisan reads, so a roaster can open any batch
 * (live or imported) in Artisan, and importLoggerRoast reads the export back to the same samples, events and
 * metrics (round trip, checked on every shared fixture in curves.test.ts).
 *
 * Both files are in °C (`mode` 'C') and put the start of recording at the first sample, or at charge when no
 * sample precedes it; Artisan's "no reading" is -1, so a reading of exactly -1 (and a BT/ET of 0, which Artisan
 * reads as a disconnected probe) comes back as no reading.
 */
export interface RoastExport {
  curve: Curve;
  /** The logger file's own settings the metrics were computed with (phase temperatures, AUC, energy loads). */
  settings?: MetricsOptions;
  title: string;
  /** When the roast started (recording start for an import), an ISO instant. */
  startedAt: string;
  chargeWeightKg: string | null;
  dropWeightKg: string | null;
}

/** Artisan's "no reading". */
const reading = (value: number | null | undefined): number => (typeof value === 'number' ? value : -1);

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

function prepared(roast: RoastExport) {
  const samples = [...roast.curve.samples].sort((a, b) => a.t - b.t);
  if (samples.length === 0) throw new Error('a curve without samples has no export');
  // Artisan's time axis starts at the start of recording: the first sample, or charge (t 0) when it comes first.
  const origin = Math.min(0, samples[0].t);
  return { samples, seconds: (t: number) => (t - origin) / 1000, names: channelNames(samples) };
}

const pad2 = (n: number) => String(n).padStart(2, '0');

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** Qt's QDate.toString() (Artisan's `roastdate`), e.g. 'Sat Feb 21 2026', in UTC. */
const qtDate = (d: Date) => `${WEEKDAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()} ${d.getUTCFullYear()}`;

const grams = (kg: string | null) => (kg === null ? 0 : Math.round(Number(kg) * 1000));
/** Artisan's sourcetypes: 0 LPG, 1 natural gas, 2 electricity. */
const SOURCE_TYPES: Record<Fuel, number> = { lpg: 0, natural_gas: 1, electric: 2 };
/** The event type burner steps are written as (Artisan's etypes[3]); load_etypes stores it + 1. */
const BURNER_ETYPE = 3;
const ETYPES = ['Air', 'Drum', 'Damper', 'Burner', '--'];
/** A number Artisan shows in an integer field stays an int; a fraction stays exact as a float. */
const intOrFloat = (value: number) => (Number.isInteger(value) ? int(value) : value);

/**
 * The batch as an Artisan profile (`.alog`): the Python literal Artisan's `ast.literal_eval` loader reads. Keys:
 * `timex` (s from the start of recording), `temp1` ET, `temp2` BT, extra channels as extra devices (two curves
 * each, `extratimex`/`extratemp1`/`extratemp2`/`extraname1`/`extraname2`; with an odd count the last device's
 * second curve is unnamed and without readings), `timeindex` (each event at its nearest sample), `weight` [charge, drop, 'g'],
 * `title`, `roastdate`/`roastisodate`/`roasttime` (UTC) and `roastepoch`, `phases`, AUC settings and the burner as
 * an energy load with its steps as special events when the batch's log had them. Events that fall between
 * samples (and the turning point, which Artisan derives) keep their exact times under `firstcrack_events`, which
 * Artisan ignores and the importer prefers over `timeindex`.
 */
export function toArtisanAlog(roast: RoastExport): string {
  const { samples, seconds, names } = prepared(roast);
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
  const started = new Date(roast.startedAt);
  const settings = roast.settings ?? {};
  const profile: Record<string, PythonWritable> = {
    // The profile format these keys follow (the oldest Artisan release among the shared fixtures).
    version: '3.2.0',
    mode: 'C',
    title: encodeLocal(roast.title),
    roastdate: qtDate(started),
    roastisodate: started.toISOString().slice(0, 10),
    roasttime: started.toISOString().slice(11, 19),
    roastepoch: int(Math.floor(started.getTime() / 1000)),
    roasttzoffset: int(0),
    weight: [grams(roast.chargeWeightKg), grams(roast.dropWeightKg), 'g'],
    samplinginterval: medianInterval(timex),
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
    etypes: ETYPES,
    phases: [
      settings.phases?.dryEndC ?? DEFAULT_DRY_END_C,
      settings.phases?.dryEndC ?? DEFAULT_DRY_END_C,
      settings.phases?.firstCrackC ?? DEFAULT_FIRST_CRACK_C,
      230,
    ].map(intOrFloat),
    [EXACT_EVENTS_KEY]: events.map((event) => [event.type, seconds(event.t)]),
    ...aucSettings(settings),
    ...energyLoad(settings, samples),
  };
  return `${toPythonLiteral(profile)}\n`;
}

function medianInterval(timex: number[]): number {
  const gaps = timex.slice(1).map((t, i) => t - timex[i]).sort((a, b) => a - b);
  return gaps.length === 0 ? 1 : gaps[gaps.length >> 1];
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
 * The log's burner as Artisan's first energy load: rating in kW (ratingunits 3), its fuel, and each power step as
 * a burner special event at its nearest sample, valued in Artisan's internal encoding (pct / 10 + 1).
 */
function energyLoad({ energy }: MetricsOptions, samples: CurveSample[]): Record<string, PythonWritable> {
  if (!energy) return {};
  const steps = energy.burner.map((step) => ({ index: nearestIndex(samples, step.t), value: step.pct / 10 + 1 }));
  const four = <T extends PythonWritable>(first: T, rest: T) => [first, rest, rest, rest];
  return {
    loadlabels: four('Burner', ''),
    loadratings: four(energy.ratingKw, 0),
    ratingunits: four(int(3), int(0)),
    sourcetypes: four(int(SOURCE_TYPES[energy.fuel]), int(0)),
    load_etypes: four(int(BURNER_ETYPE + 1), int(0)),
    loadevent_zeropcts: four(int(0), int(0)),
    loadevent_hundpcts: four(int(100), int(100)),
    presssure_percents: four(energy.pressure === true, false),
    electricEnergyMix: intOrFloat(energy.renewablePct ?? 0),
    specialevents: steps.map((step) => int(step.index)),
    specialeventstype: steps.map(() => int(BURNER_ETYPE)),
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

/** mm:ss with the exact fraction (Artisan writes whole seconds; the importer reads either). */
function clock(seconds: number): string {
  const sign = seconds < 0 ? '-' : '';
  const total = Math.abs(seconds);
  const minutes = Math.floor(total / 60);
  const rest = total - minutes * 60;
  let text = String(rest);
  if (text.includes('e')) text = rest.toFixed(20).replace(/0+$/, '');
  return `${sign}${pad2(minutes)}:${rest < 10 ? '0' : ''}${text}`;
}

/** A tab-separated cell, quoted when it holds a tab, quote or line break. */
const cell = (text: string) => (/[\t"\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);

/**
 * The batch as Artisan's CSV export: tab-separated; line 1 `Date:` (dd.MM.yyyy, UTC), `Unit:C`, the event times
 * from the start of recording (as in the .alog) (CHARGE, TP, DRYe, FCs, FCe, SCs, SCe, DROP, COOL) and `Time:` (HH:MM); line 2 the column
 * names `Time1 Time2 ET BT Event` and one column per extra channel (an odd count gets an unnamed column of -1, as
 * Artisan reads channels in pairs); then one row per sample: Time1 from the start of recording, Time2 from charge (empty
 * before it), ET, BT, the event marked on its nearest sample, the channels. Times carry their exact fraction, which
 * importLoggerRoast reads back; Artisan's own CSV import reads whole seconds only, so for Artisan use the .alog.
 * No weights and no metric settings: the .alog carries those.
 */
export function toArtisanCsv(roast: RoastExport): string {
  const { samples, names, seconds } = prepared(roast);
  const since = (t: number) => clock(seconds(t));
  const started = new Date(roast.startedAt);
  const iso = started.toISOString();
  const eventOf = (type: RoastEventType) => roast.curve.events.find((event) => event.type === type);
  const header = [
    `Date:${iso.slice(8, 10)}.${iso.slice(5, 7)}.${iso.slice(0, 4)}`,
    'Unit:C',
    ...CSV_EVENTS.map(({ type, header: label }) => {
      const event = eventOf(type);
      return `${label}:${event ? since(event.t) : ''}`;
    }),
    `Time:${iso.slice(11, 16)}`,
  ];
  const columns = names.length % 2 === 1 ? [...names, ''] : names;
  const labels = new Map<number, string>();
  for (const { type, label } of CSV_EVENTS) {
    const event = eventOf(type);
    if (event && !labels.has(nearestIndex(samples, event.t))) labels.set(nearestIndex(samples, event.t), label);
  }
  const charge: RoastEvent | undefined = eventOf('charge');
  const rows = samples.map((sample, i) =>
    [
      since(sample.t),
      charge && sample.t >= charge.t ? clock((sample.t - charge.t) / 1000) : '',
      String(reading(sample.et)),
      String(reading(sample.bt)),
      labels.get(i) ?? '',
      ...columns.map((name, c) => String(c >= names.length ? -1 : reading(sample.channels?.[name]))),
    ].join('\t'),
  );
  return [header.map(cell).join('\t'), ['Time1', 'Time2', 'ET', 'BT', 'Event', ...columns].map(cell).join('\t'), ...rows].join('\r\n') + '\r\n';
}
