import { z } from 'zod';
import { code, decimal, id, kg, name, page, strict } from '../../../rpc/schemas.js';
import { scaled } from '../../../lib/grams.js';
import { decimalOut, idOut, kgOut, out, timeOut } from '../../../rpc/outputs.js';

export const BLEND_TYPES = ['pre_roast', 'post_roast'] as const;
export const ROAST_LEVELS = ['light', 'medium', 'dark'] as const;

/** The expected roast loss a pre-roast blend is grossed up by when none is given. */
export const DEFAULT_PRE_ROAST_LOSS_PCT = '15';

const percent = (options: { positive?: boolean; max: number }) => decimal({ scale: 2, min: 0, ...options });

export const BlendComponentInput = strict({
  /** Green lot (for post_roast blends too, until roasted lots exist). */
  greenLotId: id('greenLotId'),
  ratioPct: percent({ positive: true, max: 100 }),
});

export const CreateBlend = strict({
  name,
  code,
  blendType: z.enum(BLEND_TYPES),
  /** 0–50; defaults to 15 for pre_roast blends, and is informational for post_roast ones. */
  targetWeightLossPct: percent({ max: 50 }).optional(),
  roastLevel: z.enum(ROAST_LEVELS).optional(),
  isDecaf: z.boolean().default(false),
  components: z.array(BlendComponentInput).min(1).max(20),
}).superRefine((input, ctx) => {
  const seen = new Set<string>();
  input.components.forEach((c, i) => {
    if (seen.has(c.greenLotId)) ctx.addIssue({ code: 'custom', path: ['components', i, 'greenLotId'], message: 'named twice in this blend' });
    seen.add(c.greenLotId);
  });
  const total = input.components.reduce((sum, c) => sum + scaled(c.ratioPct, 2), 0n);
  if (total !== 10000n) {
    ctx.addIssue({ code: 'custom', path: ['components'], message: `ratios must add up to exactly 100 (they add up to ${total / 100n}.${String(total % 100n).padStart(2, '0')})` });
  }
});

export const BlendFilter = strict({
  blendType: z.enum(BLEND_TYPES).optional(),
  roastLevel: z.enum(ROAST_LEVELS).optional(),
  isDecaf: z.boolean().optional(),
  /** Case-insensitive search in name and code. */
  q: z.string().trim().min(1).max(100).optional(),
});

export const ListBlends = strict({ filter: BlendFilter.default({}), page });
export const ById = strict({ id: id() });
export const ValidateBlendAvailability = strict({ blendId: id('blendId'), requestedKg: kg({ positive: true }) });

export type CreateBlendInput = z.output<typeof CreateBlend>;
export type BlendFilterInput = z.output<typeof BlendFilter>;

export const BlendComponent = out({
  id: idOut,
  greenLotId: idOut,
  lotCode: z.string(),
  /** Two decimals; a blend's ratios add up to exactly 100. */
  ratioPct: decimalOut,
}).meta({ id: 'BlendComponent' });

/** A recipe: immutable once created. */
export const Blend = out({
  id: idOut,
  code: z.string(),
  name: z.string(),
  blendType: z.enum(BLEND_TYPES),
  roastLevel: z.enum(ROAST_LEVELS).nullable(),
  isDecaf: z.boolean(),
  /** Two decimals; always set for pre_roast blends (default 15), null for post_roast ones unless given. */
  targetWeightLossPct: decimalOut.nullable(),
  /** In the recipe's order. */
  components: z.array(BlendComponent),
  createdAt: timeOut,
}).meta({ id: 'Blend' });

export const BlendAvailability = out({
  blendId: idOut,
  blendType: z.enum(BLEND_TYPES),
  requestedKg: kgOut,
  targetWeightLossPct: decimalOut.nullable(),
  /** true for pre_roast blends: green needed is grossed up for the expected roast loss. */
  grossedUpForRoastLoss: z.boolean(),
  /** Every component has enough available: totalShortKg is zero. */
  available: z.boolean(),
  totalNeededKg: kgOut,
  totalShortKg: kgOut,
  /** In the recipe's order. */
  components: z.array(
    out({
      greenLotId: idOut,
      lotCode: z.string(),
      ratioPct: decimalOut,
      /** A quarantined lot has nothing available. */
      quarantined: z.boolean(),
      /** Rounded up to the gram. */
      neededKg: kgOut,
      /** On hand − reserved, never below zero; zero for a quarantined lot. */
      availableKg: kgOut,
      shortKg: kgOut,
    }),
  ),
}).meta({ id: 'BlendAvailability' });
