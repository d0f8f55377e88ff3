import type { Queryable } from '../../../db/client.js';
import { grams, kgString } from '../../../lib/grams.js';
import { conflict } from '../../../rpc/errors.js';
import * as repo from './repository.js';

/**
 * What other modules may ask of roasted stock, inside the caller's transaction: open the lot a roast
 * produced, ship from a lot, and read lots. A roasted lot's weight changes only through its ledger.
 */
export type { AllocatableStock, RoastedLedgerEntry, RoastedLot } from './repository.js';
export { batchOutputs, findBatchOutput, findRoastedLot, missingRoastedLotIds, roastedLotLabels, roastedLotLocations } from './repository.js';
/** What roasted lots cost per kilogram, from the green roasted into them (ROASTED_COST_RULE). */
export { roastedLotCosts, ROASTED_COST_RULE, type RoastedLotCost } from './cost.js';

/**
 * For an allocation, read without locks: every lot with stock that is named in `lotIds` or was roasted from
 * one of `greenLots` (with that profile when one is named). A figure that may be stale by the time it is
 * used, so a caller that decides on it locks the lots it chose (lockFreeRoastedLots, lockRoastedLots) and
 * reads their weight again from the lock.
 */
export { readStockFor } from './repository.js';

/**
 * For order lines naming a product, read without locks: the green lot each roasted lot came from, and the
 * lots with stock roasted with a profile.
 */
export { lotIdsRoastedWith, roastedLotGreenLots } from './repository.js';

/** Locks the lots in id order, waiting for any another transaction holds, and answers their on-hand weight. */
export { lockRoastedLots } from './repository.js';

/**
 * Locks up to `limit` of the lots in the order given, passing over those another transaction holds (it never
 * waits, so it cannot deadlock whatever order it is given): concurrent allocations take different lots
 * instead of queueing for the same one. What it answers is current until commit.
 */
export { lockFreeRoastedLots } from './repository.js';

export interface RoastOutput {
  lotCode: string;
  roastBatchId: string;
  batchNumber: string;
  greenLotId: string;
  greenLotCode: string;
  profileId: string | null;
  locationId: string | null;
  roastedAt: string;
  weightLossPct: string | null;
  dropWeightKg: string;
  /** The roast profile's shelf life in days; null: the default. */
  shelfLifeDays: number | null;
}

/**
 * Opens the loose lot a roast batch produced, with one roast_output ledger row of the drop weight (so
 * opening and on-hand weight start equal); it keeps as long as its profile says (shelfLifeDays).
 */
export async function openRoastOutput(
  q: Queryable,
  orgId: string,
  credentialId: string,
  output: RoastOutput,
): Promise<{ lot: repo.RoastedLot; transaction: repo.RoastedLedgerEntry }> {
  if (!(grams(output.dropWeightKg) > 0n)) throw new Error(`roast output of batch ${output.batchNumber}: ${output.dropWeightKg} kg is not a weight`);
  const lotId = await repo.insertRoastedLot(q, orgId, {
    lotCode: output.lotCode,
    form: 'loose',
    roastBatchId: output.roastBatchId,
    batchNumber: output.batchNumber,
    greenLotId: output.greenLotId,
    greenLotCode: output.greenLotCode,
    profileId: output.profileId,
    locationId: output.locationId,
    roastedAt: output.roastedAt,
    weightLossPct: output.weightLossPct,
    shelfLifeDays: output.shelfLifeDays,
  });
  const transaction = await repo.appendRoastedLedger(q, orgId, credentialId, {
    lotId,
    kind: 'roast_output',
    deltaKg: output.dropWeightKg,
    comment: `roast batch ${output.batchNumber}`,
  });
  return { lot: (await repo.findRoastedLot(q, orgId, lotId))!, transaction };
}

/** The roasted-lot ledger kind a shipment is booked with (added to the ledger's kinds by migration 0009). */
const FULFILMENT = 'fulfilment' as repo.RoastedLedgerKind;

/**
 * Ships `weightKg` out of a roasted lot with one fulfilment ledger row. The lot is locked (the caller may
 * hold the lock already) and must hold the weight: 409 insufficient_stock naming the lot otherwise, and
 * nothing is written.
 */
export async function shipRoasted(
  q: Queryable,
  orgId: string,
  credentialId: string,
  shipment: { lotId: string; weightKg: string; comment: string },
): Promise<repo.RoastedLedgerEntry> {
  const weight = grams(shipment.weightKg);
  if (weight <= 0n) throw new Error(`shipment from roasted lot ${shipment.lotId}: ${shipment.weightKg} kg is not a weight`);
  const lot = await repo.lockRoastedLot(q, orgId, shipment.lotId);
  if (!lot || lot.onHand < weight) {
    const held = kgString(lot?.onHand ?? 0n);
    throw conflict('insufficient_stock', `Roasted lot ${lot?.lotCode ?? shipment.lotId} holds ${held} kg, less than the ${shipment.weightKg} kg to ship.`, {
      roastedLotId: shipment.lotId,
      onHandKg: held,
    });
  }
  return repo.appendRoastedLedger(q, orgId, credentialId, { lotId: shipment.lotId, kind: FULFILMENT, deltaKg: `-${shipment.weightKg}`, comment: shipment.comment });
}

/** Reports: every roasted lot holding stock just before `before`, from its ledger rows recorded earlier. */
export function holdingsAt(q: Queryable, orgId: string, before: string, locationIds?: string[]): Promise<repo.RoastedHoldingAt[]> {
  return repo.holdingsAt(q, orgId, before, locationIds);
}
