import type { Queryable } from '../../../db/client.js';
import { defineOperation } from '../../../rpc/define.js';
import { conflict, throwNotFound } from '../../../rpc/errors.js';
import { grams, kgString } from '../../../lib/grams.js';
import { pageOut } from '../../../rpc/outputs.js';
import * as repo from './repository.js';
import { AdjustRoastedLotQuantity, ById, ListRoastedLots, RoastedLot, RoastedLotChange, RoastedLotDetail } from './schemas.js';
import { roastedLotAdjusted } from './events.js';
import { publishedCupping } from '../../quality/cupping/service.js';
import { roastedLotCosts } from './cost.js';

const feature = 'inventory' as const;

export const roastedLotOperations = [
  defineOperation({
    name: 'inventory.roast.adjustRoastedLotQuantity',
    summary: 'Change a roasted lot’s stock with a ledger row.',
    description:
      'The ledger is append-only; the on-hand figure moves in the same transaction. Only reason `recount` may take the lot ' +
      'below zero; anything else is refused with 409 `insufficient_stock`. `shrinkage`, `write_off` and `sample_draw` must be ' +
      'negative.',
    permission: 'inventory.roast.write',
    feature,
    get: false,
    input: AdjustRoastedLotQuantity,
    output: RoastedLotChange,
    errors: ['not_found', 'insufficient_stock', 'concurrent_update'],
    emits: [roastedLotAdjusted],
    async handler(ctx, { id, deltaKg, reason, comment }) {
      const lot = (await repo.lockRoastedLot(ctx.tx, ctx.orgId, id)) ?? throwNotFound('roasted lot', id);
      if (reason !== 'recount' && lot.onHand + grams(deltaKg) < 0n) {
        throw conflict('insufficient_stock', `Roasted lot ${lot.lotCode} holds ${kgString(lot.onHand)} kg; only a recount may take it below zero.`, {
          onHandKg: kgString(lot.onHand),
          errors: [{ path: 'deltaKg', message: 'more than the stock allows' }],
        });
      }
      const transaction = await repo.appendRoastedLedger(ctx.tx, ctx.orgId, ctx.principal.credentialId, { lotId: id, kind: reason, deltaKg, comment });
      const updated = (await repo.findRoastedLot(ctx.tx, ctx.orgId, id))!;
      await ctx.emit('inventory.roast.lot_adjusted', { lot: updated, transactions: [transaction] });
      return { lot: updated, transactions: [transaction] };
    },
  }),

  defineOperation({
    name: 'inventory.roast.getRoastedLot',
    summary: 'A roasted lot with its whole ledger.',
    description:
      'Its form (loose, packaged, blended), the roast batch and green lot it came from, when it was roasted, its weight loss, ' +
      'best-before day and whether it is past it (`expired`), opening and on-hand weight, `cost` (green landed cost roasted ' +
      'into it / its roasted weight, per kg, with the green lots, the rule, and `missing` naming why when it cannot be costed), `transactions`, oldest first, and `cupping`: the latest finalized cupping ' +
      'of the lot or of its roast batch (null when neither was cupped). Another organization’s lot answers 404 ' +
      'like a missing one.',
    permission: 'inventory.roast.read',
    feature,
    get: true,
    input: ById,
    output: RoastedLotDetail,
    errors: ['not_found'],
    async handler(ctx, { id }) {
      return roastedLotWithLedger(ctx.tx, ctx.orgId, id);
    },
  }),

  defineOperation({
    name: 'inventory.roast.listRoastedLots',
    summary: 'Roasted stock, freshest first.',
    description:
      'Most recently roasted first; `expired` marks lots past their best-before day. Filters: `form`, `roastBatchId`, `greenLotId`, ' +
      '`profileId`, `locationId`, `hasStock` (on hand above zero), `expired`, `roastedFrom` and `roastedTo` (days, UTC, inclusive), `q` (case-insensitive search in the lot code).',
    permission: 'inventory.roast.read',
    feature,
    get: true,
    input: ListRoastedLots,
    output: pageOut(RoastedLot),
    errors: ['invalid_cursor'],
    async handler(ctx, { filter, page }) {
      return repo.listRoastedLots(ctx.tx, ctx.orgId, filter, page);
    },
  }),
];

/** A roasted lot with its whole ledger, oldest first. */
async function roastedLotWithLedger(q: Queryable, orgId: string, id: string) {
  const lot = (await repo.findRoastedLot(q, orgId, id)) ?? throwNotFound('roasted lot', id);
  const refs = [{ kind: 'roasted_lot' as const, id }, ...(lot.roastBatchId ? [{ kind: 'roast_batch' as const, id: lot.roastBatchId }] : [])];
  const cuppings = [...(await publishedCupping(q, orgId, refs)).values()].flat().sort((a, b) => (a.finalizedAt === b.finalizedAt ? b.sessionId.localeCompare(a.sessionId) : a.finalizedAt < b.finalizedAt ? 1 : -1));
  const cost = await roastedLotCosts(q, orgId, [lot]);
  return { ...lot, cost: cost.get(id)!, transactions: await repo.listRoastedLedger(q, orgId, id), cupping: cuppings[0] ?? null };
}

