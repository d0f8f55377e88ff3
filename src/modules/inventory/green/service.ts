import type { Queryable } from '../../../db/client.js';
import { grams, kgString } from '../../../lib/grams.js';
import { conflict, notFound } from '../../../rpc/errors.js';
import * as repo from './repository.js';

/**
 * What other modules may ask of green coffee: rule-checked commands and reads, each inside the caller's
 * transaction. Stock moves only through here (and this module's own operations), so the ledger's rules
 * (locks in id order, one row per change, balances never negative) hold whoever moves the coffee.
 */
export type { LedgerEntry, LockedLot } from './repository.js';
export { missingLotIds } from './repository.js';

/**
 * The location holding the most of a lot (the unassigned balance included; ties: the first in balance
 * order). Coffee taken out of a lot in one piece (a split, a roast's charge) comes from one place, and when
 * no better place is named it is this one.
 */
export function largestHolding<B extends { locationId: string | null; onHand: bigint }>(balances: B[]): B | undefined {
  return balances.reduce<B | undefined>((best, b) => (best === undefined || b.onHand > best.onHand ? b : best), undefined);
}

/**
 * Checks that a roast may charge `chargeWeightKg` of the lot, and locks it until commit so the stock decided
 * on stays true: the lot exists (404 naming greenLotId), is not quarantined (409 lot_quarantined) and, when a
 * charge is given, has that much available, on hand less reserved (409 insufficient_stock naming
 * chargeWeightKg). Without a charge only the lot itself is checked: the caller decides whether it needs one.
 */
export async function checkRoastCharge(q: Queryable, orgId: string, lotId: string, chargeWeightKg: string | undefined): Promise<repo.LockedLot> {
  const lot = (await repo.lockLot(q, orgId, lotId)) ?? throwNotFound(lotId);
  if (lot.quarantined) {
    throw conflict('lot_quarantined', `Green lot ${lot.lotCode} is quarantined.`, { errors: [{ path: 'greenLotId', message: 'quarantined' }] });
  }
  if (chargeWeightKg === undefined) return lot;
  const available = lot.onHand - lot.reserved;
  if (grams(chargeWeightKg) > available) {
    throw conflict('insufficient_stock', `Green lot ${lot.lotCode} has ${kgString(available)} kg available (on hand less reserved).`, {
      availableKg: kgString(available),
      errors: [{ path: 'chargeWeightKg', message: `at most ${kgString(available)} kg is available` }],
    });
  }
  return lot;
}

export interface RoastConsumption {
  lotId: string;
  chargeWeightKg: string;
  /** Where the roast happened: the coffee comes from there when the lot holds the whole charge there. */
  locationId: string | null;
  /** The roast batch: its id groups the ledger row, its number is the row's comment. */
  batchId: string;
  batchNumber: string;
}

/**
 * Takes a roast's charge out of the lot with one roast_consume row (group id = the batch id). The coffee is
 * taken from the roast's location when the lot holds the whole charge there, otherwise from the lot's
 * largest holding when that holds it; coffee is never taken from two places for one batch (409
 * insufficient_stock, naming the largest holding). Quarantine and reservations are checked when the roast
 * starts (checkRoastCharge): by now the coffee has been roasted, so only the physical stock is decided here.
 */
export async function consumeForRoast(q: Queryable, orgId: string, credentialId: string, roast: RoastConsumption): Promise<repo.LedgerEntry[]> {
  const lot = (await repo.lockLot(q, orgId, roast.lotId)) ?? throwNotFound(roast.lotId);
  const charge = grams(roast.chargeWeightKg);
  const balances = await repo.balancesInGrams(q, orgId, [roast.lotId]);
  const atRoastLocation = balances.find((b) => b.locationId === roast.locationId && b.locationId !== null && b.onHand >= charge);
  const largest = largestHolding(balances);
  const source = atRoastLocation ?? (largest && largest.onHand >= charge ? largest : undefined);
  if (!source) {
    throw conflict(
      'insufficient_stock',
      `No single location holds the ${roast.chargeWeightKg} kg charge of green lot ${lot.lotCode} (the largest holding is ${kgString(largest?.onHand ?? 0n)} kg); ` +
        'correct the green stock (e.g. a recount or transfer) and complete the batch again.',
      { greenLotId: roast.lotId, chargeWeightKg: roast.chargeWeightKg, largestHoldingKg: kgString(largest?.onHand ?? 0n) },
    );
  }
  const { transactions } = await repo.appendLedger(q, orgId, credentialId, [
    {
      lotId: roast.lotId,
      kind: 'roast_consume',
      locationId: source.locationId,
      deltaKg: `-${roast.chargeWeightKg}`,
      groupId: roast.batchId,
      comment: `roast batch ${roast.batchNumber}`,
    },
  ]);
  return transactions;
}

function throwNotFound(lotId: string): never {
  throw notFound('green lot', lotId, 'greenLotId');
}


/** The lots' coffee facts for a chain of custody (never their cost), by lot code. */
export function describeLots(q: Queryable, orgId: string, ids: string[]): Promise<repo.GreenLotFacts[]> {
  return repo.describeLots(q, orgId, ids);
}

/** The lots' codes, quarantine and stock figures (on hand, reserved), read without locking: for answers, not decisions. */
export function findLotFigures(q: Queryable, orgId: string, ids: string[]): Promise<Map<string, repo.LotFigures>> {
  return repo.findLotFigures(q, orgId, ids);
}

/**
 * Kilograms of each lot a roast plan may count on (read without locking): on hand less reserved, none for a
 * quarantined lot, and at a location only what is held there (never more than the lot's available total).
 */
export function roastableKg(q: Queryable, orgId: string, lotIds: string[], locationId: string | null): Promise<Map<string, string>> {
  return repo.roastableKg(q, orgId, lotIds, locationId);
}

/**
 * Reports: every non-zero holding (lot and location) as the ledger stood just before `before` (the sum
 * of the rows recorded earlier, not today's balances), optionally only at some locations.
 */
export function holdingsAt(q: Queryable, orgId: string, before: string, locationIds?: string[]): Promise<repo.GreenHoldingAt[]> {
  return repo.holdingsAt(q, orgId, before, locationIds);
}

/** Reports: the lots' current landed cost per kilogram and its currency (lots without components are absent). */
export function landedCostsPerKg(q: Queryable, orgId: string, lotIds: string[]): Promise<Map<string, { perKg: string; currency: string }>> {
  return repo.landedCostsPerKg(q, orgId, lotIds);
}
