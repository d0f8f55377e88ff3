import { kgString } from '../../lib/grams.js';
import type { NewClaim, OpenLine } from './repository.js';
import type { AllocationStrategy } from './schemas.js';

/** A roasted lot that can fill some of the order's lines, locked by the roasted-stock module for this allocation. */
export interface ClaimableLot {
  id: string;
  lotCode: string;
  greenLotId: string | null;
  profileId: string | null;
  roastedAt: string;
  bestBefore: string;
  /** Past its best-before day: left out unless the allocation includes expired stock. */
  expired: boolean;
  /** On hand less every active claim, never below zero. */
  available: bigint;
}

/** Stock of a line's coffee the allocation left out because it is past its best-before day. */
export interface ExpiredStock {
  roastedLotId: string;
  lotCode: string;
  bestBefore: string;
  availableKg: string;
}

export interface Shortfall {
  orderLineId: string;
  lineNumber: number;
  quantityKg: string;
  /** Claimed for the line so far, this allocation included. */
  allocatedKg: string;
  shortfallKg: string;
  /** expired: stock of the line's coffee is there but past its best-before day (`expiredLots`); insufficient_stock: there is not enough. */
  reason: 'insufficient_stock' | 'expired';
  expiredLots: ExpiredStock[];
}

export interface ClaimPlan {
  claims: NewClaim[];
  shortfalls: Shortfall[];
}

/** The order in which a strategy spends stock: fefo by best-before day, fifo by roast time; ties by roast time, then id. */
const ORDERINGS: Record<AllocationStrategy, (a: ClaimableLot, b: ClaimableLot) => number> = {
  fefo: (a, b) => compare(a.bestBefore, b.bestBefore) || compare(a.roastedAt, b.roastedAt) || compare(a.id, b.id),
  fifo: (a, b) => compare(a.roastedAt, b.roastedAt) || compare(a.id, b.id),
};

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The lots in the order the strategy spends them. */
export function inStrategyOrder(lots: ClaimableLot[], strategy: AllocationStrategy): ClaimableLot[] {
  return [...lots].sort(ORDERINGS[strategy]);
}

export function fillsLine(lot: ClaimableLot, line: OpenLine): boolean {
  if (line.roastedLotId) return lot.id === line.roastedLotId;
  if (line.greenLotId) return lot.greenLotId === line.greenLotId && (line.profileId === null || lot.profileId === line.profileId);
  // A product line made with a profile (blend lines arrive split into green-lot parts: product-lines.ts).
  return line.profileId !== null && lot.profileId === line.profileId;
}

/**
 * Decides the claims for the order's open lines, line by line in line order, each taking from the lots
 * that can fill it in the strategy's order until it is covered or they are spent. Lines earlier in the
 * order are served first when they compete for the same lot. Expired lots are promised only with
 * `includeExpired`; otherwise a line they could have served names them in its shortfall (reason expired).
 * Pure: the caller holds the locks of the lots it will claim from.
 */
export function planClaims(lines: OpenLine[], lots: ClaimableLot[], strategy: AllocationStrategy, includeExpired = false): ClaimPlan {
  const available = new Map(lots.map((lot) => [lot.id, lot.available]));
  const promisable = includeExpired ? lots : lots.filter((lot) => !lot.expired);
  const left = includeExpired ? [] : lots.filter((lot) => lot.expired && lot.available > 0n).sort(ORDERINGS.fefo);
  const ordered = [...promisable].sort(ORDERINGS[strategy]);
  const claims: ClaimPlan['claims'] = [];
  const shortfalls: Shortfall[] = [];
  for (const line of lines) {
    let remaining = line.remaining;
    for (const lot of ordered) {
      if (remaining <= 0n) break;
      const free = available.get(lot.id)!;
      if (free <= 0n || !fillsLine(lot, line)) continue;
      const take = free < remaining ? free : remaining;
      available.set(lot.id, free - take);
      remaining -= take;
      claims.push({ orderLineId: line.id, roastedLotId: lot.id, quantityKg: kgString(take), lotCode: lot.lotCode, bestBefore: lot.bestBefore });
    }
    if (remaining > 0n) {
      const expiredLots = left
        .filter((lot) => fillsLine(lot, line))
        .map((lot) => ({ roastedLotId: lot.id, lotCode: lot.lotCode, bestBefore: lot.bestBefore, availableKg: kgString(lot.available) }));
      shortfalls.push({
        orderLineId: line.id,
        lineNumber: line.lineNumber,
        quantityKg: kgString(line.quantity),
        allocatedKg: kgString(line.quantity - remaining),
        shortfallKg: kgString(remaining),
        reason: expiredLots.length > 0 ? 'expired' : 'insufficient_stock',
        expiredLots,
      });
    }
  }
  return { claims, shortfalls };
}
