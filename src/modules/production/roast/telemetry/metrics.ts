import type { Curve, CurveSample, RoastEvent, RoastEventType } from './curve.js';

/**
 * Roast metrics derived from a curve, computed the way Artisan computes its `computed` block
 * (`computedProfileInformation`, `findTP`, `findDryEnd`, `ts`, `RoR` and the energy calculator in Artisan's
 * main.py/canvas.py), so values agree with what roasters see there. Checked field by field against the `computed`
 * dictionaries of the shared fixtures (metrics.test.ts).
 * - Times are seconds since charge; temperatures °C; a temperature at an event is the reading of the sample at (or
 *   nearest to) the event time. BT is the bean temperature, ET the environment temperature.
 * - Event fields (`dryEndS`, `firstCrackStartS`, …) report only events that were marked, like Artisan's `DRY_time`,
 *   `FCs_time`, … which are absent when the event is not set.
 * - Phases: drying = charge→dry end, Maillard = dry end→first crack start, development = first crack start→drop,
 *   cooling = drop→cool end. A phase boundary falls back the way Artisan's statistics do: no dry-end event → the
 *   first sample from the turning point on whose BT reaches the dry-end phase temperature (Artisan's `findDryEnd`,
 *   `phases[1]`, default 150 °C); no first-crack event → the first sample from dry end on whose BT reaches the
 *   first-crack phase temperature (`phases[2]`, default 200 °C); no drop → the last sample (the roast as recorded).
 *   A boundary that cannot be found leaves the phases next to it null.
 * - Phase rate of rise = BT rise over the phase / phase minutes; the drying phase (and the total) start at the turning
 *   point, as in Artisan (BT falls after charge). Without a turning point they start at charge.
 * - Turning point: an explicit event, else the lowest BT from charge up to (not including) first crack, or drop when
 *   first crack is missing; latest sample on ties (Artisan's findTPint). A minimum on the charge sample is a turning
 *   point at 0 s.
 * - AUC (Artisan's default: from the turning point, base 100 °C): the area between BT and the base where BT is
 *   above it, in °C·min; per-phase areas and the temperature-time sums (`total_ts*`) run from charge. Each interval
 *   between consecutive samples counts the mean of its two readings (clipped at the base), intervals with a missing
 *   reading count nothing, and the sums run over the intervals ending at the start sample up to the one ending just
 *   before the end sample, as Artisan's `ts` does.
 * - MET: the highest ET from the turning point (else charge) up to drop (Artisan's temp1[TP:DROP]), and its time;
 *   null without a drop.
 * - Energy (optional input): burner rating × burner % over time, in BTU as Artisan reports it (1 kWh = 3412.14 BTU),
 *   before charge, charge→drop (roast) and drop→cool end (cooling); CO2 in grams by Artisan's factors per fuel.
 * Without a charge event the curve's times run from the start of recording: marked events and the turning point are
 * reported on that axis (as Artisan does), every phase, rate, area, MET and energy figure is null.
 */

export type Fuel = 'lpg' | 'natural_gas' | 'electric';

/** Artisan's CO2 factors (kg CO2 per BTU): LPG, natural gas, electricity (`co2kg_per_btu`). */
export const CO2_KG_PER_BTU: Record<Fuel, number> = { lpg: 6.288e-5, natural_gas: 5.291e-5, electric: 2.964e-4 };
export const BTU_PER_KWH = 3412.14;

export interface EnergyInput {
  /** The burner (or heater) rating at 100 %, kW. */
  ratingKw: number;
  fuel: Fuel;
  /** Burner power in % of the rating from each time on (ms since charge); before the first step it is 0 %. */
  burner: { t: number; pct: number }[];
  /** Share of renewable electricity (Artisan's electricEnergyMix), 0–100; electric only. */
  renewablePct?: number;
  /** Gas burners only: the % is gas pressure, so heat follows its square root (Artisan's pressure percents). */
  pressure?: boolean;
  /** Artisan logs: the special-event type (index into etypes) the burner steps were recorded as. */
  eventType?: number;
}

export interface MetricsOptions {
  /** Artisan's phase temperatures used when dry end / first crack are not marked (°C). */
  phases?: { dryEndC?: number; firstCrackC?: number };
  /** AUC start event and base temperature (Artisan's AUCbegin / AUCbase). */
  /** `baseFromEvent` (Artisan's AUCbaseFlag): the base is BT at the begin event instead of `baseC`. */
  auc?: { begin?: AucBegin; baseC?: number; baseFromEvent?: boolean };
  energy?: EnergyInput | null;
}

export const AUC_BEGINS = ['charge', 'turning_point', 'dry_end', 'first_crack_start'] as const;
export type AucBegin = (typeof AUC_BEGINS)[number];

export const DEFAULT_DRY_END_C = 150;
export const DEFAULT_FIRST_CRACK_C = 200;
export const DEFAULT_AUC_BASE_C = 100;

export interface RoastMetrics {
  chargeTempC: number | null;
  chargeEtC: number | null;
  turningPointS: number | null;
  turningPointTempC: number | null;
  turningPointEtC: number | null;
  dryEndS: number | null;
  dryEndTempC: number | null;
  dryEndEtC: number | null;
  firstCrackStartS: number | null;
  firstCrackStartTempC: number | null;
  firstCrackStartEtC: number | null;
  firstCrackEndS: number | null;
  firstCrackEndTempC: number | null;
  firstCrackEndEtC: number | null;
  secondCrackStartS: number | null;
  secondCrackStartTempC: number | null;
  secondCrackStartEtC: number | null;
  secondCrackEndS: number | null;
  secondCrackEndTempC: number | null;
  secondCrackEndEtC: number | null;
  dropS: number | null;
  dropTempC: number | null;
  dropEtC: number | null;
  coolEndS: number | null;
  coolEndTempC: number | null;
  coolEndEtC: number | null;
  maxEtC: number | null;
  maxEtS: number | null;
  dryingPhaseS: number | null;
  maillardPhaseS: number | null;
  developmentPhaseS: number | null;
  coolingPhaseS: number | null;
  developmentTimeRatioPct: number | null;
  totalTimeS: number | null;
  rorDryingCPerMin: number | null;
  rorMaillardCPerMin: number | null;
  rorDevelopmentCPerMin: number | null;
  rorTotalCPerMin: number | null;
  riseDryingC: number | null;
  riseMaillardC: number | null;
  riseDevelopmentC: number | null;
  riseTotalC: number | null;
  aucCMin: number | null;
  aucBegin: AucBegin | null;
  aucBaseC: number | null;
  aucDryingCMin: number | null;
  aucMaillardCMin: number | null;
  aucDevelopmentCMin: number | null;
  tempTimeBtCMin: number | null;
  tempTimeEtCMin: number | null;
  tempTimeEtMinusBtCMin: number | null;
  energyBeforeChargeBtu: number | null;
  energyRoastBtu: number | null;
  energyCoolingBtu: number | null;
  energyBatchBtu: number | null;
  energyRoastBtuPerGreenKg: number | null;
  energyBatchBtuPerGreenKg: number | null;
  energyRoastKwhPerGreenKg: number | null;
  energyBatchKwhPerGreenKg: number | null;
  co2RoastG: number | null;
  co2BatchG: number | null;
  co2RoastGPerGreenKg: number | null;
  co2BatchGPerGreenKg: number | null;
  weightLossPct: number | null;
}

export const METRIC_KEYS: (keyof RoastMetrics)[] = [
  'chargeTempC', 'chargeEtC', 'turningPointS', 'turningPointTempC', 'turningPointEtC', 'dryEndS', 'dryEndTempC',
  'dryEndEtC', 'firstCrackStartS', 'firstCrackStartTempC', 'firstCrackStartEtC', 'firstCrackEndS',
  'firstCrackEndTempC', 'firstCrackEndEtC', 'secondCrackStartS', 'secondCrackStartTempC', 'secondCrackStartEtC',
  'secondCrackEndS', 'secondCrackEndTempC', 'secondCrackEndEtC', 'dropS', 'dropTempC', 'dropEtC', 'coolEndS',
  'coolEndTempC', 'coolEndEtC', 'maxEtC', 'maxEtS', 'dryingPhaseS', 'maillardPhaseS', 'developmentPhaseS',
  'coolingPhaseS', 'developmentTimeRatioPct', 'totalTimeS', 'rorDryingCPerMin', 'rorMaillardCPerMin',
  'rorDevelopmentCPerMin', 'rorTotalCPerMin', 'riseDryingC', 'riseMaillardC', 'riseDevelopmentC', 'riseTotalC',
  'aucCMin', 'aucBegin', 'aucBaseC', 'aucDryingCMin', 'aucMaillardCMin', 'aucDevelopmentCMin', 'tempTimeBtCMin',
  'tempTimeEtCMin', 'tempTimeEtMinusBtCMin', 'energyBeforeChargeBtu', 'energyRoastBtu', 'energyCoolingBtu',
  'energyBatchBtu', 'energyRoastBtuPerGreenKg', 'energyBatchBtuPerGreenKg', 'energyRoastKwhPerGreenKg',
  'energyBatchKwhPerGreenKg', 'co2RoastG', 'co2BatchG', 'co2RoastGPerGreenKg', 'co2BatchGPerGreenKg', 'weightLossPct',
];

/** A moment on the curve: its sample index and seconds since charge. */
interface Mark {
  i: number;
  s: number;
}

export function deriveMetrics(
  curve: Curve,
  weights?: { chargeKg?: number | string; dropKg?: number | string },
  options: MetricsOptions = {},
): RoastMetrics {
  const metrics = emptyMetrics();
  metrics.weightLossPct = weightLoss(weights?.chargeKg, weights?.dropKg);
  const charge = firstEvent(curve.events, 'charge');
  const samples = curve.samples;
  if (samples.length === 0) return metrics;
  // Without a charge, times run from the start of recording (t 0), as Artisan's computed values do.
  const originT = charge?.t ?? 0;

  const n = samples.length;
  const bt = (m: Mark | null) => (m ? samples[m.i].bt : null);
  const et = (m: Mark | null) => (m ? samples[m.i].et : null);
  const atEvent = (type: RoastEventType): Mark | null => {
    const event = firstEvent(curve.events, type);
    return event ? { i: nearestIndex(samples, event.t), s: (event.t - originT) / 1000 } : null;
  };
  const atIndex = (i: number): Mark => ({ i, s: (samples[i].t - originT) / 1000 });
  if (!charge) return Object.assign(metrics, markedEvents(samples, atEvent, atIndex, bt, et));

  const c = atEvent('charge')!;
  const dryEvent = atEvent('dry_end');
  const fcsEvent = atEvent('first_crack_start');
  const fce = atEvent('first_crack_end');
  const scs = atEvent('second_crack_start');
  const sce = atEvent('second_crack_end');
  const dropEvent = atEvent('drop');
  const cool = atEvent('cool_end');

  const tp = atEvent('turning_point') ?? derivedTurningPoint(samples, c.i, (fcsEvent ?? dropEvent)?.i ?? n, atIndex);
  const from = tp ?? c; // the drying phase's RoR, the total RoR and MET start at TP, else charge
  // Phase boundaries with Artisan's fallbacks.
  const dryEndC = options.phases?.dryEndC ?? DEFAULT_DRY_END_C;
  const firstCrackC = options.phases?.firstCrackC ?? DEFAULT_FIRST_CRACK_C;
  const dry = dryEvent ?? crossing(samples, from.i, dryEndC, atIndex);
  const fcs = fcsEvent ?? (dry ? crossing(samples, dry.i, firstCrackC, atIndex) : null);
  const end = dropEvent ?? atIndex(n - 1);

  const span = (a: Mark | null, b: Mark | null) => (a && b && b.s >= a.s ? b.s - a.s : null);
  const rise = (a: Mark | null, b: Mark | null) => {
    const x = bt(a);
    const y = bt(b);
    return x !== null && y !== null ? y - x : null;
  };
  const ror = (a: Mark | null, b: Mark | null) => {
    const r = rise(a, b);
    return r !== null && a && b && b.s > a.s ? r / ((b.s - a.s) / 60) : null;
  };

  Object.assign(metrics, {
    chargeTempC: bt(c),
    chargeEtC: et(c),
    turningPointS: tp?.s ?? null,
    turningPointTempC: bt(tp),
    turningPointEtC: et(tp),
    dryEndS: dryEvent?.s ?? null,
    dryEndTempC: bt(dryEvent),
    dryEndEtC: et(dryEvent),
    firstCrackStartS: fcsEvent?.s ?? null,
    firstCrackStartTempC: bt(fcsEvent),
    firstCrackStartEtC: et(fcsEvent),
    firstCrackEndS: fce?.s ?? null,
    firstCrackEndTempC: bt(fce),
    firstCrackEndEtC: et(fce),
    secondCrackStartS: scs?.s ?? null,
    secondCrackStartTempC: bt(scs),
    secondCrackStartEtC: et(scs),
    secondCrackEndS: sce?.s ?? null,
    secondCrackEndTempC: bt(sce),
    secondCrackEndEtC: et(sce),
    dropS: dropEvent?.s ?? null,
    dropTempC: bt(dropEvent),
    dropEtC: et(dropEvent),
    coolEndS: cool?.s ?? null,
    coolEndTempC: bt(cool),
    coolEndEtC: et(cool),
    dryingPhaseS: span(c, dry),
    maillardPhaseS: span(dry, fcs),
    developmentPhaseS: span(fcs, end),
    coolingPhaseS: dropEvent ? span(dropEvent, cool) : null,
    totalTimeS: dropEvent?.s ?? null,
    rorDryingCPerMin: ror(from, dry),
    rorMaillardCPerMin: ror(dry, fcs),
    rorDevelopmentCPerMin: ror(fcs, end),
    rorTotalCPerMin: ror(from, end),
    riseDryingC: rise(from, dry),
    riseMaillardC: rise(dry, fcs),
    riseDevelopmentC: rise(fcs, end),
    riseTotalC: rise(from, end),
  } satisfies Partial<RoastMetrics>);
  const development = metrics.developmentPhaseS;
  metrics.developmentTimeRatioPct =
    development !== null && metrics.totalTimeS ? (development / metrics.totalTimeS) * 100 : null;

  // One pass over charge → end for MET and every area (metrics run at completion on curves of 10,000s of samples).
  const begin = options.auc?.begin ?? 'turning_point';
  const aucStart =
    begin === 'charge' ? c : begin === 'turning_point' ? (tp ?? c) : begin === 'dry_end' ? dry : fcs;
  const baseC = (options.auc?.baseFromEvent ? bt(aucStart) : null) ?? options.auc?.baseC ?? DEFAULT_AUC_BASE_C;
  const areas = sweep(samples, {
    charge: c.i,
    end: end.i,
    dry: dry?.i ?? null,
    fcs: fcs?.i ?? null,
    auc: aucStart?.i ?? null,
    metFrom: from.i,
    metTo: dropEvent?.i ?? null,
    baseC,
  });
  if (areas.met >= 0) {
    metrics.maxEtC = samples[areas.met].et;
    metrics.maxEtS = atIndex(areas.met).s;
  }
  metrics.aucBegin = aucStart ? begin : null;
  metrics.aucBaseC = aucStart ? baseC : null;
  metrics.aucCMin = aucStart ? areas.auc : null;
  metrics.aucDryingCMin = dry ? areas.drying : null;
  metrics.aucMaillardCMin = dry && fcs ? areas.maillard : null;
  metrics.aucDevelopmentCMin = fcs ? areas.development : null;
  metrics.tempTimeBtCMin = areas.bt;
  metrics.tempTimeEtCMin = areas.hasEt ? areas.et : null;
  metrics.tempTimeEtMinusBtCMin = areas.hasEt ? areas.etMinusBt : null;

  if (options.energy) Object.assign(metrics, energyMetrics(options.energy, samples, charge.t, dropEvent, cool, weights?.chargeKg));
  return metrics;
}

/**
 * Channels that carry burner (or heater) power in %: a live bridge's `burner`, and the importers' columns for it
 * (Loring BurnerPercentage, ROEST Power (%), IKAWA heater power (%) / heater). The first one the curve has is used.
 */
export const BURNER_CHANNELS = ['burner', 'BurnerPercentage', 'Power (%)', 'heater power (%)', 'heater'] as const;

/** Burner power steps from the curve's burner channel (see BURNER_CHANNELS): one step per change of reading. */
export function burnerFromChannel(curve: Curve): EnergyInput['burner'] {
  const channel = BURNER_CHANNELS.find((name) => curve.samples.some((sample) => typeof sample.channels?.[name] === 'number'));
  const steps: EnergyInput['burner'] = [];
  if (!channel) return steps;
  for (const sample of curve.samples) {
    const pct = sample.channels?.[channel];
    if (typeof pct === 'number' && Number.isFinite(pct) && steps[steps.length - 1]?.pct !== pct) steps.push({ t: sample.t, pct });
  }
  return steps;
}

/**
 * Artisan's energy figures from a burner rating and its power steps: BTU before charge (from the first sample),
 * charge→drop (roast) and drop→cool end (cooling), the batch being their sum; CO2 in grams; per kg of green when the
 * charge weight is known. Without a drop or without any burner reading everything is null (never assumed); without a
 * cool end the cooling is 0.
 */
function energyMetrics(
  energy: EnergyInput,
  samples: CurveSample[],
  chargeT: number,
  drop: Mark | null,
  cool: Mark | null,
  chargeKg: number | string | undefined,
): Partial<RoastMetrics> {
  if (!(energy.ratingKw > 0) || !drop || energy.burner.length === 0) return {};
  const pressure = energy.pressure === true && energy.fuel !== 'electric';
  const factor = (pct: number) => {
    const share = Math.min(1, Math.max(0, pct / 100));
    return pressure ? Math.sqrt(share) : share;
  };
  const btuBetween = (fromMs: number, toMs: number) => {
    if (toMs <= fromMs) return 0;
    let pct = 0;
    let at = fromMs;
    let kWs = 0;
    for (const step of energy.burner) {
      if (step.t <= fromMs) {
        pct = step.pct;
        continue;
      }
      if (step.t >= toMs) break;
      kWs += factor(pct) * energy.ratingKw * ((step.t - at) / 1000);
      at = step.t;
      pct = step.pct;
    }
    kWs += factor(pct) * energy.ratingKw * ((toMs - at) / 1000);
    return (kWs / 3600) * BTU_PER_KWH;
  };
  const dropMs = chargeT + drop.s * 1000;
  const before = btuBetween(Math.min(samples[0].t, chargeT), chargeT);
  const roast = btuBetween(chargeT, dropMs);
  const cooling = cool ? btuBetween(dropMs, chargeT + cool.s * 1000) : 0;
  const batch = before + roast + cooling;
  const renewable = energy.fuel === 'electric' ? Math.min(100, Math.max(0, energy.renewablePct ?? 0)) : 0;
  const co2 = (btu: number) => btu * CO2_KG_PER_BTU[energy.fuel] * (1 - renewable / 100) * 1000;
  const greenKg = toKg(chargeKg);
  const perKg = (value: number) => (greenKg === null ? null : value / greenKg);
  return {
    energyBeforeChargeBtu: before,
    energyRoastBtu: roast,
    energyCoolingBtu: cooling,
    energyBatchBtu: batch,
    energyRoastBtuPerGreenKg: perKg(roast),
    energyBatchBtuPerGreenKg: perKg(batch),
    energyRoastKwhPerGreenKg: perKg(roast / BTU_PER_KWH),
    energyBatchKwhPerGreenKg: perKg(batch / BTU_PER_KWH),
    co2RoastG: co2(roast),
    co2BatchG: co2(batch),
    co2RoastGPerGreenKg: perKg(co2(roast)),
    co2BatchGPerGreenKg: perKg(co2(batch)),
  };
}

interface SweepBounds {
  charge: number;
  end: number;
  dry: number | null;
  fcs: number | null;
  auc: number | null;
  metFrom: number;
  metTo: number | null;
  baseC: number;
}

/**
 * Artisan's `ts` for every area at once: Σ over the intervals [i-1, i] for i from the start sample to the one before
 * the end sample of the mean of the two readings above the base (0 below) × the interval's seconds, / 60 (°C·min).
 * Intervals with a missing reading count nothing. BT phases split at dry end and first crack; ET − BT has base 0.
 * MET: the first highest ET over [metFrom, metTo).
 */
function sweep(samples: CurveSample[], b: SweepBounds) {
  const out = { auc: 0, drying: 0, maillard: 0, development: 0, bt: 0, et: 0, etMinusBt: 0, hasEt: false, met: -1 };
  const dry = b.dry ?? Infinity;
  const fcs = b.fcs ?? Infinity;
  const auc = b.auc ?? Infinity;
  const metTo = b.metTo ?? -1;
  let metEt = -Infinity;
  for (let i = b.metFrom; i < metTo; i++) {
    const value = samples[i].et;
    if (value !== null && value > metEt) {
      metEt = value;
      out.met = i;
    }
  }
  for (let i = b.charge; i <= b.end; i++) if (samples[i].et !== null) out.hasEt = true;
  for (let i = Math.max(1, b.charge); i < b.end; i++) {
    const previous = samples[i - 1];
    const sample = samples[i];
    const seconds = (sample.t - previous.t) / 1000;
    const bt0 = previous.bt;
    const bt1 = sample.bt;
    if (bt0 !== null && bt1 !== null) {
      const above = (bt0 + bt1) / 2 - b.baseC;
      if (above > 0) {
        const part = above * seconds;
        out.bt += part;
        if (i >= fcs) out.development += part;
        else if (i >= dry) out.maillard += part;
        else out.drying += part;
        if (i >= auc) out.auc += part;
      }
      const et0 = previous.et;
      const et1 = sample.et;
      if (et0 !== null && et1 !== null) {
        const difference = (et0 - bt0 + et1 - bt1) / 2;
        if (difference > 0) out.etMinusBt += difference * seconds;
      }
    }
    const et0 = previous.et;
    const et1 = sample.et;
    if (et0 !== null && et1 !== null) {
      const above = (et0 + et1) / 2 - b.baseC;
      if (above > 0) out.et += above * seconds;
    }
  }
  for (const key of ['auc', 'drying', 'maillard', 'development', 'bt', 'et', 'etMinusBt'] as const) out[key] /= 60;
  return out;
}

/** Artisan's findDryEnd: the first sample from `start` on whose BT reaches `thresholdC`. */
function crossing(samples: CurveSample[], start: number, thresholdC: number, at: (i: number) => Mark): Mark | null {
  for (let i = start; i < samples.length; i++) {
    const value = samples[i].bt;
    if (value !== null && value >= thresholdC) return at(i);
  }
  return null;
}

/**
 * One sample per whole second: the sample nearest to each whole second (t rounded to the closest 1000 ms; on a tie
 * the earlier sample), re-stamped at that second. Picking a real sample rather than averaging keeps missing readings
 * missing and never blends a dropout into its neighbours. Seconds without any sample within ±500 ms are left out,
 * not interpolated.
 */
export function downsampleTo1Hz(samples: CurveSample[]): CurveSample[] {
  const out: CurveSample[] = [];
  let bestDistance = Infinity;
  for (const sample of samples) {
    const second = Math.round(sample.t / 1000) * 1000 + 0; // + 0 turns -0 into 0
    const distance = Math.abs(sample.t - second);
    const last = out[out.length - 1];
    if (last?.t === second) {
      if (distance < bestDistance) {
        out[out.length - 1] = { ...sample, t: second };
        bestDistance = distance;
      }
    } else {
      out.push({ ...sample, t: second });
      bestDistance = distance;
    }
  }
  return out;
}

function emptyMetrics(): RoastMetrics {
  return Object.fromEntries(METRIC_KEYS.map((key) => [key, null])) as unknown as RoastMetrics;
}

function firstEvent(events: RoastEvent[], type: RoastEventType): RoastEvent | undefined {
  let first: RoastEvent | undefined;
  for (const event of events) if (event.type === type && (!first || event.t < first.t)) first = event;
  return first;
}

/**
 * Artisan's findTPint over [charge, end): the lowest BT, the latest sample on ties. A minimum on the charge sample
 * itself is a turning point at 0 s (BT never fell after charge), as findTPint answers.
 */
function derivedTurningPoint(samples: CurveSample[], start: number, end: number, at: (i: number) => Mark): Mark | null {
  let lowest = -1;
  for (let i = start; i < end; i++) {
    const value = samples[i].bt;
    if (value !== null && (lowest < 0 || value <= samples[lowest].bt!)) lowest = i;
  }
  return lowest < 0 ? null : at(lowest);
}

/**
 * A log without a charge: its marked events and the turning point, timed from the start of recording, as Artisan's
 * computed values time them (its findTPint then searches from the first sample). Phases, rates, areas, MET and
 * energy need a charge and stay null.
 */
function markedEvents(
  samples: CurveSample[],
  atEvent: (type: RoastEventType) => Mark | null,
  atIndex: (i: number) => Mark,
  bt: (m: Mark | null) => number | null,
  et: (m: Mark | null) => number | null,
): Partial<RoastMetrics> {
  const fields: Partial<RoastMetrics> = {};
  const names: [RoastEventType, 'dryEnd' | 'firstCrackStart' | 'firstCrackEnd' | 'secondCrackStart' | 'secondCrackEnd' | 'drop' | 'coolEnd'][] = [
    ['dry_end', 'dryEnd'], ['first_crack_start', 'firstCrackStart'], ['first_crack_end', 'firstCrackEnd'],
    ['second_crack_start', 'secondCrackStart'], ['second_crack_end', 'secondCrackEnd'], ['drop', 'drop'], ['cool_end', 'coolEnd'],
  ];
  for (const [type, name] of names) {
    const mark = atEvent(type);
    if (!mark) continue;
    Object.assign(fields, { [`${name}S`]: mark.s, [`${name}TempC`]: bt(mark), [`${name}EtC`]: et(mark) });
  }
  const end = (atEvent('first_crack_start') ?? atEvent('drop'))?.i ?? samples.length;
  const tp = atEvent('turning_point') ?? derivedTurningPoint(samples, 0, end, atIndex);
  if (tp) Object.assign(fields, { turningPointS: tp.s, turningPointTempC: bt(tp), turningPointEtC: et(tp) });
  return fields;
}

/** Index of the sample whose t is closest to `t` (the earlier one on a tie). Samples are sorted by t. */
function nearestIndex(samples: CurveSample[], t: number): number {
  let low = 0;
  let high = samples.length - 1;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (samples[mid].t < t) low = mid + 1;
    else high = mid;
  }
  // low = first sample with t >= target (or the last sample)
  return low > 0 && t - samples[low - 1].t <= samples[low].t - t ? low - 1 : low;
}

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)$/;

/**
 * (charge - drop) / charge × 100. Weights may be strings (Postgres numeric). Missing, zero or unparseable weights
 * give null: Artisan writes 100 % when the roasted weight is 0 ("not entered"), which is not a real loss.
 */
function weightLoss(chargeKg: number | string | undefined, dropKg: number | string | undefined): number | null {
  const green = toKg(chargeKg);
  const roasted = toKg(dropKg);
  if (green === null || roasted === null) return null;
  return ((green - roasted) / green) * 100;
}

function toKg(value: number | string | undefined): number | null {
  const amount = typeof value === 'string' ? (DECIMAL.test(value.trim()) ? Number(value) : NaN) : value;
  return amount !== undefined && Number.isFinite(amount) && amount > 0 ? amount : null;
}
