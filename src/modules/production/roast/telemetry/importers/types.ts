import type { Curve, CurveSample, RoastEvent } from '../curve.js';
import type { MetricsOptions } from '../metrics.js';

export type ImportFormat =
  | 'artisan_alog'
  | 'artisan_json'
  | 'artisan_csv'
  | 'ikawa_csv'
  | 'roest_csv'
  | 'loring_csv'
  | 'aillio_json'
  | 'cropster_xls';

export interface RoastMeta {
  /** RFC3339 instant of t = 0 on the file's own time axis (Artisan: the start of recording), when the file has a zone. */
  roastedAt?: string;
  /**
   * The same moment as a local wall clock without a zone (`YYYY-MM-DDTHH:MM:SS`), when that is all the file says
   * (Artisan CSV `Date:`/`Time:`, Loring, Cropster); the importing operation reads it in a time zone it names.
   */
  localRoastedAt?: string;
  title?: string;
  machine?: string;
  greenWeightKg?: number;
  roastedWeightKg?: number;
  /** unit the file stored its temperatures in; the curve is always °C */
  sourceUnit: 'C' | 'F';
  /** How the log asks metrics to be computed (Artisan: phase temperatures, AUC settings, energy loads). */
  metricsOptions?: MetricsOptions;
  /** What an Artisan log records beyond the curve, kept so its .alog export gives it back. */
  details?: LogDetails;
}

/** An Artisan special event: a control change (burner, air, drum, damper) marked during the roast. */
export interface SpecialEvent {
  /** ms on the curve's time axis */
  t: number;
  /** index into `eventTypes` (Artisan's etypes: 0..3, 4 = untyped) */
  type: number;
  /** Artisan's internal encoding (displayed value = round(v × 10) − 10 for v > 1) */
  value: number;
  label: string;
}

export interface LogDetails {
  /** The roaster as the log names it (Artisan's roastertype). */
  roasterType?: string;
  beans?: string;
  operator?: string;
  roastingNotes?: string;
  /** Seconds between samples as the logger was set. */
  samplingIntervalS?: number;
  /** Names of the special event types (Artisan's etypes). */
  eventTypes?: string[];
  specialEvents?: SpecialEvent[];
}

export interface ImportedRoast {
  format: ImportFormat;
  /** Celsius, times rebased so charge is t=0 (if no charge: t on the file's own time axis and events unset) */
  curve: Curve;
  /** false => warnings say so */
  chargeFound: boolean;
  /**
   * Where the roast starts and ends on the file's own time axis (ms, before rebasing): charge (else the first
   * sample) and drop (else the last sample). With meta.roastedAt they date the batch.
   */
  span: { startMs: number; endMs: number };
  warnings: string[];
  meta: RoastMeta;
  /** Artisan files only: the "computed" block as stored by Artisan, for cross-checking. */
  artisanComputed?: Record<string, unknown>;
}

/** Thrown for content that cannot be imported; the message names the problem (line/column/field where known). */
export class ImportError extends Error {
  override readonly name = 'ImportError';
}

/**
 * What a format parser hands back: samples (already °C) and events on the file's own time axis, in ms. Rebasing on
 * charge happens once, in `finishImport`, so every format gets the same charge/no-charge semantics.
 */
export interface ParsedLog {
  samples: CurveSample[];
  events: RoastEvent[];
  meta: RoastMeta;
  warnings: string[];
  artisanComputed?: Record<string, unknown>;
}
