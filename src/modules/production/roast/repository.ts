import type { Queryable } from '../../../db/client.js';
import { SqlParams, iso, likePattern } from '../../../db/sql.js';
import { newId } from '../../../lib/ids.js';
import { decodeCursor, pageOf, type Page } from '../../../db/paging.js';
import type { CurveSample, RoastEvent } from './telemetry/curve.js';
import { METRIC_KEYS, type RoastMetrics } from './telemetry/metrics.js';

const NO_METRICS = Object.fromEntries(METRIC_KEYS.map((key) => [key, null])) as unknown as RoastMetrics;
import type { ImportFormat } from './telemetry/importers/index.js';
import type { BatchSource, BatchState, RoastBatchFilterInput } from './schemas.js';
import { stockKg, weighedGrams } from './weights.js';

// ---------------------------------------------------------------------------------------------------
// Batches

interface BatchRow {
  id: string;
  batch_number: string;
  source: BatchSource;
  state: BatchState;
  machine_id: string | null;
  profile_id: string | null;
  green_lot_id: string | null;
  location_id: string | null;
  charge_weight_kg: string | null;
  drop_weight_kg: string | null;
  weight_loss_pct: string | null;
  import_format: ImportFormat | null;
  warnings: string[];
  metrics: Omit<RoastMetrics, 'weightLossPct'> | null;
  notes: string | null;
  started_at: Date;
  completed_at: Date | null;
  aborted_at: Date | null;
  abort_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

export type RoastBatch = ReturnType<typeof toBatch>;

const toBatch = (r: BatchRow) => ({
  id: r.id,
  batchNumber: r.batch_number,
  /** live: roasted with telemetry posted by the machine bridge; import: a logger file imported after the fact. */
  source: r.source,
  state: r.state,
  machineId: r.machine_id,
  profileId: r.profile_id,
  greenLotId: r.green_lot_id,
  locationId: r.location_id,
  /** Rounded half up to the gram: what stock moved by (see weights.ts). */
  chargeWeightKg: r.charge_weight_kg === null ? null : stockKg(r.charge_weight_kg),
  dropWeightKg: r.drop_weight_kg === null ? null : stockKg(r.drop_weight_kg),
  /** As weighed, grams to 0.1 g: what the weight loss and metrics use. */
  chargeWeightG: r.charge_weight_kg === null ? null : weighedGrams(r.charge_weight_kg),
  dropWeightG: r.drop_weight_kg === null ? null : weighedGrams(r.drop_weight_kg),
  /** (charge − drop) / charge × 100 from the weights as weighed, 2 decimals, exact; null without both weights. */
  weightLossPct: r.weight_loss_pct,
  importFormat: r.import_format,
  /**
   * Remarks on how the batch was recorded: the importer's (no charge event, weights taken from the file, ...)
   * and the completion's, e.g. NO_TELEMETRY_WARNING for a batch completed without a curve.
   */
  warnings: r.warnings,
  /**
   * Derived once, at completion, from the whole curve; null while live, when aborted, and for a batch completed
   * without telemetry. weightLossPct repeats the exact figure as a number.
   */
  // Batches completed before a metric existed read it as null (the stored JSON lacks the key).
  metrics: r.metrics && { ...NO_METRICS, ...r.metrics, weightLossPct: r.weight_loss_pct === null ? null : Number(r.weight_loss_pct) },
  notes: r.notes,
  startedAt: iso(r.started_at)!,
  completedAt: iso(r.completed_at),
  /** Set when abortRoastBatch abandoned the live batch (state aborted), with the reason given. */
  abortedAt: iso(r.aborted_at),
  abortReason: r.abort_reason,
  createdAt: iso(r.created_at)!,
  updatedAt: iso(r.updated_at)!,
});

export interface NewBatch {
  batchNumber: string;
  source: BatchSource;
  machineId: string | null;
  profileId: string | null;
  greenLotId: string | null;
  locationId: string | null;
  chargeWeightKg: string | null;
  importFormat: ImportFormat | null;
  warnings: string[];
  /** Defaults to now. */
  startedAt: string | null;
}

/** Every batch starts 'live'; an import completes in the same transaction. */
export async function insertBatch(q: Queryable, orgId: string, credentialId: string, batch: NewBatch): Promise<RoastBatch> {
  const [row] = await q.query<BatchRow>(
    `insert into roast_batches (org_id, id, batch_number, source, state, machine_id, profile_id, green_lot_id, location_id,
       charge_weight_kg, import_format, warnings, started_at, credential_id)
     values ($1, $2, $3, $4, 'live', $5, $6, $7, $8, $9, $10, $11, date_trunc('milliseconds', coalesce($12::timestamptz, now())), $13)
     returning *`,
    [
      orgId, newId('rb'), batch.batchNumber, batch.source, batch.machineId, batch.profileId, batch.greenLotId, batch.locationId,
      batch.chargeWeightKg, batch.importFormat, batch.warnings, batch.startedAt, credentialId,
    ],
  );
  return toBatch(row);
}

/** The batch's state, or null when there is no such batch. */
export async function batchState(q: Queryable, orgId: string, id: string): Promise<string | null> {
  const [row] = await q.query<{ state: string }>(`select state from roast_batches where org_id = $1 and id = $2`, [orgId, id]);
  return row?.state ?? null;
}

export async function findBatch(q: Queryable, orgId: string, id: string, options: { forUpdate?: boolean } = {}): Promise<RoastBatch | undefined> {
  const [row] = await q.query<BatchRow>(
    `select * from roast_batches where org_id = $1 and id = $2${options.forUpdate ? ' for no key update' : ''}`,
    [orgId, id],
  );
  return row && toBatch(row);
}

/**
 * Marks the batch completed with what its curve and weights say; the weight loss is computed here, in numeric.
 * metrics is null for a batch completed without telemetry.
 */
export async function markCompleted(
  q: Queryable,
  orgId: string,
  id: string,
  result: {
    dropWeightKg: string | null;
    metrics: Omit<RoastMetrics, 'weightLossPct'> | null;
    notes: string | null;
    warnings: string[];
    /** When the roast ended; null: now. */
    completedAt?: string | null;
  },
): Promise<RoastBatch> {
  const [row] = await q.query<BatchRow>(
    `update roast_batches
     set state = 'completed', completed_at = date_trunc('milliseconds', coalesce($7::timestamptz, now())), updated_at = now(),
         drop_weight_kg = $3, metrics = $4, notes = $5,
         warnings = warnings || $6::text[],
         weight_loss_pct = round((charge_weight_kg - $3::numeric) * 100 / charge_weight_kg, 2)
     where org_id = $1 and id = $2 returning *`,
    [orgId, id, result.dropWeightKg, result.metrics === null ? null : JSON.stringify(result.metrics), result.notes, result.warnings, result.completedAt ?? null],
  );
  return toBatch(row);
}

/** Marks a live batch aborted: nothing about its weights, metrics or stock changes. */
export async function markAborted(q: Queryable, orgId: string, id: string, reason: string): Promise<RoastBatch> {
  const [row] = await q.query<BatchRow>(
    `update roast_batches set state = 'aborted', aborted_at = now(), abort_reason = $3, updated_at = now()
     where org_id = $1 and id = $2 and state = 'live' returning *`,
    [orgId, id, reason],
  );
  return toBatch(row);
}

export async function listBatches(q: Queryable, orgId: string, filter: RoastBatchFilterInput, page: Page) {
  const params = new SqlParams();
  const where = [`org_id = ${params.add(orgId)}`];
  if (filter.state) where.push(`state = ${params.add(filter.state)}`);
  if (filter.source) where.push(`source = ${params.add(filter.source)}`);
  if (filter.machineId) where.push(`machine_id = ${params.add(filter.machineId)}`);
  if (filter.profileId) where.push(`profile_id = ${params.add(filter.profileId)}`);
  if (filter.greenLotId) where.push(`green_lot_id = ${params.add(filter.greenLotId)}`);
  if (filter.locationId) where.push(`location_id = ${params.add(filter.locationId)}`);
  if (filter.from) where.push(`started_at >= ${params.add(filter.from)}::date`);
  if (filter.to) where.push(`started_at < ${params.add(filter.to)}::date + 1`);
  if (filter.q) where.push(`batch_number ilike ${params.add(likePattern(filter.q))}`);
  const after = decodeCursor(page.cursor, 'roast_batches', ['timestamp', 'id']);
  if (after) where.push(`(started_at, id) < (${params.add(String(after[0]))}::timestamptz, ${params.add(String(after[1]))})`);
  const rows = await q.query<BatchRow>(
    `select * from roast_batches where ${where.join(' and ')} order by started_at desc, id desc limit ${params.add(page.limit + 1)}`,
    params.values,
  );
  return pageOf(rows.map(toBatch), page.limit, 'roast_batches', (b) => [b.startedAt, b.id]);
}

// ---------------------------------------------------------------------------------------------------
// Curves

export interface StoredCurve {
  samples: CurveSample[];
  events: RoastEvent[];
  sampleCount: number;
  fullSampleCount: number;
  fullCurveKey: string;
}

export async function insertCurve(q: Queryable, orgId: string, batchId: string, curve: StoredCurve): Promise<void> {
  await q.query(
    `insert into roast_curves (org_id, batch_id, samples, events, sample_count, full_sample_count, full_curve_key)
     values ($1, $2, $3, $4, $5, $6, $7)`,
    [orgId, batchId, JSON.stringify(curve.samples), JSON.stringify(curve.events), curve.sampleCount, curve.fullSampleCount, curve.fullCurveKey],
  );
}

/** The stored curve; `withSamples: false` reads only its summary (counts and key). */
export async function findCurve(q: Queryable, orgId: string, batchId: string, options: { withSamples: boolean }): Promise<StoredCurve | undefined> {
  const [row] = await q.query<{ samples: CurveSample[] | null; events: RoastEvent[] | null; sample_count: number; full_sample_count: number; full_curve_key: string }>(
    `select ${options.withSamples ? 'samples, events' : 'null as samples, null as events'}, sample_count, full_sample_count, full_curve_key
     from roast_curves where org_id = $1 and batch_id = $2`,
    [orgId, batchId],
  );
  return (
    row && {
      samples: row.samples ?? [],
      events: row.events ?? [],
      sampleCount: row.sample_count,
      fullSampleCount: row.full_sample_count,
      fullCurveKey: row.full_curve_key,
    }
  );
}

// ---------------------------------------------------------------------------------------------------
// For a traceability chain

/** The batches as a chain of custody shows them (weights, times, what was roasted how), by start and id. */
export async function describeBatches(q: Queryable, orgId: string, ids: string[]): Promise<BatchFacts[]> {
  if (ids.length === 0) return [];
  const [row] = await q.query<{ batches: BatchFacts[] }>(
    `select coalesce(jsonb_agg(jsonb_build_object(
         'id', b.id, 'batchNumber', b.batch_number, 'machineId', b.machine_id, 'locationId', b.location_id, 'profileId', b.profile_id,
         'greenLotId', b.green_lot_id, 'chargeWeightKg', b.charge_weight_kg::text, 'dropWeightKg', b.drop_weight_kg::text,
         'weightLossPct', b.weight_loss_pct::text, 'startedAt', b.started_at, 'completedAt', b.completed_at) order by b.started_at, b.id), '[]'::jsonb) as batches
     from roast_batches b where b.org_id = $1 and b.id = any($2::text[])`,
    [orgId, ids],
  );
  // Times in the answer's format (jsonb renders them with microseconds and an offset).
  for (const batch of row.batches) {
    batch.startedAt = iso(batch.startedAt)!;
    batch.completedAt = iso(batch.completedAt);
    // Weights as a chain of custody moved them: to the gram (see weights.ts).
    if (batch.chargeWeightKg !== null) batch.chargeWeightKg = stockKg(batch.chargeWeightKg);
    if (batch.dropWeightKg !== null) batch.dropWeightKg = stockKg(batch.dropWeightKg);
  }
  return row.batches;
}

export interface BatchFacts {
  id: string;
  batchNumber: string;
  machineId: string | null;
  /** Where the batch was roasted. */
  locationId: string | null;
  profileId: string | null;
  greenLotId: string | null;
  chargeWeightKg: string | null;
  dropWeightKg: string | null;
  weightLossPct: string | null;
  startedAt: string;
  completedAt: string | null;
}

// ---------------------------------------------------------------------------------------------------
// For production reports

export interface CompletedBatch {
  id: string;
  batchNumber: string;
  machineId: string | null;
  profileId: string | null;
  locationId: string | null;
  chargeWeightKg: string | null;
  dropWeightKg: string | null;
  /** The development time ratio derived at completion; null without telemetry. */
  dtrPct: number | null;
  completedAt: string;
}

/** Batches completed in [from, to), optionally at one location, by completion and id. */
export async function completedBatchesBetween(q: Queryable, orgId: string, from: string, to: string, locationId?: string): Promise<CompletedBatch[]> {
  const rows = await q.query<{
    id: string; batch_number: string; machine_id: string | null; profile_id: string | null; location_id: string | null;
    charge_weight_kg: string | null; drop_weight_kg: string | null; dtr: number | string | null; completed_at: Date;
  }>(
    `select id, batch_number, machine_id, profile_id, location_id, charge_weight_kg::text as charge_weight_kg, drop_weight_kg::text as drop_weight_kg,
            (metrics->>'developmentTimeRatioPct')::float8 as dtr, completed_at
     from roast_batches
     where org_id = $1 and state = 'completed' and completed_at >= $2::timestamptz and completed_at < $3::timestamptz
       and ($4::text is null or location_id = $4)
     order by completed_at, id`,
    [orgId, from, to, locationId ?? null],
  );
  return rows.map((r) => ({
    id: r.id,
    batchNumber: r.batch_number,
    machineId: r.machine_id,
    profileId: r.profile_id,
    locationId: r.location_id,
    chargeWeightKg: r.charge_weight_kg === null ? null : stockKg(r.charge_weight_kg),
    dropWeightKg: r.drop_weight_kg === null ? null : stockKg(r.drop_weight_kg),
    dtrPct: r.dtr === null ? null : Number(r.dtr),
    completedAt: iso(r.completed_at)!,
  }));
}

/** The mean weight loss of each profile's completed batches that state one, 2 decimals; profiles without any are left out. */
export async function meanLossByProfile(q: Queryable, orgId: string, profileIds: string[]): Promise<Map<string, string>> {
  if (profileIds.length === 0) return new Map();
  const rows = await q.query<{ profile_id: string; mean_loss: string }>(
    `select profile_id, round(avg(weight_loss_pct), 2)::text as mean_loss from roast_batches
     where org_id = $1 and profile_id = any($2::text[]) and state = 'completed' and weight_loss_pct is not null
     group by profile_id`,
    [orgId, profileIds],
  );
  return new Map(rows.map((r) => [r.profile_id, r.mean_loss]));
}

// ---------------------------------------------------------------------------------------------------
// The reference curve a batch is roasted against.

/** The completed batch chosen as the batch's reference; null: none chosen (the profile's is used). */
export async function referenceOf(q: Queryable, orgId: string, batchId: string): Promise<string | null> {
  const [row] = await q.query<{ reference_batch_id: string | null }>(`select reference_batch_id from roast_batches where org_id = $1 and id = $2`, [orgId, batchId]);
  return row?.reference_batch_id ?? null;
}

export async function setReference(q: Queryable, orgId: string, batchId: string, referenceBatchId: string | null): Promise<void> {
  await q.query(`update roast_batches set reference_batch_id = $3, updated_at = now() where org_id = $1 and id = $2`, [orgId, batchId, referenceBatchId]);
}
