import type { OperationContext } from '../../../rpc/define.js';
import { invalidInput } from '../../../rpc/errors.js';
import type { Curve } from './telemetry/curve.js';
import type { LogDetails } from './telemetry/importers/index.js';
import { deriveMetrics, downsampleTo1Hz, type MetricsOptions, type RoastMetrics } from './telemetry/metrics.js';
import { scaled } from '../../../lib/grams.js';
import { tenthGrams } from './weights.js';
import * as green from '../../inventory/green/service.js';
import * as roasted from '../../inventory/roast/service.js';
import * as lineageService from '../../lineage/service.js';
import { roastedLotCode } from '../../inventory/roast/schemas.js';
import { findProfile } from '../profile/service.js';
import { round2 } from './comparison.js';
import * as repo from './repository.js';
import { curveFileKey, encodeFullCurve, type FullCurve } from './curve-files.js';

/** Where the full-fidelity copy of a batch's curve lives in the blob store. */
export const fullCurveKey = (orgId: string, batchId: string) => curveFileKey(orgId, batchId, 'json');

/** The warning a batch completed without telemetry carries: it has weights and stock movements but no curve. */
export const NO_TELEMETRY_WARNING = 'no telemetry was recorded: the batch was completed without a curve, so its metrics are null';

export interface Completion {
  dropWeightKg: string | null;
  notes: string | null;
  /** Remarks to add to the batch's warnings. */
  warnings: string[];
  /** When the coffee was roasted, for the roasted lot's freshness; null: the completion time. */
  roastedAt: string | null;
  /** When the roast ended (an imported log's drop); absent or null: now. */
  completedAt?: string | null;
  event: 'production.roast.batch_completed' | 'production.roast.batch_imported';
  /** How to compute the metrics: the imported log's own settings, or the machine's energy data for a live batch. */
  metricsOptions?: MetricsOptions;
  /** An imported log's own settings and details, kept with the full curve so its exports carry them. */
  logSettings?: MetricsOptions;
  logDetails?: LogDetails;
  /** The curve's samples and events as JSON arrays as received (a live batch's posts), for its full-curve file. */
  curveText?: { samples: readonly Buffer[]; events: readonly Buffer[] };
}

/**
 * The one completion path, shared by completeRoastBatch (live telemetry) and importLoggerRoast (a logger
 * file), so an imported roast books exactly what a live one does. Inside the caller's transaction, on a
 * 'live' batch the caller has locked or just created:
 * - the full curve goes to object storage (durable before the transaction commits; a rolled-back attempt
 *   leaves an object the retry overwrites), the 1 Hz downsample to the database;
 * - metrics are derived from the whole curve, the weight loss exactly from the weights; without a curve (a
 *   machine without a logger: `curve` null) nothing is stored for it and metrics are null, while weights,
 *   stock and lineage are booked exactly as with one;
 * - stock moves only for a batch that names a green lot (coffee the inventory tracks): the charge weight
 *   leaves the green lot as one roast_consume row, a loose roasted lot of the drop weight opens with a
 *   roast_output row (at the batch's location, else where the green came from), and lineage green lot → roast batch → roasted lot records the weights that followed
 *   each edge. Without a green lot the batch is production data only (a drop weight still gives the loss).
 * Everything outside the database that must wait for the commit (publishing the status, discarding the
 * live buffer) is the caller's to schedule with ctx.afterCommit.
 */
export async function recordCompletion(
  ctx: OperationContext,
  batch: repo.RoastBatch,
  curve: Curve | null,
  completion: Completion,
): Promise<repo.RoastBatch> {
  checkWeights(batch, completion.dropWeightKg);
  // First what can still refuse, so a refused completion writes nothing anywhere.
  const greenTransactions = batch.greenLotId ? await consumeGreen(ctx, batch, batch.greenLotId) : [];

  // The full-fidelity copy goes to the blob store, the 1 Hz downsample to the database. The two overlap (the
  // slowest steps of a completion; bench/README.md): the downsample's insert is sent first, PostgreSQL stores
  // it (parses and compresses ~170 kB of JSON for a 20-minute roast) while this thread makes the full curve's
  // file (~1.7 MB: a live batch's copied from its posts' text as received, an import's encoded), and the blob
  // is written while the rest of the completion's statements run. It is awaited
  // before the events, so a completion never commits without its blob: as before, a completion that fails
  // after the blob was written leaves it unreferenced, and nothing else.
  let fullCurveWritten: Promise<void> | undefined;
  if (curve) {
    const key = fullCurveKey(ctx.orgId, batch.id);
    const downsampled = downsampleTo1Hz(curve.samples);
    const inserted = repo.insertCurve(ctx.tx, ctx.orgId, batch.id, {
      samples: downsampled,
      events: curve.events,
      sampleCount: downsampled.length,
      fullSampleCount: curve.samples.length,
      fullCurveKey: key,
    });
    const full: FullCurve = { batchId: batch.id, samples: curve.samples, events: curve.events, ...(completion.logSettings && { settings: completion.logSettings }), ...(completion.logDetails && { details: completion.logDetails }) };
    let encoded: string | Buffer;
    try {
      encoded = encodeFullCurve(full, completion.curveText);
    } catch (error) {
      await inserted.catch(() => {});
      throw error;
    }
    fullCurveWritten = ctx.services.blobs.put(key, encoded, 'application/json');
    // Settled here as well, so a statement failing meanwhile leaves no unhandled rejection behind.
    fullCurveWritten.catch(() => {});
    await inserted;
  }

  const completed = await repo.markCompleted(ctx.tx, ctx.orgId, batch.id, {
    dropWeightKg: completion.dropWeightKg,
    metrics: curve ? curveMetrics(curve, batch.chargeWeightG, completion.metricsOptions) : null,
    notes: completion.notes,
    warnings: completion.warnings,
    completedAt: completion.completedAt,
  });

  const output =
    completed.greenLotId === null
      ? null
      : await roasted.openRoastOutput(ctx.tx, ctx.orgId, ctx.principal.credentialId, {
          lotCode: roastedLotCode(completed.batchNumber),
          roastBatchId: completed.id,
          batchNumber: completed.batchNumber,
          greenLotId: completed.greenLotId,
          greenLotCode: (await green.lotCodes(ctx.tx, ctx.orgId, [completed.greenLotId])).get(completed.greenLotId)!,
          profileId: completed.profileId,
          // Roasted where the batch was, else where its green came from.
          locationId: completed.locationId ?? greenTransactions[0].locationId,
          roastedAt: completion.roastedAt ?? completed.completedAt!,
          weightLossPct: completed.weightLossPct,
          dropWeightKg: completed.dropWeightKg!,
          shelfLifeDays: completed.profileId ? ((await findProfile(ctx.tx, ctx.orgId, completed.profileId))?.shelfLifeDays ?? null) : null,
        });

  const lineage = output
    ? await lineageService.recordEdges(ctx.tx, ctx.orgId, [
        { fromKind: 'green_lot', fromId: completed.greenLotId!, toKind: 'roast_batch', toId: completed.id, weightKg: completed.chargeWeightKg, groupId: completed.id },
        { fromKind: 'roast_batch', fromId: completed.id, toKind: 'roasted_lot', toId: output.lot.id, weightKg: completed.dropWeightKg, groupId: completed.id },
      ])
    : [];

  await fullCurveWritten;
  await ctx.emit(completion.event, { batch: completed, greenTransactions, roastedLotId: output?.lot.id ?? null, lineage });
  if (output) await ctx.emit('inventory.roast.lot_created', { lot: output.lot, transactions: [output.transaction] });
  return completed;
}

/**
 * A roasted lot needs a weight, so a batch that consumes a green lot must say what came out of the drum;
 * and a roast loses weight, it never gains it.
 */
export function checkWeights(batch: repo.RoastBatch, dropWeightKg: string | null): void {
  if (batch.greenLotId && dropWeightKg === null) {
    throw invalidInput(
      [{ path: 'dropWeightKg', message: `required: the batch consumes green lot ${batch.greenLotId}, and the roasted lot it makes needs its weight` }],
      'Give the roasted weight out of the drum.',
    );
  }
  if (dropWeightKg !== null && batch.chargeWeightG !== null && tenthGrams(dropWeightKg) > scaled(batch.chargeWeightG, 1)) {
    throw invalidInput([{ path: 'dropWeightKg', message: `cannot exceed the charge weight of ${batch.chargeWeightKg} kg` }]);
  }
}

/** The charge leaves the green lot by green's own rule (see consumeForRoast). */
function consumeGreen(ctx: OperationContext, batch: repo.RoastBatch, greenLotId: string): Promise<green.LedgerEntry[]> {
  return green.consumeForRoast(ctx.tx, ctx.orgId, ctx.principal.credentialId, {
    lotId: greenLotId,
    chargeWeightKg: batch.chargeWeightKg!,
    locationId: batch.locationId,
    batchId: batch.id,
    batchNumber: batch.batchNumber,
  });
}

/**
 * The curve's metrics, to 2 decimals, per kg of the charge as weighed; the weight loss is computed from the weights in
 * the database instead.
 */
function curveMetrics(curve: Curve, chargeWeightG: string | null, options: MetricsOptions | undefined): Omit<RoastMetrics, 'weightLossPct'> {
  const chargeKg = chargeWeightG === null ? undefined : Number(chargeWeightG) / 1000;
  const { weightLossPct: _ignored, ...metrics } = deriveMetrics(curve, { chargeKg }, options);
  const rounded: Record<string, unknown> = { ...metrics };
  for (const [key, value] of Object.entries(rounded)) if (typeof value === 'number') rounded[key] = round2(value);
  return rounded as Omit<RoastMetrics, 'weightLossPct'>;
}
