import type { Queryable } from '../../../db/client.js';
import { newId } from '../../../lib/ids.js';
import { defineOperation } from '../../../rpc/define.js';
import { conflict, invalidInput, throwNotFound } from '../../../rpc/errors.js';
import { pageOut } from '../../../rpc/outputs.js';
import { grams, kgString } from '../../../lib/grams.js';
import * as lineageService from '../../lineage/service.js';
import * as repo from './repository.js';
import { importPriceComponent, largestHolding } from './service.js';
import { publishedCupping } from '../../quality/cupping/service.js';
import {
  AdjustGreenLotQuantity,
  ById,
  ByGreenLotId,
  GreenLot,
  GreenLotBalance,
  GreenLotChange,
  GreenLotDetail,
  GreenLotLandedCost,
  GreenLotMerge,
  GreenLotSplit,
  GreenLotTransaction,
  GreenLotTransfer,
  ImportGreenLot,
  ListGreenLotTransactions,
  ListGreenLots,
  MergeGreenLots,
  ReserveGreenLot,
  SetGreenLotCostComponents,
  SplitGreenLot,
  TransferGreenLot,
} from './schemas.js';
import {
  costComponentsSet,
  lotAdjusted,
  lotImported,
  lotReserved,
  lotSplit,
  lotTransferred,
  lotsMerged,
  reservationReleased,
} from './events.js';

const feature = 'inventory' as const;

export const greenOperations = [
  defineOperation({
    name: 'inventory.green.importGreenLot',
    summary: 'Create a green lot with its opening weight.',
    description:
      'The lot is created empty and its weight is booked as a `receive` ledger row, at `locationId` or, without one, on the ' +
      'unassigned balance until transferred. An archived location cannot receive coffee (409 `location_archived`). A ' +
      '`producerId` also records the producer → lot lineage edge. Lot codes are unique per organization (409 `duplicate`); ' +
      '`unitCost` (per kilogram) needs a `currency` and becomes the lot’s landed-cost `price` component (per_kg, version 1), ' +
      'as a shipment receipt’s contract price does; `state` defaults to `green`.',
    permission: 'inventory.green.write',
    feature,
    get: false,
    input: ImportGreenLot,
    output: GreenLotChange,
    errors: ['not_found', 'duplicate', 'location_archived'],
    emits: [lotImported],
    async handler(ctx, { weightKg, locationId, ...fields }) {
      if (locationId !== undefined) {
        const { locations } = await repo.readStock(ctx.tx, ctx.orgId, [], [locationId]);
        requireLocation(locations, locationId, 'locationId', { receiving: true });
      }
      const lotId = await repo.insertLot(ctx.tx, ctx.orgId, fields);
      // Before the ledger row, so the lot the ledger write answers already carries its rollup.
      if (fields.unitCost !== undefined) {
        await repo.replaceCostComponents(ctx.tx, ctx.orgId, lotId, [importPriceComponent(fields.unitCost, fields.currency!)], weightKg);
      }
      const { transactions, lots } = await repo.appendLedger(ctx.tx, ctx.orgId, ctx.principal.credentialId, [
        { lotId, kind: 'receive', locationId: locationId ?? null, deltaKg: weightKg, comment: 'opening weight' },
      ]);
      const lineage = fields.producerId
        ? await lineageService.recordEdges(ctx.tx, ctx.orgId, [{ fromKind: 'producer', fromId: fields.producerId, toKind: 'green_lot', toId: lotId, weightKg }])
        : [];
      const lot = lots.get(lotId)!;
      await ctx.emit('inventory.green.lot_imported', { lot, transactions, lineage });
      return { lot, transactions };
    },
  }),

  defineOperation({
    name: 'inventory.green.getGreenLot',
    summary: 'A green lot with its totals, where it is held and its landed cost.',
    description:
      'Totals: on hand, reserved, and available = on hand − reserved. `balances` lists each location holding the lot ' +
      '(locationId null: not placed anywhere yet); `landedCost` is the rollup (null until components were set) and ' +
      '`costComponents` its current components; `cupping` the latest finalized cupping of the lot (mean, spread, cupper count), ' +
      'null when never cupped. Another organization’s lot answers 404 like a missing one.',
    permission: 'inventory.green.read',
    feature,
    get: true,
    input: ById,
    output: GreenLotDetail,
    errors: ['not_found'],
    async handler(ctx, { id }) {
      const lot = (await repo.findLotDetail(ctx.tx, ctx.orgId, id)) ?? throwLotNotFound(id);
      const cuppings = await publishedCupping(ctx.tx, ctx.orgId, [{ kind: 'green_lot', id }]);
      return { ...lot, cupping: cuppings.get(`green_lot:${id}`)?.[0] ?? null };
    },
  }),

  defineOperation({
    name: 'inventory.green.listGreenLots',
    summary: 'Green lots, oldest first.',
    description:
      'Filters: `state`, `locationId` (lots holding stock there), `producerId`, `partnerId`, `quarantined`, `hasStock` ' +
      '(on hand above zero), `belowMinimum` (on hand below `minWeightKg`), `q` (case-insensitive search in lot code and name). ' +
      'Items carry no balances; getGreenLot or listGreenLotBalances tell where a lot is held.',
    permission: 'inventory.green.read',
    feature,
    get: true,
    input: ListGreenLots,
    output: pageOut(GreenLot),
    errors: ['invalid_cursor'],
    async handler(ctx, { filter, page }) {
      return repo.listLots(ctx.tx, ctx.orgId, filter, page);
    },
  }),

  defineOperation({
    name: 'inventory.green.listGreenLotBalances',
    summary: 'Where the lot is held.',
    description:
      'Each location with a non-zero balance, in one page (`nextCursor` is always null); `locationId` null is coffee not ' +
      'placed anywhere yet. A balance is negative only after a recount.',
    permission: 'inventory.green.read',
    feature,
    get: true,
    input: ByGreenLotId,
    output: pageOut(GreenLotBalance),
    errors: ['not_found'],
    async handler(ctx, { greenLotId }) {
      return { items: (await lotWithBalances(ctx.tx, ctx.orgId, greenLotId, 'greenLotId')).balances, nextCursor: null };
    },
  }),

  defineOperation({
    name: 'inventory.green.listGreenLotTransactions',
    summary: "The lot's ledger, oldest first.",
    description:
      'Every stock and reservation change with its kind, location, credential and comment, in `seq` order. Rows of one ' +
      'movement (a transfer’s two legs, a split, a merge) share `groupId`. The ledger is append-only.',
    permission: 'inventory.green.read',
    feature,
    get: true,
    input: ListGreenLotTransactions,
    output: pageOut(GreenLotTransaction),
    errors: ['not_found', 'invalid_cursor'],
    async handler(ctx, { greenLotId, page }) {
      await requireLotExists(ctx.tx, ctx.orgId, greenLotId, 'greenLotId');
      return repo.listLedger(ctx.tx, ctx.orgId, greenLotId, page);
    },
  }),

  defineOperation({
    name: 'inventory.green.adjustGreenLotQuantity',
    summary: 'Change the lot’s stock at one location with a ledger row.',
    description:
      'Without `locationId` the lot’s only holding is used (400 naming `locationId` when it is held at several); null names the ' +
      'unassigned balance. Only reason `recount` may take the location or the lot below zero, or below what is reserved; ' +
      'anything else is refused with 409 `insufficient_stock`. `shrinkage`, `write_off` and `sample_draw` must be negative. ' +
      'Coffee may leave an archived location but not arrive at one (409 `location_archived`).',
    permission: 'inventory.green.write',
    feature,
    get: false,
    input: AdjustGreenLotQuantity,
    output: GreenLotChange,
    errors: ['not_found', 'location_archived', 'insufficient_stock', 'concurrent_update'],
    emits: [lotAdjusted],
    async handler(ctx, { id, deltaKg, reason, locationId, comment }) {
      const lot = await requireLot(ctx.tx, ctx.orgId, id);
      const delta = grams(deltaKg);
      const { balances, locations } = await repo.readStock(ctx.tx, ctx.orgId, [id], locationId ? [locationId] : []);
      if (locationId) requireLocation(locations, locationId, 'locationId', { receiving: delta > 0n });
      const at = locationId === undefined ? soleHolding(balances) : locationId;
      if (delta < 0n && reason !== 'recount') {
        const here = balances.find((b) => b.locationId === at)?.onHand ?? 0n;
        if (here + delta < 0n) {
          throw insufficientStock(`${describeLocation(at)} holds ${kgString(here)} kg of lot ${lot.lotCode}; only a recount may take it below zero.`, at, here);
        }
        if (lot.onHand + delta - lot.reserved < 0n) {
          throw insufficientStock(
            `Lot ${lot.lotCode} has ${kgString(lot.onHand - lot.reserved)} kg available (${kgString(lot.reserved)} kg reserved); ` +
              'only a recount may take it below that.',
            at,
            here,
          );
        }
      }
      const { transactions, lots } = await repo.appendLedger(ctx.tx, ctx.orgId, ctx.principal.credentialId, [
        { lotId: id, kind: reason, locationId: at, deltaKg, comment },
      ]);
      const result = { lot: lots.get(id)!, transactions };
      await ctx.emit('inventory.green.lot_adjusted', result);
      return result;
    },
  }),

  defineOperation({
    name: 'inventory.green.transferGreenLotToLocation',
    summary: 'Move weight of a lot from one location to another.',
    description:
      'Writes a `transfer_out` and a `transfer_in` row sharing a group id; the lot total is unchanged. null names the ' +
      'unassigned balance. 409 `insufficient_stock` when the source does not hold the weight; an archived location cannot ' +
      'receive coffee (409 `location_archived`).',
    permission: 'inventory.green.write',
    feature,
    get: false,
    input: TransferGreenLot,
    output: GreenLotTransfer,
    errors: ['not_found', 'location_archived', 'insufficient_stock', 'concurrent_update'],
    emits: [lotTransferred],
    async handler(ctx, { id, fromLocationId, toLocationId, weightKg, comment }) {
      const lot = await requireLot(ctx.tx, ctx.orgId, id);
      const named = [fromLocationId, toLocationId].filter((l): l is string => l !== null);
      const { balances, locations } = await repo.readStock(ctx.tx, ctx.orgId, [id], named);
      if (fromLocationId !== null) requireLocation(locations, fromLocationId, 'fromLocationId');
      if (toLocationId !== null) requireLocation(locations, toLocationId, 'toLocationId', { receiving: true });
      const here = balances.find((b) => b.locationId === fromLocationId)?.onHand ?? 0n;
      if (here < grams(weightKg)) {
        throw insufficientStock(`${describeLocation(fromLocationId)} holds ${kgString(here)} kg of lot ${lot.lotCode}.`, fromLocationId, here, 'weightKg');
      }
      const groupId = newId('grp');
      const { transactions, lots } = await repo.appendLedger(ctx.tx, ctx.orgId, ctx.principal.credentialId, [
        { lotId: id, kind: 'transfer_out', locationId: fromLocationId, deltaKg: `-${weightKg}`, groupId, comment },
        { lotId: id, kind: 'transfer_in', locationId: toLocationId, deltaKg: weightKg, groupId, comment },
      ]);
      const result = { lot: lots.get(id)!, groupId, transactions };
      await ctx.emit('inventory.green.lot_transferred', result);
      return result;
    },
  }),

  defineOperation({
    name: 'inventory.green.reserveGreenLot',
    summary: 'Promise weight of the lot (a reserve ledger row).',
    description:
      'Refused with 409 `lot_quarantined` for a quarantined lot and 409 `insufficient_stock` beyond what is available (on hand ' +
      '− reserved). Reserving moves no stock between locations.',
    permission: 'inventory.green.write',
    feature,
    get: false,
    input: ReserveGreenLot,
    output: GreenLotChange,
    errors: ['not_found', 'lot_quarantined', 'insufficient_stock', 'concurrent_update'],
    emits: [lotReserved],
    async handler(ctx, { id, weightKg, comment }) {
      const lot = await requireLot(ctx.tx, ctx.orgId, id);
      if (lot.quarantined) throw quarantined(lot, 'id');
      const available = lot.onHand - lot.reserved;
      if (grams(weightKg) > available) {
        throw conflict('insufficient_stock', `Lot ${lot.lotCode} has ${kgString(available)} kg available to reserve.`, {
          availableKg: kgString(available),
          errors: [{ path: 'weightKg', message: `at most ${kgString(available)} kg is available` }],
        });
      }
      const { transactions, lots } = await repo.appendLedger(ctx.tx, ctx.orgId, ctx.principal.credentialId, [
        { lotId: id, kind: 'reserve', locationId: null, deltaKg: '0', reservedDeltaKg: weightKg, comment },
      ]);
      const result = { lot: lots.get(id)!, transactions };
      await ctx.emit('inventory.green.lot_reserved', result);
      return result;
    },
  }),

  defineOperation({
    name: 'inventory.green.releaseGreenLotReservation',
    summary: 'Return reserved weight to available (a release ledger row).',
    description: 'Refused with 409 `insufficient_reservation` beyond what is reserved.',
    permission: 'inventory.green.write',
    feature,
    get: false,
    input: ReserveGreenLot,
    output: GreenLotChange,
    errors: ['not_found', 'insufficient_reservation', 'concurrent_update'],
    emits: [reservationReleased],
    async handler(ctx, { id, weightKg, comment }) {
      const lot = await requireLot(ctx.tx, ctx.orgId, id);
      if (grams(weightKg) > lot.reserved) {
        throw conflict('insufficient_reservation', `Lot ${lot.lotCode} has ${kgString(lot.reserved)} kg reserved.`, {
          reservedKg: kgString(lot.reserved),
          errors: [{ path: 'weightKg', message: `at most ${kgString(lot.reserved)} kg is reserved` }],
        });
      }
      const { transactions, lots } = await repo.appendLedger(ctx.tx, ctx.orgId, ctx.principal.credentialId, [
        { lotId: id, kind: 'release', locationId: null, deltaKg: '0', reservedDeltaKg: `-${weightKg}`, comment },
      ]);
      const result = { lot: lots.get(id)!, transactions };
      await ctx.emit('inventory.green.reservation_released', result);
      return result;
    },
  }),

  defineOperation({
    name: 'inventory.green.splitGreenLot',
    summary: 'Split weight off a lot into a new child lot.',
    description:
      'The child carries the parent’s provenance and landed cost per kg; `newName` defaults to the parent’s name with the new ' +
      'lot code appended, and `newLotCode` must be unused (409 `duplicate`). The weight must be available (not reserved; 409 ' +
      '`insufficient_stock`) and is taken from the one location holding the most, which must hold all of it (409 ' +
      '`stock_spread_across_locations` otherwise); it stays at that location. A quarantined lot cannot be split (409 ' +
      '`lot_quarantined`). Writes `split_out`/`split_in` rows sharing a group id and a parent → child lineage edge.',
    permission: 'inventory.green.write',
    feature,
    get: false,
    input: SplitGreenLot,
    output: GreenLotSplit,
    errors: ['not_found', 'duplicate', 'lot_quarantined', 'insufficient_stock', 'stock_spread_across_locations', 'concurrent_update'],
    emits: [lotSplit],
    async handler(ctx, { id, weightKg, newLotCode, newName, comment }) {
      const parent = await requireLot(ctx.tx, ctx.orgId, id);
      if (parent.quarantined) throw quarantined(parent, 'id');
      const weight = grams(weightKg);
      const available = parent.onHand - parent.reserved;
      if (weight > available) {
        throw insufficientStock(`Lot ${parent.lotCode} has ${kgString(available)} kg available to split off.`, undefined, available, 'weightKg');
      }
      const largest = largestHolding(await repo.balancesInGrams(ctx.tx, ctx.orgId, [id]));
      if (!largest || largest.onHand < weight) {
        throw conflict(
          'stock_spread_across_locations',
          `No single location holds ${weightKg} kg of lot ${parent.lotCode}; transfer the coffee to one location first.`,
          { errors: [{ path: 'weightKg', message: `the largest holding is ${kgString(largest?.onHand ?? 0n)} kg` }] },
        );
      }
      const childId = await insertUniqueLotCode(() => repo.insertChildLot(ctx.tx, ctx.orgId, id, newLotCode, newName));
      const inherited = await repo.costComponentsPerKg(ctx.tx, ctx.orgId, id);
      if (inherited.length > 0) {
        const described = inherited.map((c) => ({ ...c, description: c.description ?? `per kg of ${parent.lotCode}` }));
        await repo.replaceCostComponents(ctx.tx, ctx.orgId, childId, described, weightKg);
      }
      const groupId = newId('grp');
      const { transactions, lots } = await repo.appendLedger(ctx.tx, ctx.orgId, ctx.principal.credentialId, [
        { lotId: id, kind: 'split_out', locationId: largest.locationId, deltaKg: `-${weightKg}`, groupId, comment },
        { lotId: childId, kind: 'split_in', locationId: largest.locationId, deltaKg: weightKg, groupId, comment },
      ]);
      const lineage = await lineageService.recordEdges(ctx.tx, ctx.orgId, [
        { fromKind: 'green_lot', fromId: id, toKind: 'green_lot', toId: childId, weightKg, groupId },
      ]);
      const result = {
        parent: lots.get(id)!,
        child: lots.get(childId)!,
        groupId,
        transactions,
        lineage,
      };
      await ctx.emit('inventory.green.lot_split', result);
      return result;
    },
  }),

  defineOperation({
    name: 'inventory.green.mergeGreenLots',
    summary: 'Drain source lots into a target lot.',
    description:
      'Each source moves into the target location by location (`merge_out`/`merge_in` rows sharing one group id), with one ' +
      'source → target lineage edge per source. Lots must share their state (409 `state_mismatch`). Refused with 409 for ' +
      'quarantined lots (`lot_quarantined`), sources with reservations (`lot_reserved`), a negative balance ' +
      '(`negative_balance`) or nothing on hand (`lot_empty`); `errors` names the source. The target’s landed cost is left as it is.',
    permission: 'inventory.green.write',
    feature,
    get: false,
    input: MergeGreenLots,
    output: GreenLotMerge,
    errors: ['not_found', 'lot_quarantined', 'state_mismatch', 'lot_reserved', 'negative_balance', 'lot_empty', 'concurrent_update'],
    emits: [lotsMerged],
    async handler(ctx, { targetId, sourceIds, comment }) {
      const locked = await repo.lockLots(ctx.tx, ctx.orgId, [targetId, ...sourceIds]);
      const target = locked.get(targetId) ?? throwLotNotFound(targetId, 'targetId');
      const sources = sourceIds.map((sourceId, i) => locked.get(sourceId) ?? throwLotNotFound(sourceId, `sourceIds[${i}]`));
      if (target.quarantined) throw quarantined(target, 'targetId');
      const { balances } = await repo.readStock(ctx.tx, ctx.orgId, sourceIds);
      const groupId = newId('grp');
      const movements: repo.Movement[] = [];
      const edges: lineageService.NewLineageEdge[] = [];
      sources.forEach((source, i) => {
        const path = `sourceIds[${i}]`;
        if (source.quarantined) throw quarantined(source, path);
        if (source.state !== target.state) {
          throw conflict('state_mismatch', `Lot ${source.lotCode} is ${source.state} and cannot be merged into a ${target.state} lot.`, {
            errors: [{ path, message: `state ${source.state} differs from the target's ${target.state}` }],
          });
        }
        if (source.reserved > 0n) {
          throw conflict('lot_reserved', `Lot ${source.lotCode} has ${kgString(source.reserved)} kg reserved; release it before merging.`, {
            errors: [{ path, message: 'has reservations' }],
          });
        }
        const held = balances.filter((b) => b.lotId === source.id && b.onHand !== 0n);
        if (held.some((b) => b.onHand < 0n)) {
          throw conflict('negative_balance', `Lot ${source.lotCode} has a negative balance; recount it before merging.`, {
            errors: [{ path, message: 'has a negative balance' }],
          });
        }
        if (held.length === 0) {
          throw conflict('lot_empty', `Lot ${source.lotCode} holds no coffee to merge.`, { errors: [{ path, message: 'holds nothing' }] });
        }
        for (const b of held) {
          const kg = kgString(b.onHand);
          movements.push({ lotId: source.id, kind: 'merge_out', locationId: b.locationId, deltaKg: `-${kg}`, groupId, comment });
          movements.push({ lotId: targetId, kind: 'merge_in', locationId: b.locationId, deltaKg: kg, groupId, comment });
        }
        edges.push({ fromKind: 'green_lot', fromId: source.id, toKind: 'green_lot', toId: targetId, weightKg: kgString(source.onHand), groupId });
      });
      const { transactions, lots } = await repo.appendLedger(ctx.tx, ctx.orgId, ctx.principal.credentialId, movements);
      const lineage = await lineageService.recordEdges(ctx.tx, ctx.orgId, edges);
      const result = {
        target: lots.get(targetId)!,
        sources: sourceIds.map((sourceId) => lots.get(sourceId)!),
        groupId,
        transactions,
        lineage,
      };
      await ctx.emit('inventory.green.lots_merged', result);
      return result;
    },
  }),

  defineOperation({
    name: 'inventory.green.setGreenLotCostComponents',
    summary: 'Replace the lot’s landed-cost components and recompute the rollup.',
    description:
      'A new version; earlier ones are kept. The rollup sums into price, freight, duty, carry and other. All components share ' +
      'one currency (no FX; 400 naming the component otherwise). basis `total`: an amount for the lot; `per_kg`: per kilogram ' +
      'of the opening weight. perKg = total / opening weight, 4 decimals half-up. An empty list clears the cost.',
    permission: 'inventory.green.write',
    feature,
    get: false,
    input: SetGreenLotCostComponents,
    output: GreenLotLandedCost,
    errors: ['not_found', 'concurrent_update'],
    emits: [costComponentsSet],
    async handler(ctx, { greenLotId, components }) {
      const lot = await requireLot(ctx.tx, ctx.orgId, greenLotId, 'greenLotId');
      await repo.replaceCostComponents(ctx.tx, ctx.orgId, greenLotId, components, lot.openingKg);
      const result = landedCostOf((await repo.findLotDetail(ctx.tx, ctx.orgId, greenLotId))!);
      await ctx.emit('inventory.green.cost_components_set', result);
      return result;
    },
  }),

  defineOperation({
    name: 'inventory.green.getGreenLotLandedCost',
    summary: 'The lot’s landed-cost rollup and its current components.',
    description:
      'Currency, the five buckets, total, perKg (total / weightBasisKg, the lot’s opening weight) and the current components. ' +
      'A lot without components answers version 0 with zero buckets and perKg null.',
    permission: 'inventory.green.read',
    feature,
    get: true,
    input: ByGreenLotId,
    output: GreenLotLandedCost,
    errors: ['not_found'],
    async handler(ctx, { greenLotId }) {
      return landedCostOf((await repo.findLotDetail(ctx.tx, ctx.orgId, greenLotId)) ?? throwLotNotFound(greenLotId, 'greenLotId'));
    },
  }),
];

// ---------------------------------------------------------------------------------------------------


const throwLotNotFound = (id: string, path = 'id'): never => throwNotFound('green lot', id, path);

async function requireLot(q: Queryable, orgId: string, id: string, path = 'id'): Promise<repo.LockedLot> {
  return (await repo.lockLot(q, orgId, id)) ?? throwLotNotFound(id, path);
}

async function requireLotExists(q: Queryable, orgId: string, id: string, path: string): Promise<void> {
  if (!(await repo.findLot(q, orgId, id))) throwLotNotFound(id, path);
}

async function lotWithBalances(q: Queryable, orgId: string, id: string, path = 'id'): Promise<repo.GreenLotWithBalances> {
  return (await repo.findLotsWithBalances(q, orgId, [id])).get(id) ?? throwLotNotFound(id, path);
}

/** A location the caller named must exist in the organization; coffee may leave an archived location but never arrive at one. */
function requireLocation(locations: repo.StockView['locations'], id: string, path: string, options: { receiving?: boolean } = {}): void {
  const location = locations.get(id) ?? throwNotFound('location', id, path);
  if (options.receiving && location.archived) {
    throw conflict('location_archived', `Location ${id} is archived and cannot receive coffee.`, { errors: [{ path, message: 'archived' }] });
  }
}

/** The landed-cost answer: the rollup (version 0 with zero buckets while none was ever set) and its components. */
function landedCostOf(lot: repo.GreenLotDetail) {
  const rollup = lot.landedCost ?? {
    version: 0,
    currency: null,
    buckets: { price: '0.0000', freight: '0.0000', duty: '0.0000', carry: '0.0000', other: '0.0000' },
    total: '0.0000',
    perKg: null,
    weightBasisKg: lot.openingKg,
    updatedAt: null,
  };
  return { greenLotId: lot.id, ...rollup, components: lot.costComponents };
}

/** The new lot code of a split is the caller's choice, so a clash names newLotCode (not the column's lotCode). */
async function insertUniqueLotCode(insert: () => Promise<string>): Promise<string> {
  try {
    return await insert();
  } catch (error) {
    if ((error as { constraint?: string }).constraint === 'green_lots_org_id_lot_code_key') {
      throw conflict('duplicate', 'Another lot in this organization already has this lot code.', {
        errors: [{ path: 'newLotCode', message: 'already used in this organization' }],
      });
    }
    throw error;
  }
}

/**
 * The balance an adjustment without a locationId applies to: the one place the lot is held. With nothing
 * held anywhere, the only balance the lot ever had (or the unassigned one); several holdings are ambiguous.
 */
function soleHolding(balances: { locationId: string | null; onHand: bigint }[]): string | null {
  const held = balances.filter((b) => b.onHand !== 0n);
  const candidates = held.length > 0 ? held : balances;
  if (candidates.length === 0) return null;
  if (candidates.length === 1) return candidates[0].locationId;
  throw invalidInput(
    [{ path: 'locationId', message: 'the lot is held at several locations; name one (null for the unassigned balance)' }],
    'Name the location to adjust.',
  );
}

const describeLocation = (locationId: string | null) => (locationId === null ? 'The unassigned balance' : `Location ${locationId}`);

function insufficientStock(detail: string, locationId: string | null | undefined, heldGrams: bigint, path = 'deltaKg') {
  return conflict('insufficient_stock', detail, {
    ...(locationId !== undefined ? { locationId, onHandKg: kgString(heldGrams) } : { availableKg: kgString(heldGrams) }),
    errors: [{ path, message: 'more than the stock allows' }],
  });
}

function quarantined(lot: repo.LockedLot, path: string) {
  return conflict('lot_quarantined', `Lot ${lot.lotCode} is quarantined.`, { errors: [{ path, message: 'quarantined' }] });
}
