import type { Queryable } from '../../../db/client.js';
import { grams, kgString } from '../../../lib/grams.js';
import { ProblemError, conflict, notFound, throwNotFound } from '../../../rpc/errors.js';
import * as repo from './repository.js';

/**
 * What other modules may ask of green coffee: rule-checked commands and reads, each inside the caller's
 * transaction. Stock moves only through here (and this module's own operations), so the ledger's rules
 * (locks in id order, one row per change, balances never negative) hold whoever moves the coffee.
 */
export type { LedgerEntry, LockedLot } from './repository.js';
export { lotCodes, missingLotIds } from './repository.js';

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
  const lot = (await repo.lockLot(q, orgId, lotId)) ?? throwNotFound('green lot', lotId, 'greenLotId');
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
  const lot = (await repo.lockLot(q, orgId, roast.lotId)) ?? throwNotFound('green lot', roast.lotId, 'greenLotId');
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



/** The lots' coffee facts for a chain of custody (never their cost), by lot code. */
export type { GreenLotFacts } from './repository.js';

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
 * of the rows recorded earlier, not today's balances), with the lot's current landed cost, optionally only
 * at some locations; `rows` at a time from a cursor, so call it inside the report's transaction.
 */
export function holdingsAt(q: Queryable, orgId: string, before: string, locationIds: string[] | undefined, rows: number): AsyncGenerator<repo.GreenHoldingAt[]> {
  return repo.holdingsAt(q, orgId, before, locationIds, rows);
}

/** Reports: the lots' current landed cost per kilogram and its currency (lots without components are absent). */
export function landedCostsPerKg(q: Queryable, orgId: string, lotIds: string[]): Promise<Map<string, { perKg: string; currency: string }>> {
  return repo.landedCostsPerKg(q, orgId, lotIds);
}

export type { GreenLot } from './repository.js';

/**
 * Puts a lot in quarantine with the reason, who (a credential id) and when, under the lot's lock: from then
 * on it cannot be reserved, split, merged or roasted (409 lot_quarantined) until released. A lot already in
 * quarantine stays in its quarantine unchanged (its reason is the first one's): `quarantined` false says
 * this call changed nothing. 404 naming greenLotId for a lot this organization does not have.
 */
export async function quarantineGreenLot(
  q: Queryable,
  orgId: string,
  lotId: string,
  reason: string,
  by: string,
): Promise<{ lot: repo.GreenLot; quarantined: boolean }> {
  const locked = (await repo.lockLot(q, orgId, lotId)) ?? throwNotFound('green lot', lotId, 'greenLotId');
  if (!locked.quarantined) await repo.setQuarantine(q, orgId, lotId, reason, by);
  return { lot: (await repo.findLot(q, orgId, lotId))!, quarantined: !locked.quarantined };
}

/**
 * Releases a lot's quarantine, recording the reason, who and when on the lot, under the lot's lock. A lot
 * that is not in quarantine is 409 lot_not_quarantined; 404 naming greenLotId for a lot this organization
 * does not have.
 */
export async function releaseGreenLotQuarantine(q: Queryable, orgId: string, lotId: string, reason: string, by: string): Promise<repo.GreenLot> {
  const locked = (await repo.lockLot(q, orgId, lotId)) ?? throwNotFound('green lot', lotId, 'greenLotId');
  if (!locked.quarantined) {
    throw conflict('lot_not_quarantined', `Green lot ${locked.lotCode} is not in quarantine.`, { errors: [{ path: 'greenLotId', message: 'not quarantined' }] });
  }
  await repo.clearQuarantine(q, orgId, lotId, reason, by);
  return (await repo.findLot(q, orgId, lotId))!;
}

/** A lot as getGreenLot answers it (without balances), read without locking; undefined when this organization has none. */
export function findGreenLot(q: Queryable, orgId: string, lotId: string): Promise<repo.GreenLot | undefined> {
  return repo.findLot(q, orgId, lotId);
}
/** One lot to receive through receiveGreenLots: the lot's facts, its opening weight and where it arrives. */
export interface GreenLotReceipt {
  lot: repo.NewGreenLot;
  weightKg: string;
  /** null: the unassigned balance. */
  locationId: string | null;
  /** The lot's landed-cost components (version 1), spread over the opening weight; none: no landed cost yet. */
  costComponents: repo.CostComponent[];
  comment: string;
  /** Input paths a refusal names: the lot code and the location as the caller's input spells them. */
  paths: { lotCode: string; locationId: string };
}

/**
 * Every refusal receiveGreenLots would answer for these receipts, by receipt index, in the order it checks
 * them: each location must exist in the organization (404 naming paths.locationId) and not be archived (409
 * location_archived), then each lot code must be unused in the organization (409 duplicate naming
 * paths.lotCode). Reads only: a spreadsheet import's dry run asks it for every row's verdict, and
 * receiveGreenLots refuses with the first.
 */
export async function greenLotReceiptRefusals(
  q: Queryable,
  orgId: string,
  receipts: GreenLotReceipt[],
): Promise<{ index: number; problem: ProblemError }[]> {
  const refusals: { index: number; problem: ProblemError }[] = [];
  const named = [...new Set(receipts.map((r) => r.locationId).filter((l): l is string => l !== null))];
  if (named.length > 0) {
    const { locations } = await repo.readStock(q, orgId, [], named);
    for (const [index, r] of receipts.entries()) {
      if (r.locationId === null) continue;
      const location = locations.get(r.locationId);
      if (!location) refusals.push({ index, problem: notFound('location', r.locationId, r.paths.locationId) });
      else if (location.archived) {
        refusals.push({
          index,
          problem: conflict('location_archived', `Location ${r.locationId} is archived and cannot receive coffee.`, {
            errors: [{ path: r.paths.locationId, message: 'archived' }],
          }),
        });
      }
    }
  }
  // A lot code already used is named by its receipt's path; the unique constraint still guards a concurrent insert.
  const taken = new Set(await repo.lotCodesInUse(q, orgId, receipts.map((r) => r.lot.lotCode)));
  for (const [index, r] of receipts.entries()) {
    if (!taken.has(r.lot.lotCode)) continue;
    refusals.push({
      index,
      problem: conflict('duplicate', `Another lot in this organization already has lot code ${r.lot.lotCode}.`, {
        errors: [{ path: r.paths.lotCode, message: 'already used in this organization' }],
      }),
    });
  }
  return refusals;
}

/**
 * Creates green lots with their opening weight, all or none, as importGreenLot does: the lots (lot codes unique
 * per organization: 409 duplicate naming paths.lotCode) and each one's weight as one `receive` ledger row at its
 * location in one statement (insertReceivedLots), then their cost components (version 1) in one more. A location must exist in
 * the organization (404 naming paths.locationId) and not be archived (409 location_archived). Lineage is the
 * caller's to record (it knows where the coffee came from). Answers the lots as they now stand, in order.
 */
export async function receiveGreenLots(
  q: Queryable,
  orgId: string,
  credentialId: string,
  receipts: GreenLotReceipt[],
): Promise<{ lots: repo.GreenLotWithBalances[]; transactions: repo.LedgerEntry[] }> {
  const [refusal] = await greenLotReceiptRefusals(q, orgId, receipts);
  if (refusal) throw refusal.problem;
  // One statement for the lots, their `receive` ledger rows and balances; one for the cost components and
  // rollups; one read of the lots as they now stand: a receipt of any size is three statements.
  let written: { ids: string[]; transactions: repo.LedgerEntry[] };
  try {
    written = await repo.insertReceivedLots(
      q,
      orgId,
      credentialId,
      receipts.map((r) => ({ lot: r.lot, weightKg: r.weightKg, locationId: r.locationId, comment: r.comment })),
    );
  } catch (error) {
    if ((error as { constraint?: string }).constraint === 'green_lots_org_id_lot_code_key') {
      const detail = (error as { detail?: string }).detail ?? '';
      const clash = receipts.find((r) => detail.includes(`(${orgId}, ${r.lot.lotCode})`)) ?? receipts[0];
      throw conflict('duplicate', `Another lot in this organization already has lot code ${clash.lot.lotCode}.`, {
        errors: [{ path: clash.paths.lotCode, message: 'already used in this organization' }],
      });
    }
    throw error;
  }
  const lotIds = written.ids;
  await repo.replaceCostComponentsOfLots(
    q,
    orgId,
    receipts.flatMap((r, i) => (r.costComponents.length > 0 ? [{ lotId: lotIds[i], components: r.costComponents, weightBasisKg: r.weightKg }] : [])),
  );
  const lots = await repo.findLotsWithBalances(q, orgId, lotIds);
  return { lots: lotIds.map((id) => lots.get(id)!), transactions: written.transactions };
}

export type { CostComponent, GreenLotWithBalances } from './repository.js';

/** The price component a unit cost given at import stands for (importGreenLot, a spreadsheet import): per kilogram of the opening weight. */
export function importPriceComponent(unitCost: string, currency: string): repo.CostComponent {
  return { bucket: 'price', amount: unitCost, currency, basis: 'per_kg', description: 'unit cost at import' };
}

/** Reports: lots whose latest quarantine began or ended in [from, to), or that are in quarantine now. */
export function quarantinesBetween(q: Queryable, orgId: string, from: string, to: string): Promise<repo.QuarantineRow[]> {
  return repo.quarantinesBetween(q, orgId, from, to);
}
