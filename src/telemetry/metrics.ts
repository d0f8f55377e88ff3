import type { Curve, CurveSample, RoastEvent, RoastEventType } from './curve.js';

/**
 * Roast metrics derived from a curve, computed the way Artisan computes its `computed` block
 * (`computedProfileInformation`, `findTP`, `calcStatistics`, `RoR` in Artisan's main.py/canvas.py), so values agree
 * with what roasters see there:
 * - times are seconds since charge; temperatures °C; a temperature at an event is the BT of the sample at (or nearest
 *   to) the event time;
 * - phases: drying = charge→dry end, Maillard = dry end→first crack, development = first crack→drop;
 *   DTR = development / total × 100;
 * - phase RoR = BT change over the phase / phase minutes, except that the drying RoR starts at the turning point (BT
 *   falls after charge, so charge→dry end would understate it);
 * - turning point: an explicit event if the importer found one, else the lowest BT from charge up to (not including)
 *   first crack, or drop when first crack is missing; on ties the latest sample wins, as in Artisan.
 * Dry end, cracks and drop come only from events; nothing is inferred from temperature thresholds. Without a charge
 * event every time-based metric is null: the curve's times are then not relative to anything meaningful.
 */

export interface RoastMetrics {
  chargeTempC: number | null;
  turningPointS: number | null;
  turningPointTempC: number | null;
  dryEndS: number | null;
  dryEndTempC: number | null;
  firstCrackStartS: number | null;
  firstCrackStartTempC: number | null;
  firstCrackEndS: number | null;
  secondCrackStartS: number | null;
  dropS: number | null;
  dropTempC: number | null;
  dryingPhaseS: number | null;
  maillardPhaseS: number | null;
  developmentPhaseS: number | null;
  developmentTimeRatioPct: number | null;
  totalTimeS: number | null;
  rorDryingCPerMin: number | null;
  rorMaillardCPerMin: number | null;
  rorDevelopmentCPerMin: number | null;
  weightLossPct: number | null;
}

/** A moment on the curve: seconds since charge and the BT there (null when that sample has no BT reading). */
interface Point {
  s: number;
  tempC: number | null;
}

export function deriveMetrics(
  curve: Curve,
  weights?: { chargeKg?: number | string; dropKg?: number | string },
): RoastMetrics {
  const weightLossPct = weightLoss(weights?.chargeKg, weights?.dropKg);
  const charge = firstEvent(curve.events, 'charge');
  if (!charge || curve.samples.length === 0) return { ...timelessMetrics(), weightLossPct };

  const samples = curve.samples;
  const point = (event: RoastEvent | undefined): Point | null => {
    if (!event) return null;
    return { s: (event.t - charge.t) / 1000, tempC: samples[nearestIndex(samples, event.t)].bt };
  };
  const dryEnd = point(firstEvent(curve.events, 'dry_end'));
  const fcStart = point(firstEvent(curve.events, 'first_crack_start'));
  const drop = point(firstEvent(curve.events, 'drop'));
  const turningPoint =
    point(firstEvent(curve.events, 'turning_point')) ?? derivedTurningPoint(curve, charge);

  const span = (from: Point | null, to: Point | null) => (from && to ? to.s - from.s : null);
  const dryingPhaseS = dryEnd?.s ?? null;
  const maillardPhaseS = span(dryEnd, fcStart);
  const developmentPhaseS = span(fcStart, drop);
  const totalTimeS = drop?.s ?? null;

  return {
    chargeTempC: samples[nearestIndex(samples, charge.t)].bt,
    turningPointS: turningPoint?.s ?? null,
    turningPointTempC: turningPoint?.tempC ?? null,
    dryEndS: dryEnd?.s ?? null,
    dryEndTempC: dryEnd?.tempC ?? null,
    firstCrackStartS: fcStart?.s ?? null,
    firstCrackStartTempC: fcStart?.tempC ?? null,
    firstCrackEndS: point(firstEvent(curve.events, 'first_crack_end'))?.s ?? null,
    secondCrackStartS: point(firstEvent(curve.events, 'second_crack_start'))?.s ?? null,
    dropS: drop?.s ?? null,
    dropTempC: drop?.tempC ?? null,
    dryingPhaseS,
    maillardPhaseS,
    developmentPhaseS,
    developmentTimeRatioPct:
      developmentPhaseS !== null && totalTimeS ? (developmentPhaseS / totalTimeS) * 100 : null,
    totalTimeS,
    rorDryingCPerMin: rateOfRise(turningPoint, dryEnd),
    rorMaillardCPerMin: rateOfRise(dryEnd, fcStart),
    rorDevelopmentCPerMin: rateOfRise(fcStart, drop),
    weightLossPct,
  };
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

function timelessMetrics(): Omit<RoastMetrics, 'weightLossPct'> {
  return {
    chargeTempC: null,
    turningPointS: null,
    turningPointTempC: null,
    dryEndS: null,
    dryEndTempC: null,
    firstCrackStartS: null,
    firstCrackStartTempC: null,
    firstCrackEndS: null,
    secondCrackStartS: null,
    dropS: null,
    dropTempC: null,
    dryingPhaseS: null,
    maillardPhaseS: null,
    developmentPhaseS: null,
    developmentTimeRatioPct: null,
    totalTimeS: null,
    rorDryingCPerMin: null,
    rorMaillardCPerMin: null,
    rorDevelopmentCPerMin: null,
  };
}

function firstEvent(events: RoastEvent[], type: RoastEventType): RoastEvent | undefined {
  let first: RoastEvent | undefined;
  for (const event of events) if (event.type === type && (!first || event.t < first.t)) first = event;
  return first;
}

/** Artisan's findTP over [charge, first crack or drop). A minimum on the charge sample itself is no turning point. */
function derivedTurningPoint(curve: Curve, charge: RoastEvent): Point | null {
  const { samples, events } = curve;
  const start = nearestIndex(samples, charge.t);
  const endEvent = firstEvent(events, 'first_crack_start') ?? firstEvent(events, 'drop');
  const end = endEvent ? nearestIndex(samples, endEvent.t) : samples.length;
  let lowest = -1;
  for (let i = start; i < end; i++) {
    const bt = samples[i].bt;
    if (bt !== null && (lowest < 0 || bt <= samples[lowest].bt!)) lowest = i;
  }
  if (lowest <= start) return null;
  return { s: (samples[lowest].t - charge.t) / 1000, tempC: samples[lowest].bt };
}

/** °C per minute between two points; null when either temperature is missing or the span is not positive. */
function rateOfRise(from: Point | null, to: Point | null): number | null {
  if (!from || !to || from.tempC === null || to.tempC === null || to.s <= from.s) return null;
  return (to.tempC - from.tempC) / ((to.s - from.s) / 60);
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
