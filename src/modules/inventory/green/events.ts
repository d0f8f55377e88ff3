import { z } from 'zod';
import { defineEvent } from '../../../events/define.js';
import { out } from '../../../rpc/outputs.js';
import { GreenLot, GreenLotLandedCost, GreenLotMerge, GreenLotSplit, GreenLotTransaction, GreenLotTransfer, GreenLotWithBalances, LineageEdge } from './schemas.js';

const change = out({ lot: GreenLotWithBalances, transactions: z.array(GreenLotTransaction) });

export const lotImported = defineEvent(
  'inventory.green.lot_imported',
  'A green lot was created with its opening weight (and, naming a producer, the producer → lot lineage edge).',
  change.extend({ lineage: z.array(LineageEdge) }),
);
export const lotAdjusted = defineEvent('inventory.green.lot_adjusted', 'A green lot’s stock was adjusted at one location.', change);
export const lotTransferred = defineEvent('inventory.green.lot_transferred', 'Green coffee moved between two locations of a lot.', GreenLotTransfer);
export const lotReserved = defineEvent('inventory.green.lot_reserved', 'Weight of a green lot was reserved.', change);
export const reservationReleased = defineEvent('inventory.green.reservation_released', 'Reserved weight of a green lot was returned to available.', change);
export const lotSplit = defineEvent('inventory.green.lot_split', 'Weight was split off a green lot into a new child lot.', GreenLotSplit);
export const lotsMerged = defineEvent('inventory.green.lots_merged', 'Green lots were drained into a target lot.', GreenLotMerge);
export const costComponentsSet = defineEvent(
  'inventory.green.cost_components_set',
  'A green lot’s landed-cost components were replaced (a new version) and its rollup recomputed.',
  GreenLotLandedCost,
);
export const lotQuarantined = defineEvent(
  'inventory.green.lot_quarantined',
  'A green lot was put in quarantine (e.g. by a failing grading): it cannot be reserved, split, merged or roasted until released.',
  out({ lot: GreenLot }),
);
export const lotReleased = defineEvent('inventory.green.lot_released', 'A green lot’s quarantine was released, with the reason, who and when.', out({ lot: GreenLot }));
