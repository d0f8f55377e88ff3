import { z } from 'zod';
import { date, id, kg, page, strict, text } from '../../../rpc/schemas.js';
import { grams } from '../../../lib/grams.js';
import { ADJUSTMENT_REASONS, NEGATIVE_ONLY_REASONS } from '../green/schemas.js';

export const ROASTED_FORMS = ['loose', 'packaged', 'blended'] as const;

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
