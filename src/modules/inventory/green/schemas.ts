import { z } from 'zod';
import { code, currency, id, kg, money, name, page, strict, text } from '../../../rpc/schemas.js';
import { grams } from '../../../lib/grams.js';

export const GREEN_STATES = ['green', 'parchment', 'dry_cherry', 'wet_parchment', 'raw_green', 'decaf_green'] as const;
export const ADJUSTMENT_REASONS = ['adjust', 'shrinkage', 'write_off', 'recount', 'sample_draw', 'return'] as const;
export type AdjustmentReason = (typeof ADJUSTMENT_REASONS)[number];
export const COST_BUCKETS = ['price', 'freight', 'duty', 'carry', 'other'] as const;
export type CostBucket = (typeof COST_BUCKETS)[number];

/**
 * Reasons whose direction is fixed: coffee lost to shrinkage, written off or drawn as a sample leaves
 * the lot. A wrong sign is refused rather than silently flipped. adjust, recount and return go either way.
 */
export const NEGATIVE_ONLY_REASONS: ReadonlySet<AdjustmentReason> = new Set(['shrinkage', 'write_off', 'sample_draw']);

const label = z.string().trim().min(1).max(100);
const comment = text(1000).optional();
const positiveKg = kg({ positive: true });
/** A location, or null for stock that has not been placed anywhere yet (the unassigned balance). */
const locationRef = (what: string) => id(what).nullable();

export const ImportGreenLot = strict({
  name,
  lotCode: code,
  weightKg: positiveKg,
  supplierRef: text(200).optional(),
  producerId: id('producerId').optional(),
  partnerId: id('partnerId').optional(),
  state: z.enum(GREEN_STATES).default('green'),
  varieties: z.array(label).max(50).optional(),
  processMethod: text(100).optional(),
  harvestYear: z.number().int().min(1900).max(2200).optional(),
  certifications: z.array(label).max(50).optional(),
  bagCount: z.number().int().min(0).max(1_000_000).optional(),
  bagWeightKg: positiveKg.optional(),
  unitCost: money.optional(),
  currency: currency.optional(),
  minWeightKg: kg().optional(),
  /** Absent: the opening weight sits on the unassigned balance until transferred somewhere. */
  locationId: id('locationId').optional(),
  notes: text(4000).optional(),
}).superRefine((input, ctx) => {
  if (input.unitCost !== undefined && input.currency === undefined) {
    ctx.addIssue({ code: 'custom', path: ['currency'], message: 'required with unitCost' });
  }
});

export const AdjustGreenLotQuantity = strict({
  id: id(),
  deltaKg: kg({ allowNegative: true }).refine((s) => grams(s) !== 0n, 'must not be zero'),
  reason: z.enum(ADJUSTMENT_REASONS),
  /**
   * Omitted: the lot's only holding (refused with 400 when it is held at several locations). null: the
   * unassigned balance.
   */
  locationId: locationRef('locationId').optional(),
  comment,
}).superRefine((input, ctx) => {
  if (NEGATIVE_ONLY_REASONS.has(input.reason) && grams(input.deltaKg) > 0n) {
    ctx.addIssue({ code: 'custom', path: ['deltaKg'], message: `a ${input.reason} removes coffee: give a negative deltaKg` });
  }
});

export const TransferGreenLot = strict({
  id: id(),
  fromLocationId: locationRef('fromLocationId'),
  toLocationId: locationRef('toLocationId'),
  weightKg: positiveKg,
  comment,
}).superRefine((input, ctx) => {
  if (input.fromLocationId === input.toLocationId) {
    ctx.addIssue({ code: 'custom', path: ['toLocationId'], message: 'must differ from fromLocationId' });
  }
});

export const ReserveGreenLot = strict({ id: id(), weightKg: positiveKg, comment });

export const SplitGreenLot = strict({
  id: id(),
  weightKg: positiveKg,
  newLotCode: code,
  /** Defaults to the parent's name with the new lot code appended. */
  newName: name.optional(),
  comment,
});

export const MergeGreenLots = strict({
  targetId: id('targetId'),
  sourceIds: z.array(id('sourceIds')).min(1).max(50),
  comment,
}).superRefine((input, ctx) => {
  const seen = new Set<string>();
  input.sourceIds.forEach((sourceId, i) => {
    if (sourceId === input.targetId) ctx.addIssue({ code: 'custom', path: ['sourceIds', i], message: 'a lot cannot be merged into itself' });
    else if (seen.has(sourceId)) ctx.addIssue({ code: 'custom', path: ['sourceIds', i], message: 'named twice' });
    seen.add(sourceId);
  });
});

export const CostComponentInput = strict({
  bucket: z.enum(COST_BUCKETS),
  amount: money,
  currency,
  /** total: the amount for the whole lot; per_kg: the amount per kilogram of the lot's opening weight. */
  basis: z.enum(['total', 'per_kg']).default('total'),
  description: text(500).optional(),
});

export const SetGreenLotCostComponents = strict({
  greenLotId: id('greenLotId'),
  /** The complete new set; an empty list clears the landed cost. */
  components: z.array(CostComponentInput).max(100),
}).superRefine((input, ctx) => {
  // No FX: a landed cost is summed in one currency, so mixed currencies are refused, not converted.
  const first = input.components[0]?.currency;
  input.components.forEach((c, i) => {
    if (c.currency !== first) ctx.addIssue({ code: 'custom', path: ['components', i, 'currency'], message: `all components must be in ${first}` });
  });
});

export const GreenLotFilter = strict({
  state: z.enum(GREEN_STATES).optional(),
  /** Lots holding stock (a positive balance) at this location. */
  locationId: id('locationId').optional(),
  producerId: id('producerId').optional(),
  partnerId: id('partnerId').optional(),
  quarantined: z.boolean().optional(),
  /** true: lots with coffee on hand (> 0); false: empty or negative lots. */
  hasStock: z.boolean().optional(),
  /** true: lots whose on-hand weight is below their minWeightKg. */
  belowMinimum: z.boolean().optional(),
  /** Case-insensitive search in lot code and name. */
  q: z.string().trim().min(1).max(100).optional(),
});

export const ListGreenLots = strict({ filter: GreenLotFilter.default({}), page });
export const ListGreenLotTransactions = strict({ greenLotId: id('greenLotId'), page });
export const ByGreenLotId = strict({ greenLotId: id('greenLotId') });
export const ById = strict({ id: id() });

export type ImportGreenLotInput = z.output<typeof ImportGreenLot>;
export type GreenLotFilterInput = z.output<typeof GreenLotFilter>;
export type CostComponentInputValue = z.output<typeof CostComponentInput>;
