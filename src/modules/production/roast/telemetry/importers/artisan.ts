import { fahrenheitDeltaToCelsius, type CurveSample, type RoastEvent, type RoastEventType } from '../curve.js';
import { isRecord, parseJson, toCelsius, uniqueName, weightToKg } from './shared.js';
import { parsePythonLiteral, unescapePython } from './python-literal.js';
import { ImportError, type LogDetails, type ParsedLog, type RoastMeta, type SpecialEvent } from './types.js';
import { BTU_PER_KWH, type AucBegin, type Fuel, type MetricsOptions } from '../metrics.js';

/**
 * Artisan's native profile (`.alog`, a Python literal) and its JSON export (same dict as JSON). Both hold:
 * `timex` (s since recording start), `temp1` = ET, `temp2` = BT in the unit named by `mode`, and `timeindex`, eight
 * indexes into `timex` for CHARGE, DRY, FCs, FCe, SCs, SCe, DROP, COOL (CHARGE unset = -1, the others unset = 0).
 */

/** Event slots of Artisan's `timeindex`, in order. */
export const TIMEINDEX_SLOTS: readonly RoastEventType[] = [
  'charge',
  'dry_end',
  'first_crack_start',
  'first_crack_end',
  'second_crack_start',
  'second_crack_end',
  'drop',
  'cool_end',
];

/**
 * Exact event times, written by this service's .alog export beside `timeindex` (which can only point at a
 * sample, and has no turning point): a list of [event type, seconds on the `timex` axis]. Artisan ignores the key
 * and drops it when it saves the profile again, so a file that has it is this service's own export, unchanged.
 */
export const EXACT_EVENTS_KEY = 'firstcrack_events';

/** -1 is Artisan's "no reading" marker in every curve (None/NaN also occur in hand-edited files). */
export function artisanValue(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value !== -1 ? value : null;
}

/**
 * BT/ET follow Artisan's `is_proper_temp`: 0 is also no reading (what disconnected probes report). Extra curves only
 * use -1, because 0 is a real value for burner, fan or RoR curves.
 */
export function artisanTemperature(value: unknown): number | null {
  const reading = artisanValue(value);
  return reading === 0 ? null : reading;
}

export function parseArtisanAlog(content: string): ParsedLog {
  let profile: unknown;
  try {
    profile = parsePythonLiteral(content);
  } catch (error) {
    if (error instanceof ImportError) throw new ImportError(`Artisan .alog: ${error.message}`);
    throw error;
  }
  return parseArtisanProfile(profile, 'Artisan .alog');
}

export function parseArtisanJson(content: string): ParsedLog {
  return parseArtisanProfile(parseJson(content, 'Artisan JSON'), 'Artisan JSON');
}

function parseArtisanProfile(profile: unknown, label: string): ParsedLog {
  if (!isRecord(profile)) throw new ImportError(`${label}: expected a dict at the top level`);
  const fail = (problem: string): never => {
    throw new ImportError(`${label}: ${problem}`);
  };

  const unit = profile.mode;
  if (unit !== 'C' && unit !== 'F') return fail(`field 'mode' must be 'C' or 'F', got ${JSON.stringify(unit)}`);
  const timex = numberList(profile.timex) ?? fail("field 'timex' must be a list of numbers");
  const alignedList = (field: 'temp1' | 'temp2'): unknown[] => {
    const values = profile[field];
    if (Array.isArray(values) && values.length === timex.length) return values;
    return fail(`field '${field}' must be a list as long as 'timex' (${timex.length})`);
  };
  const temp1 = alignedList('temp1'); // ET
  const temp2 = alignedList('temp2'); // BT
  const warnings: string[] = [];
  const extras = extraChannels(profile, timex.length, unit, warnings);

  const samples: CurveSample[] = timex.map((seconds, i) => {
    const sample: CurveSample = {
      t: seconds * 1000,
      bt: toCelsius(artisanTemperature(temp2[i]), unit),
      et: toCelsius(artisanTemperature(temp1[i]), unit),
    };
    if (extras.length > 0) sample.channels = Object.fromEntries(extras.map(({ name, values }) => [name, values[i]]));
    return sample;
  });

  // Very old profiles (startend/cracks/dryend instead of timeindex) import without events; finishImport warns.
  const timeindex = numberList(profile.timeindex) ?? [-1];
  const exact = exactEvents(profile[EXACT_EVENTS_KEY]);
  const events: RoastEvent[] = exact ?? [];
  if (!exact) timeindex.slice(0, TIMEINDEX_SLOTS.length).forEach((index, slot) => {
    const unset = slot === 0 ? index < 0 : index <= 0;
    if (unset) return;
    const type = TIMEINDEX_SLOTS[slot];
    if (!Number.isInteger(index) || index >= timex.length) {
      warnings.push(`timeindex: ${type} index ${index} is outside the ${timex.length} samples; event ignored`);
      return;
    }
    events.push({ type, t: timex[index] * 1000 });
  });

  const computed = profile.computed;
  const meta = artisanMeta(profile, unit);
  const metricsOptions = artisanMetricsOptions(profile, unit, timex);
  if (metricsOptions) meta.metricsOptions = metricsOptions;
  const details = artisanDetails(profile, timex);
  if (details) meta.details = details;
  return {
    samples,
    events,
    meta,
    warnings,
    ...(isRecord(computed) && { artisanComputed: computed }),
  };
}

const EVENT_TYPES = new Set<string>(['turning_point', ...TIMEINDEX_SLOTS]);

/** The export's exact events, or undefined when the key is absent or not a list of [known type, seconds]. */
function exactEvents(value: unknown): RoastEvent[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const events: RoastEvent[] = [];
  for (const entry of value) {
    if (!Array.isArray(entry) || !EVENT_TYPES.has(entry[0]) || typeof entry[1] !== 'number' || !Number.isFinite(entry[1])) return undefined;
    events.push({ type: entry[0] as RoastEventType, t: entry[1] * 1000 });
  }
  return events;
}

function artisanMeta(profile: Record<string, unknown>, unit: 'C' | 'F'): RoastMeta {
  const meta: RoastMeta = { sourceUnit: unit };
  // roastepoch is Unix seconds at the start of recording (Artisan sets it when the recorder starts).
  if (typeof profile.roastepoch === 'number' && profile.roastepoch > 0) {
    meta.roastedAt = new Date(profile.roastepoch * 1000).toISOString();
  }
  const title = text(profile.title);
  if (title) meta.title = title;
  const machine = text(profile.roastertype);
  if (machine) meta.machine = machine;
  if (Array.isArray(profile.weight)) {
    const [green, roasted, weightUnit] = profile.weight as unknown[];
    const greenKg = weightToKg(green, weightUnit);
    const roastedKg = weightToKg(roasted, weightUnit);
    if (greenKg !== undefined) meta.greenWeightKg = greenKg;
    if (roastedKg !== undefined) meta.roastedWeightKg = roastedKg;
  }
  return meta;
}

/** Artisan's AUCbegin codes: 0 CHARGE, 1 TP, 2 DRY END, 3 FCs. */
const AUC_BEGIN: readonly AucBegin[] = ['charge', 'turning_point', 'dry_end', 'first_crack_start'];
/** The same as `computed['AUCbegin']` names them. */
const COMPUTED_AUC_BEGIN: Record<string, AucBegin> = { CHARGE: 'charge', TP: 'turning_point', DRY: 'dry_end', FCs: 'first_crack_start' };
/** Artisan's sourcetypes: 0 LPG, 1 natural gas, 2 electricity. */
const SOURCE_FUEL: readonly Fuel[] = ['lpg', 'natural_gas', 'electric'];
/** Artisan's ratingunits to kW: 0 BTU/h, 1 kJ/h, 2 kcal/h, 3 kW. */
const RATING_TO_KW = [1 / BTU_PER_KWH, 1 / 3600, 4.1868 / 3600, 1];

/**
 * What the log says about computing its metrics: the phase temperatures (`phases`: [drying, dry end, first crack,
 * finish]) that stand in for unmarked dry end / first crack, the AUC begin and base when the file stores them (with
 * AUCbaseFlag the base is BT at the begin event), and
 * the first energy load with a rating (`loadratings`, `ratingunits`, `sourcetypes`): its power follows the special
 * events of type `load_etypes[i] - 1` (Artisan stores 1..4; 0 = no event, then the load is not modulated and we leave
 * energy unset rather than assume 100 %). Event values use Artisan's internal encoding ((v − 1) × 10), scaled between
 * `loadevent_zeropcts` and `loadevent_hundpcts`; `presssure_percents` (sic) marks gas loads set by pressure.
 */
function artisanMetricsOptions(profile: Record<string, unknown>, unit: 'C' | 'F', timex: number[]): MetricsOptions | undefined {
  const options: MetricsOptions = {};
  const phases = numberList(profile.phases);
  if (phases && phases.length >= 3) {
    options.phases = { dryEndC: toCelsius(phases[1], unit)!, firstCrackC: toCelsius(phases[2], unit)! };
  }
  // Artisan keeps the AUC start event and the base it used in `computed` (AUCbegin 'CHARGE'|'TP'|'DRY'|'FCs', AUCbase in
  // the file's unit): that base is the one it applied, also when it took it from BT at an event (AUCbaseFlag), and it
  // is the base of the ET areas too. Top-level AUCbegin (a code) / AUCbase / AUCbaseFlag are the settings as this
  // service's export writes them, used when there is no computed value.
  const computed = isRecord(profile.computed) ? profile.computed : {};
  const computedBegin = typeof computed.AUCbegin === 'string' ? COMPUTED_AUC_BEGIN[computed.AUCbegin] : undefined;
  const computedBase = typeof computed.AUCbase === 'number' && Number.isFinite(computed.AUCbase) ? toCelsius(computed.AUCbase, unit) : null;
  const begin = computedBegin ?? (typeof profile.AUCbegin === 'number' ? AUC_BEGIN[profile.AUCbegin] : undefined);
  const base = computedBase ?? (typeof profile.AUCbase === 'number' ? toCelsius(profile.AUCbase, unit) : null);
  const baseFromEvent = computedBase === null && profile.AUCbaseFlag === true;
  if (begin || base !== null || baseFromEvent) {
    options.auc = { ...(begin && { begin }), ...(base !== null && { baseC: base }), ...(baseFromEvent && { baseFromEvent }) };
  }

  const ratings = numberList(profile.loadratings) ?? [];
  const load = ratings.findIndex((rating) => rating > 0);
  const eventType = (numberList(profile.load_etypes) ?? [])[load];
  const fuel = SOURCE_FUEL[(numberList(profile.sourcetypes) ?? [])[load] ?? -1];
  const toKw = RATING_TO_KW[(numberList(profile.ratingunits) ?? [])[load] ?? -1];
  if (load >= 0 && fuel && toKw && eventType !== undefined && eventType > 0) {
    const indexes = numberList(profile.specialevents) ?? [];
    const types = numberList(profile.specialeventstype) ?? [];
    const values = numberList(profile.specialeventsvalue) ?? [];
    // Artisan's getEnergy: value (v − 1) × 10, scaled between the load's 0 % and 100 % event values.
    const zero = (numberList(profile.loadevent_zeropcts) ?? [])[load] ?? 0;
    const hundred = (numberList(profile.loadevent_hundpcts) ?? [])[load] ?? 100;
    const burner: { t: number; pct: number }[] = [];
    indexes.forEach((index, k) => {
      if (types[k] !== eventType - 1 || timex[index] === undefined || values[k] === undefined) return;
      const value = (values[k] - 1) * 10;
      const pct = hundred > zero ? Math.min(1, Math.max(0, (value - zero) / (hundred - zero))) * 100 : 0;
      burner.push({ t: timex[index] * 1000, pct });
    });
    burner.sort((a, b) => a.t - b.t);
    const mix = typeof profile.electricEnergyMix === 'number' ? profile.electricEnergyMix : 0;
    const pressure = Array.isArray(profile.presssure_percents) && profile.presssure_percents[load] === true;
    options.energy = { ratingKw: ratings[load] * toKw, fuel, burner, renewablePct: mix, eventType: eventType - 1, ...(pressure && { pressure }) };
  }
  return Object.keys(options).length > 0 ? options : undefined;
}

/**
 * What the log records beyond curve and events: the free texts, the sampling interval and every special event
 * (`specialevents` indexes into timex, with its type, internal value and label), kept so an export gives them back.
 */
function artisanDetails(profile: Record<string, unknown>, timex: number[]): LogDetails | undefined {
  const details: LogDetails = {};
  const beans = text(profile.beans);
  if (beans) details.beans = beans;
  const operator = text(profile.operator);
  if (operator) details.operator = operator;
  const notes = text(profile.roastingnotes);
  if (notes) details.roastingNotes = notes;
  if (typeof profile.samplinginterval === 'number' && profile.samplinginterval > 0) details.samplingIntervalS = profile.samplinginterval;
  if (Array.isArray(profile.etypes) && profile.etypes.every((name) => typeof name === 'string')) {
    details.eventTypes = (profile.etypes as string[]).map((name) => unescapePython(name));
  }
  const indexes = numberList(profile.specialevents) ?? [];
  const types = numberList(profile.specialeventstype) ?? [];
  const values = Array.isArray(profile.specialeventsvalue) ? profile.specialeventsvalue : [];
  const labels = Array.isArray(profile.specialeventsStrings) ? profile.specialeventsStrings : [];
  const specials: SpecialEvent[] = [];
  indexes.forEach((index, k) => {
    if (!Number.isInteger(index) || timex[index] === undefined) return;
    const value = values[k];
    specials.push({
      t: timex[index] * 1000,
      type: Number.isInteger(types[k]) ? types[k] : 4,
      value: typeof value === 'number' && Number.isFinite(value) ? value : 0,
      label: typeof labels[k] === 'string' ? unescapePython(labels[k] as string) : '',
    });
  });
  if (specials.length > 0) details.specialEvents = specials;
  return Object.keys(details).length > 0 ? details : undefined;
}

/** Text fields are stored unicode-escape encoded (Artisan's encodeLocal), so "\\n" in the value is a newline. */
function text(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const decoded = unescapePython(value).trim();
  return decoded === '' ? undefined : decoded;
}

interface ExtraChannel {
  name: string;
  values: (number | null)[];
}

/**
 * Extra devices: each id carries two curves (extratemp1/2) named by extraname1/2, where "{n}" stands for the event
 * type name etypes[n]. Curves flagged as non-temperature (extraNoneTempHint) are kept as recorded; RoR curves
 * (extraDelta) are scaled by 5/9 when the file is °F; the rest are converted like BT/ET.
 */
function extraChannels(
  profile: Record<string, unknown>,
  sampleCount: number,
  unit: 'C' | 'F',
  warnings: string[],
): ExtraChannel[] {
  const etypes = Array.isArray(profile.etypes) ? profile.etypes : [];
  const channels: ExtraChannel[] = [];
  const taken = new Set<string>();
  for (const curve of [1, 2] as const) {
    const series = Array.isArray(profile[`extratemp${curve}`]) ? (profile[`extratemp${curve}`] as unknown[]) : [];
    const names = Array.isArray(profile[`extraname${curve}`]) ? (profile[`extraname${curve}`] as unknown[]) : [];
    const noneTemp = Array.isArray(profile[`extraNoneTempHint${curve}`]) ? profile[`extraNoneTempHint${curve}`] : [];
    const isDelta = Array.isArray(profile[`extraDelta${curve}`]) ? profile[`extraDelta${curve}`] : [];
    series.forEach((values, device) => {
      // str.format, as Artisan applies it: "{n}" is etypes[n], "{{" and "}}" are literal braces.
      const rawName = text(names[device])?.replace(/\{\{|\}\}|\{(\d+)\}/g, (whole, n: string | undefined) => {
        if (n === undefined) return whole[0];
        const etype = etypes[Number(n)];
        return typeof etype === 'string' ? unescapePython(etype) : whole;
      });
      // An unnamed curve without a single reading is padding (the second curve of a device that records one).
      if (!rawName && Array.isArray(values) && values.every((value) => artisanValue(value) === null)) return;
      const name = uniqueName(rawName || `extra${device + 1}_${curve}`, taken);
      if (!Array.isArray(values) || values.length !== sampleCount) {
        warnings.push(`extra device curve "${name}" does not have one value per sample; not imported`);
        return;
      }
      const convert = (value: number | null): number | null => {
        if (value === null || unit === 'C' || (noneTemp as unknown[])[device] === true) return value;
        return (isDelta as unknown[])[device] === true ? fahrenheitDeltaToCelsius(value) : toCelsius(value, unit);
      };
      channels.push({ name, values: values.map((value) => convert(artisanValue(value))) });
    });
  }
  return channels;
}

function numberList(value: unknown): number[] | undefined {
  return Array.isArray(value) && value.every((v) => typeof v === 'number') ? (value as number[]) : undefined;
}
