import type { Queryable } from '../../../db/client.js';
import { divRound, decimalString } from '../../../lib/decimal.js';
import { grams, scaled } from '../../../lib/grams.js';
import * as green from '../green/service.js';
import * as lineage from '../../lineage/service.js';
import type { CostMissingReason } from './schemas.js';

/** How a roasted lot's cost is figured, as its answers state it. */
export const ROASTED_COST_RULE =
  'green cost = the current landed cost per kg of each green lot roasted into the lot × the kg charged of it (a blend: each ' +
  'component), summed; cost per kg = green cost / the lot’s roasted (opening) weight, 4 decimals half-up, so the roast loss is priced in';

export interface RoastedLotCost {
  /** null while the cost is missing. */
  currency: string | null;
  /** Landed cost of the green coffee roasted into the lot, 4 decimals. */
  greenCost: string | null;
  /** greenCost / opening weight, 4 decimals half-up. */
  perKg: string | null;
  missing: CostMissingReason | null;
  greenInputs: { greenLotId: string; chargedKg: string; landedCostPerKg: string | null; currency: string | null }[];
  rule: string;
}

/**
 * Each lot's cost from the green it was roasted from (lineage green lot → roast batch → roasted lot, with the
 * kilograms charged) at the green lots' current landed cost. Exact: per-kg costs are 4-decimal units, weights
 * grams, so the green cost is a sum of integer products and the only rounding is the final division. A green
 * lot without a landed cost, or inputs in more than one currency (never converted), leave the cost missing.
 */
export async function roastedLotCosts(q: Queryable, orgId: string, lots: { id: string; openingKg: string }[]): Promise<Map<string, RoastedLotCost>> {
  const inputs = await lineage.greenInputsOfRoastedLots(q, orgId, lots.map((l) => l.id));
  const landed = await green.landedCostsPerKg(q, orgId, [...new Set(inputs.map((i) => i.greenLotId))]);
  const costs = new Map<string, RoastedLotCost>();
  for (const lot of lots) {
    const greenInputs = inputs
      .filter((i) => i.roastedLotId === lot.id)
      .map((i) => {
        const cost = landed.get(i.greenLotId);
        return { greenLotId: i.greenLotId, chargedKg: i.weightKg ?? '0.000', landedCostPerKg: cost?.perKg ?? null, currency: cost?.currency ?? null };
      });
    const missingCost = (missing: CostMissingReason): RoastedLotCost => ({ currency: null, greenCost: null, perKg: null, missing, greenInputs, rule: ROASTED_COST_RULE });
    const currencies = new Set(greenInputs.map((i) => i.currency));
    if (greenInputs.length === 0) costs.set(lot.id, missingCost('no_green_input'));
    else if (currencies.has(null)) costs.set(lot.id, missingCost('green_not_costed'));
    else if (currencies.size > 1) costs.set(lot.id, missingCost('mixed_currencies'));
    else {
      // 4-decimal units × grams = units of 10^-7; back to 4 decimals by /1000.
      const total = greenInputs.reduce((sum, i) => sum + scaled(i.landedCostPerKg!, 4) * grams(i.chargedKg), 0n);
      const opening = grams(lot.openingKg);
      costs.set(lot.id, {
        currency: greenInputs[0].currency,
        greenCost: decimalString(divRound(total, 1000n), 4),
        perKg: opening > 0n ? decimalString(divRound(total, opening), 4) : null,
        missing: opening > 0n ? null : 'no_roasted_weight',
        greenInputs,
        rule: ROASTED_COST_RULE,
      });
    }
  }
  return costs;
}
