import type { Queryable } from '../../../db/client.js';
import { defineOperation } from '../../../rpc/define.js';
import { conflict, notFound } from '../../../rpc/errors.js';
import { grams, kgString } from '../../../lib/grams.js';
import * as repo from './repository.js';
import { AdjustRoastedLotQuantity, ById, ListRoastedLots } from './schemas.js';

const module = 'inventory' as const;

export const roastedLotOperations = [
  defineOperation({
    name: 'inventory.roast.adjustRoastedLotQuantity',
    summary:
      'Append a ledger row changing a roasted lot (append-only; the on-hand figure moves in the same transaction). Only reason ' +
      'recount may take the lot below zero; anything else is refused with 409 insufficient_stock. shrinkage, write_off and ' +
      'sample_draw must be negative.',
    permission: 'inventory.roast.write',
    module,
    get: false,
    input: AdjustRoastedLotQuantity,
    emits: ['inventory.roast.lot_adjusted'],
    async handler(ctx, { id, deltaKg, reason, comment }) {
      const lot = (await repo.lockRoastedLot(ctx.tx, ctx.orgId, id)) ?? throwNotFound(id);
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
    summary:
      'A roasted lot: its form (loose, packaged, blended), the roast batch and green lot it came from, when it was roasted, its ' +
      'weight loss, opening and on-hand weight, and its whole ledger (transactions, oldest first).',
    permission: 'inventory.roast.read',
    module,
    get: true,
    input: ById,
    async handler(ctx, { id }) {
      return roastedLotWithLedger(ctx.tx, ctx.orgId, id);
    },
  }),

  defineOperation({
    name: 'inventory.roast.listRoastedLots',
    summary:
      'Roasted stock, freshest first (most recently roasted first). Filters: form, roastBatchId, greenLotId, profileId, locationId, ' +
      'hasStock, roastedFrom and roastedTo (days, UTC, inclusive), q (lot code).',
    permission: 'inventory.roast.read',
    module,
    get: true,
    input: ListRoastedLots,
    async handler(ctx, { filter, page }) {
      return repo.listRoastedLots(ctx.tx, ctx.orgId, filter, page);
    },
  }),
];

/** A roasted lot with its whole ledger, oldest first. */
async function roastedLotWithLedger(q: Queryable, orgId: string, id: string) {
  const lot = (await repo.findRoastedLot(q, orgId, id)) ?? throwNotFound(id);
  return { ...lot, transactions: await repo.listRoastedLedger(q, orgId, id) };
}

function throwNotFound(id: string): never {
  throw notFound('roasted lot', id);
}
