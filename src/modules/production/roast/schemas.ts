import { z } from 'zod';
import { code, date, id, kg, page, strict, text } from '../../../rpc/schemas.js';
import { decimalOut, idOut, kgOut, out, timeOut } from '../../../rpc/outputs.js';
import { RoastedLot } from '../../inventory/roast/schemas.js';
import { linkLifetime } from '../../../http/signed-files.js';
import { METRIC_DOCS } from './telemetry/metric-docs.js';
import { AUC_BEGINS, METRIC_KEYS, type AucBegin, type RoastMetrics as RoastMetricValues } from './telemetry/metrics.js';

/** A completed batch's curve as files (curve-files.ts): the full-fidelity JSON, and Artisan's .alog and CSV exports of it. */
export const CURVE_FORMATS = ['full', 'alog', 'csv'] as const;
export type CurveFormat = (typeof CURVE_FORMATS)[number];

export const BATCH_STATES = ['live', 'completed', 'aborted'] as const;
export const BATCH_SOURCES = ['live', 'import'] as const;
/** The logger formats importLoggerRoast reads (telemetry/importers). */
export const IMPORT_FORMATS = [
  'artisan_alog',
  'artisan_json',
  'artisan_csv',
  'ikawa_csv',
  'roest_csv',
  'loring_csv',
  'aillio_json',
  'cropster_xls',
] as const;
export const ROAST_EVENT_TYPES = [
  'charge',
  'turning_point',
  'dry_end',
  'first_crack_start',
  'first_crack_end',
  'second_crack_start',
  'second_crack_end',
  'drop',
  'cool_end',
] as const;

export const ABORT_REASON_MAX_LENGTH = 500;

/** A roast weight as weighed: grams with one decimal. */
const gramsOut = z.string().regex(/^\d+\.\d$/).describe('grams as weighed, a decimal string with one decimal');

const positiveKg = kg({ positive: true });

export const StartRoastBatch = strict({
  batchNumber: code,
  machineId: id('machineId'),
  profileId: id('profileId').optional(),
  greenLotId: id('greenLotId').optional(),
  chargeWeightKg: positiveKg,
  /** Defaults to the machine's location. */
  locationId: id('locationId').optional(),
  /** An extension: the completed batch whose curve the roast follows; absent, the profile's reference (its latest completed batch). */
  referenceBatchId: id('referenceBatchId').optional(),
});

export const SetRoastReference = strict({
  id: id(),
  /** A completed batch of the organization; null: back to the profile's reference (its latest completed batch). */
  referenceBatchId: id('referenceBatchId').nullable(),
});

export const MarkRoastEvent = strict({
  id: id(),
  type: z.enum(ROAST_EVENT_TYPES),
  /** ms since charge; absent: the time of the latest sample the session holds (0 before any). */
  t: z.number().int('must be whole milliseconds').min(-86_400_000).max(86_400_000).optional(),
});

export const CompleteRoastBatch = strict({
  id: id(),
  /** Roasted weight out of the drum. Required when the batch names a green lot; it becomes the roasted lot's weight. */
  dropWeightKg: positiveKg.optional(),
  notes: text(4000).optional(),
});

export const AbortRoastBatch = strict({
  id: id(),
  /** Why the batch is abandoned (started by mistake, roast dumped, ...); kept on the batch. */
  reason: z.string().trim().min(1, 'must not be empty: say why the batch is aborted').max(ABORT_REASON_MAX_LENGTH),
});

export const ImportLoggerRoast = strict({
  /** The logger's export as text: Artisan .alog/JSON/CSV, IKAWA, ROEST, Loring, Aillio; a Cropster .xls base64-encoded. */
  content: z.string().min(1),
  batchNumber: code,
  machineId: id('machineId').optional(),
  // Extensions beyond the specification, so an imported roast can book stock exactly like a live one.
  greenLotId: id('greenLotId').optional(),
  /** Used when the file records no green weight. */
  chargeWeightKg: positiveKg.optional(),
  /** Used when the file records no roasted weight. */
  dropWeightKg: positiveKg.optional(),
  locationId: id('locationId').optional(),
  profileId: id('profileId').optional(),
});

export const RoastBatchFilter = strict({
  state: z.enum(BATCH_STATES).optional(),
  source: z.enum(BATCH_SOURCES).optional(),
  machineId: id('machineId').optional(),
  profileId: id('profileId').optional(),
  greenLotId: id('greenLotId').optional(),
  locationId: id('locationId').optional(),
  /** Started on or after this day (UTC). */
  from: date.optional(),
  /** Started on or before this day (UTC). */
  to: date.optional(),
  /** Case-insensitive search in the batch number. */
  q: z.string().trim().min(1).max(100).optional(),
});

export const GetRoastCurveLink = strict({
  id: id(),
  /** full: the full-fidelity curve as JSON; alog: an Artisan profile; csv: Artisan's CSV layout (tab-separated). */
  format: z.enum(CURVE_FORMATS),
  /** Seconds the link works; default 900, at most 7 days. */
  expiresInSeconds: linkLifetime,
});

export const ListRoastBatches = strict({ filter: RoastBatchFilter.default({}), page });
export const ById = strict({ id: id() });

export type BatchState = (typeof BATCH_STATES)[number];
export type BatchSource = (typeof BATCH_SOURCES)[number];
export type RoastBatchFilterInput = z.output<typeof RoastBatchFilter>;

// ---------------------------------------------------------------------------------------------------
// Answers

type MetricField<K extends keyof RoastMetricValues> = z.ZodNullable<K extends 'aucBegin' ? z.ZodEnum<{ [V in AucBegin]: V }> : z.ZodNumber>;

/**
 * Every metric Artisan computes (see telemetry/metrics.ts), to 2 decimals, null where the curve does not say; each
 * field's description gives its unit and definition (telemetry/metric-docs.ts), so /docs documents them all.
 */
export const RoastMetrics = out(
  Object.fromEntries(
    METRIC_KEYS.map((key) => {
      const { unit, definition } = METRIC_DOCS[key];
      const field = key === 'aucBegin' ? z.enum(AUC_BEGINS) : z.number();
      return [key, field.nullable().describe(`${unit}. ${definition}`)];
    }),
  ) as { [K in keyof RoastMetricValues]: MetricField<K> },
).meta({ id: 'RoastMetrics', description: 'Roast metrics as Artisan computes them; times in s since charge, temperatures °C, rates °C/min, areas °C·min, energy BTU, CO2 g.' });

export const RoastBatch = out({
  id: idOut,
  batchNumber: z.string(),
  /** live: roasted with telemetry posted by the machine bridge; import: a logger file imported after the fact. */
  source: z.enum(BATCH_SOURCES),
  state: z.enum(BATCH_STATES),
  /** Null only for an import that names no machine. */
  machineId: idOut.nullable(),
  profileId: idOut.nullable(),
  greenLotId: idOut.nullable(),
  locationId: idOut.nullable(),
  /** Null only for an import whose file and input give no charge weight. Rounded half up to the gram: the green consumed. */
  chargeWeightKg: kgOut.nullable(),
  /** Rounded half up to the gram: the roasted lot's weight. */
  dropWeightKg: kgOut.nullable(),
  /** The charge as weighed, grams with one decimal ("130.0"): a roast logger's 0.1 g is kept. */
  chargeWeightG: gramsOut.nullable(),
  /** The drop as weighed, grams with one decimal ("115.2"). */
  dropWeightG: gramsOut.nullable(),
  /** (charge − drop) / charge × 100 from the weights as weighed, 2 decimals, exact; null without both weights. */
  weightLossPct: decimalOut.nullable(),
  importFormat: z.enum(IMPORT_FORMATS).nullable(),
  /** Remarks on how the batch was recorded: the importer's, or that it was completed without telemetry. */
  warnings: z.array(z.string()),
  /** Derived at completion; null while live, when aborted and when completed without telemetry. */
  metrics: RoastMetrics.nullable(),
  notes: z.string().nullable(),
  startedAt: timeOut,
  completedAt: timeOut.nullable(),
  /** Set when the batch was aborted, with the reason given. */
  abortedAt: timeOut.nullable(),
  abortReason: z.string().nullable(),
  createdAt: timeOut,
  updatedAt: timeOut,
}).meta({ id: 'RoastBatch' });

const kgComparison = out({ target: kgOut.nullable(), actual: kgOut.nullable(), difference: kgOut.nullable() });
const numberComparison = out({ target: z.number().nullable(), actual: z.number().nullable(), difference: z.number().nullable() });

/** The batch against its profile's targets; a difference is actual − target, null unless both are known. */
export const RoastProfileComparison = out({
  profileId: idOut,
  profileCode: z.string(),
  chargeWeightKg: kgComparison,
  dropTempC: numberComparison,
  totalTimeS: numberComparison,
  dtrPct: numberComparison,
}).meta({ id: 'RoastProfileComparison' });

/** The stored curve's sample counts and where its full-fidelity copy is in object storage. */
export const RoastCurveSummary = out({
  sampleCount: z.number().int().nonnegative(),
  fullSampleCount: z.number().int().nonnegative(),
  fullCurveKey: z.string(),
}).meta({ id: 'RoastCurveSummary' });

/** A batch as answered: with its profile comparison, the roasted lot it made and its stored curve's summary. */
export const RoastBatchView = RoastBatch.extend({
  /** The completed batch chosen as this one's reference curve; null: the profile's reference, its latest completed batch. */
  referenceBatchId: idOut.nullable(),
  /** Null when the batch has no profile. */
  profileComparison: RoastProfileComparison.nullable(),
  /** The loose lot the completion opened; null unless completed with a green lot. */
  roastedLot: RoastedLot.nullable(),
  /** Null when no curve is stored: live, aborted, or completed without telemetry. */
  curve: RoastCurveSummary.nullable(),
}).meta({ id: 'RoastBatchView' });

export const RoastCurveSample = out({
  /** ms since charge; negative before charge. */
  t: z.number(),
  /** Bean temperature, °C; null: no reading. */
  bt: z.number().nullable(),
  /** Environment temperature, °C; null: no reading. */
  et: z.number().nullable(),
  /** Further channels (burner %, fan, extra probes), by name. */
  channels: z.record(z.string(), z.number().nullable()).optional(),
}).meta({ id: 'RoastCurveSample' });

export const RoastCurveEvent = out({
  type: z.enum(ROAST_EVENT_TYPES),
  /** ms since charge. */
  t: z.number(),
}).meta({ id: 'RoastCurveEvent' });

export const RoastCurve = out({
  batchId: idOut,
  state: z.enum(BATCH_STATES),
  /** true: the downsample stored at completion; false: read from the live buffer (or nothing kept, when aborted). */
  persisted: z.boolean(),
  samples: z.array(RoastCurveSample),
  events: z.array(RoastCurveEvent),
  sampleCount: z.number().int().nonnegative(),
  fullSampleCount: z.number().int().nonnegative(),
  fullCurveKey: z.string().nullable(),
}).meta({ id: 'RoastCurve' });

/** A roast event marked on a live batch (production.roast.markRoastEvent), as watchers receive it. */
export const MarkedRoastEvent = out({
  batchId: idOut,
  type: z.enum(ROAST_EVENT_TYPES),
  /** ms since charge. */
  t: z.number(),
}).meta({ id: 'MarkedRoastEvent' });

export const RoastCurveLink = out({
  batchId: idOut,
  format: z.enum(CURVE_FORMATS),
  /** GET it without a credential until expiresAt: relative to the service's address, or an absolute S3 presigned URL. */
  url: z.string(),
  /** `service`: the service's own signed link (410 once expired); `s3`: a presigned URL the bucket serves. */
  signedBy: z.enum(['service', 's3']),
  expiresAt: timeOut,
  /** The file's media type: application/json, text/plain (.alog) or text/tab-separated-values (.csv). */
  contentType: z.string(),
  /** The name it downloads as: `<batch number>-<batch id>.json|.alog|.csv`. */
  filename: z.string(),
}).meta({ id: 'RoastCurveLink' });
