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
  /** RFC3339 instant; left unset when the file only has a local time without a zone */
  roastedAt?: string;
  title?: string;
  machine?: string;
  greenWeightKg?: number;
  roastedWeightKg?: number;
  /** unit the file stored its temperatures in; the curve is always °C */
  sourceUnit: 'C' | 'F';
  /** How the log asks metrics to be computed (Artisan: phase temperatures, AUC settings, energy loads). */
  metricsOptions?: MetricsOptions;
}

export interface ImportedRoast {
  format: ImportFormat;
  /** Celsius, times rebased so charge is t=0 (if no charge: t on the file's own time axis and events unset) */
  curve: Curve;
  /** false => warnings say so */
  chargeFound: boolean;
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
