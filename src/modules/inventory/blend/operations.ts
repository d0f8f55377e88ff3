import { defineOperation } from '../../../rpc/define.js';
import { notFound, throwNotFound } from '../../../rpc/errors.js';
import { grams, kgString } from '../../../lib/grams.js';
import { missingLotIds } from '../green/service.js';
import * as recipes from './recipes.js';
import * as repo from './repository.js';
import { pageOut } from '../../../rpc/outputs.js';
import { Blend, BlendAvailability, ById, CreateBlend, DEFAULT_PRE_ROAST_LOSS_PCT, ListBlends, ValidateBlendAvailability } from './schemas.js';
import { blendCreated } from './events.js';

const feature = 'inventory' as const;

export const blendOperations = [
  defineOperation({
    name: 'inventory.blend.createBlend',
    summary: 'Store a blend recipe: its components and their target ratios.',
    description:
      '`components` [{ greenLotId, ratioPct }]: ratios have at most 2 decimals and add up to exactly 100 (400 naming `components`); a lot ' +
      'named twice is 400, a lot not in this organization 404, both naming `components[i].greenLotId`. Recipes are never changed afterwards. ' +
      '`targetWeightLossPct` (0–50) defaults to 15 for pre_roast blends. Post-roast components name green lots until roasted lots exist. ' +
      'Codes are unique per organization (409 `duplicate`, naming `code`).',
    permission: 'inventory.blend.write',
    feature,
    get: false,
    input: CreateBlend,
    output: Blend,
    errors: ['not_found', 'duplicate'],
    emits: [blendCreated],
    async handler(ctx, input) {
      const missing = new Set(await missingLotIds(ctx.tx, ctx.orgId, input.components.map((c) => c.greenLotId)));
      input.components.forEach((c, i) => {
        if (missing.has(c.greenLotId)) throw notFound('green lot', c.greenLotId, `components[${i}].greenLotId`);
      });
      const targetWeightLossPct = input.targetWeightLossPct ?? (input.blendType === 'pre_roast' ? DEFAULT_PRE_ROAST_LOSS_PCT : null);
      const id = await repo.insertBlend(ctx.tx, ctx.orgId, { ...input, targetWeightLossPct });
      const blend = (await recipes.findBlend(ctx.tx, ctx.orgId, id))!;
      await ctx.emit('inventory.blend.created', { blend });
      return blend;
    },
  }),

  defineOperation({
    name: 'inventory.blend.getBlend',
    summary: 'A blend recipe and its components.',
    description: 'Another organization’s blend answers 404 exactly like a missing one.',
    permission: 'inventory.blend.read',
    feature,
    get: true,
    input: ById,
    output: Blend,
    errors: ['not_found'],
    async handler(ctx, { id }) {
      return (await recipes.findBlend(ctx.tx, ctx.orgId, id)) ?? throwNotFound('blend', id, 'id');
    },
  }),

  defineOperation({
    name: 'inventory.blend.listBlends',
    summary: 'Blend recipes with their components, oldest first.',
    description: 'Filters: `blendType`, `roastLevel`, `isDecaf`, `q` (case-insensitive search in name and code).',
    permission: 'inventory.blend.read',
    feature,
    get: true,
    input: ListBlends,
    output: pageOut(Blend),
    errors: ['invalid_cursor'],
    async handler(ctx, { filter, page }) {
      return recipes.listBlends(ctx.tx, ctx.orgId, filter, page);
    },
  }),

  defineOperation({
    name: 'inventory.blend.validateBlendAvailability',
    summary: 'Whether requestedKg of the blend can be made from current stock, with the shortfall per component.',
    description:
      'Per component: `neededKg` (pre_roast: requested × ratio / (1 − loss), grossed up for roast loss; post_roast: requested × ratio; ' +
      'rounded up to the gram), `availableKg` (on hand − reserved, never below zero; 0 for a quarantined lot) and `shortKg`. ' +
      'Reads only: nothing is reserved. An unknown blend is 404 naming `blendId`.',
    permission: 'inventory.blend.read',
    feature,
    get: false,
    input: ValidateBlendAvailability,
    output: BlendAvailability,
    errors: ['not_found'],
    async handler(ctx, { blendId, requestedKg }) {
      const blend = (await recipes.findBlend(ctx.tx, ctx.orgId, blendId)) ?? throwNotFound('blend', blendId, 'blendId');
      const components = await recipes.componentAvailability(ctx.tx, ctx.orgId, blendId, requestedKg);
      const sum = (pick: (c: recipes.ComponentAvailability) => string) => kgString(components.reduce((total, c) => total + grams(pick(c)), 0n));
      const totalShortKg = sum((c) => c.shortKg);
      return {
        blendId,
        blendType: blend.blendType,
        requestedKg: kgString(grams(requestedKg)),
        targetWeightLossPct: blend.targetWeightLossPct,
        grossedUpForRoastLoss: blend.blendType === 'pre_roast',
        available: grams(totalShortKg) === 0n,
        totalNeededKg: sum((c) => c.neededKg),
        totalShortKg,
        components,
      };
    },
  }),
];

