/**
 * The roast curve every importer produces and every metric reads. Temperatures are always °C; times are milliseconds
 * (not necessarily whole) relative to the charge event, so samples recorded before charge have a negative t.
 */

export type RoastEventType =
  | 'charge'
  | 'turning_point'
  | 'dry_end'
  | 'first_crack_start'
  | 'first_crack_end'
  | 'second_crack_start'
  | 'second_crack_end'
  | 'drop'
  | 'cool_end';

export interface CurveSample {
  /** ms since charge, may be negative before charge */
  t: number;
  /** bean temperature °C; null = no reading */
  bt: number | null;
  /** environment/exhaust/air temperature °C; null = no reading */
  et: number | null;
  /** further channels (burner %, fan, extra probes); see each importer for names and units */
  channels?: Record<string, number | null>;
}

export interface RoastEvent {
  type: RoastEventType;
  /** ms since charge */
  t: number;
}

export interface Curve {
  /** sorted by t */
  samples: CurveSample[];
  events: RoastEvent[];
}

/**
 * °F to °C, to a billionth of a degree: far below any probe's resolution, and it keeps binary-float noise
 * (51.8 °F → 10.999999999999998 °C) out of the stored curve and every export of it.
 */
export function fahrenheitToCelsius(f: number): number {
  return Math.round(((f - 32) * 5 * 1e9) / 9) / 1e9 + 0;
}

/** A °F difference (a rate of rise) in °C, to a billionth of a degree like fahrenheitToCelsius. */
export function fahrenheitDeltaToCelsius(f: number): number {
  return Math.round((f * 5 * 1e9) / 9) / 1e9 + 0;
}

export function celsiusToFahrenheit(c: number): number {
  return (c * 9) / 5 + 32;
}
