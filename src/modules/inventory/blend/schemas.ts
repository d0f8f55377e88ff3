import { z } from 'zod';
import { code, decimal, id, kg, name, page, strict } from '../../../rpc/schemas.js';
import { scaled } from '../../../lib/grams.js';

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
