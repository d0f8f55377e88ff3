import { z } from 'zod';
import { date, id, kg, page, strict, text } from '../../../rpc/schemas.js';
import { currencyOut, dateOut, decimalOut, idOut, kgOut, out, timeOut } from '../../../rpc/outputs.js';
import { grams } from '../../../lib/grams.js';
import { ADJUSTMENT_REASONS, NEGATIVE_ONLY_REASONS } from '../green/schemas.js';
import { PublishedCupping } from '../../quality/cupping/schemas.js';

export const ROASTED_FORMS = ['loose', 'packaged', 'blended'] as const;
/** A roast's output, an adjustment, or a shipment (`fulfilment`, written by the orders module). */
export const ROASTED_LEDGER_KINDS = ['roast_output', ...ADJUSTMENT_REASONS, 'fulfilment'] as const;
export type RoastedLedgerKind = (typeof ROASTED_LEDGER_KINDS)[number];

export const AdjustRoastedLotQuantity = strict({
  id: id(),
  deltaKg: kg({ allowNegative: true }).refine((s) => grams(s) !== 0n, 'must not be zero'),
  reason: z.enum(ADJUSTMENT_REASONS),
  comment: text(1000).optional(),
}).superRefine((input, ctx) => {
  if (NEGATIVE_ONLY_REASONS.has(input.reason) && grams(input.deltaKg) > 0n) {
    ctx.addIssue({ code: 'custom', path: ['deltaKg'], message: `a ${input.reason} removes coffee: give a negative deltaKg` });
  }
});

export const RoastedLotFilter = strict({
  form: z.enum(ROASTED_FORMS).optional(),
  roastBatchId: id('roastBatchId').optional(),
  greenLotId: id('greenLotId').optional(),
  profileId: id('profileId').optional(),
  locationId: id('locationId').optional(),
  /** true: lots with coffee on hand (> 0); false: empty or negative lots. */
  hasStock: z.boolean().optional(),
  /** true: lots past their best-before day (UTC); false: lots still within it. */
  expired: z.boolean().optional(),
  /** Roasted on or after this day (UTC). */
  roastedFrom: date.optional(),
  /** Roasted on or before this day (UTC). */
  roastedTo: date.optional(),
  /** Case-insensitive search in the lot code. */
  q: z.string().trim().min(1).max(100).optional(),
});

export const ListRoastedLots = strict({ filter: RoastedLotFilter.default({}), page });
export const ById = strict({ id: id() });

/** The lot code a roast batch's output gets: unique per organization because batch numbers are. */
export const roastedLotCode = (batchNumber: string) => `R-${batchNumber}`;

export type RoastedLotFilterInput = z.output<typeof RoastedLotFilter>;
export type RoastedForm = (typeof ROASTED_FORMS)[number];

// ---------------------------------------------------------------------------------------------------
// Answers

export const RoastedLot = out({
  id: idOut,
  lotCode: z.string(),
  form: z.enum(ROASTED_FORMS),
  /** The roast batch the lot came out of, with its number. */
  roastBatchId: idOut.nullable(),
  batchNumber: z.string().nullable(),
  /** The green coffee that was roasted, with its lot code. */
  greenLotId: idOut.nullable(),
  greenLotCode: z.string().nullable(),
  profileId: idOut.nullable(),
  locationId: idOut.nullable(),
  roastedAt: timeOut,
  /** (charge − drop) / charge × 100 of the roast that made the lot, 2 decimals. */
  weightLossPct: decimalOut.nullable(),
  shelfLifeDays: z.number().int().positive(),
  /** The UTC day the lot is best before: roast day + shelf life. FEFO allocation spends the earliest first. */
  bestBefore: dateOut,
  /** Past its best-before day (today, UTC, is later): allocation leaves it out unless `includeExpired`. */
  expired: z.boolean(),
  /** What the lot opened with (its roast_output rows). */
  openingKg: kgOut,
  /** Negative only after a recount. */
  onHandKg: kgOut,
  createdAt: timeOut,
  updatedAt: timeOut,
}).meta({ id: 'RoastedLot' });

/** One row of a roasted lot's ledger. */
export const RoastedLotTransaction = out({
  id: idOut,
  roastedLotId: idOut,
  /** 1, 2, … per lot, in the order the rows were written. */
  seq: z.number().int().positive(),
  kind: z.enum(ROASTED_LEDGER_KINDS),
  deltaKg: kgOut,
  credentialId: idOut,
  comment: z.string().nullable(),
  createdAt: timeOut,
}).meta({ id: 'RoastedLotTransaction' });

/** Why a roasted lot has no cost: never a zero. */
export const COST_MISSING_REASONS = ['no_green_input', 'green_not_costed', 'mixed_currencies', 'no_roasted_weight'] as const;
export type CostMissingReason = (typeof COST_MISSING_REASONS)[number];

/** What a roasted lot costs: the landed cost of the green roasted into it, spread over its roasted weight. */
export const RoastedLotCost = out({
  /** null while the cost is missing. */
  currency: currencyOut.nullable(),
  /** Landed cost of the green coffee roasted into the lot, 4 decimals; null when missing (never 0). */
  greenCost: decimalOut.nullable(),
  /** greenCost / the lot's opening (roasted) weight, 4 decimals half-up; null when missing (never 0). */
  perKg: decimalOut.nullable(),
  /**
   * Why there is no cost: no_green_input (not roasted from a tracked green lot), green_not_costed (a green lot
   * without a landed cost), mixed_currencies (green lots costed in different currencies: never converted),
   * no_roasted_weight. null when costed.
   */
  missing: z.enum(COST_MISSING_REASONS).nullable(),
  /** Each green lot roasted into the lot, the kilograms charged and its current landed cost per kg. */
  greenInputs: z.array(out({ greenLotId: idOut, chargedKg: kgOut, landedCostPerKg: decimalOut.nullable(), currency: currencyOut.nullable() })),
  /** The rule, in words. */
  rule: z.string(),
}).meta({ id: 'RoastedLotCost' });

/** A roasted lot with its whole ledger, oldest first. */
export const RoastedLotDetail = RoastedLot.extend({
  /** Its cost per kilogram from the green it was roasted from (`rule` says how). */
  cost: RoastedLotCost,
  transactions: z.array(RoastedLotTransaction),
  /** The latest finalized cupping of this lot or of the roast batch that made it; null when neither was cupped. */
  cupping: PublishedCupping.nullable(),
}).meta({ id: 'RoastedLotDetail' });

/** What a change of a roasted lot answers: the lot as it now stands and the ledger rows written. */
export const RoastedLotChange = out({ lot: RoastedLot, transactions: z.array(RoastedLotTransaction) }).meta({ id: 'RoastedLotChange' });
