import type { Queryable } from '../../db/client.js';
import * as party from '../catalog/party/service.js';
import * as green from '../inventory/green/service.js';
import * as lineage from '../lineage/service.js';
import * as orders from '../orders/service.js';
import * as roasting from '../production/roast/service.js';
import * as cupping from '../quality/cupping/service.js';
import type { ChainCupScoreOutput, ChainGreenLotOutput, ChainProducerOutput, ChainRoastBatchOutput } from './schemas.js';

/**
 * What traceability learns from the modules that own the records of a roasted lot's chain, each through
 * its service: the records behind a trace's nodes, and whether an order line or a shipment belongs to the
 * chain.
 */

export interface ChainDetails {
  roastBatches: ChainRoastBatchOutput[];
  greenLots: ChainGreenLotOutput[];
  producers: ChainProducerOutput[];
  cupScores: ChainCupScoreOutput[];
}

/**
 * The records behind a backward trace's nodes: roast batches, green lots (their coffee facts, never their
 * cost) and producers (those the lineage names and those the green lots name).
 */
export async function chainDetails(
  q: Queryable,
  orgId: string,
  ids: { roastedLot: string; roastBatches: string[]; greenLots: string[]; producers: string[] },
): Promise<ChainDetails> {
  // A chain (and the certificate freezing it) shows the coffee's facts; where things happened is EPCIS's.
  const roastBatches = (await roasting.describeBatches(q, orgId, ids.roastBatches)).map(({ locationId: _where, ...b }) => b);
  const greenLots = (await green.describeLots(q, orgId, ids.greenLots)).map(({ enteredAtLocationId: _where, ...l }) => l);
  const producerIds = new Set(ids.producers);
  for (const lot of greenLots) if (lot.producerId !== null) producerIds.add(lot.producerId);
  const producers = await party.describeProducers(q, orgId, [...producerIds]);
  const cupScores = await latestCupScores(q, orgId, [
    { kind: 'roasted_lot', id: ids.roastedLot },
    ...roastBatches.map((b) => ({ kind: 'roast_batch' as const, id: b.id })),
    ...greenLots.map((g) => ({ kind: 'green_lot' as const, id: g.id })),
  ]);
  return { roastBatches, greenLots, producers, cupScores };
}

/** The latest published cupping of each record that has one, in the order asked. */
async function latestCupScores(q: Queryable, orgId: string, refs: { kind: ChainCupScoreOutput['kind']; id: string }[]): Promise<ChainCupScoreOutput[]> {
  const published = await cupping.publishedCupping(q, orgId, refs);
  return refs.flatMap((ref) => {
    const latest = published.get(`${ref.kind}:${ref.id}`)?.[0];
    return latest
      ? [{ ...ref, sessionNumber: latest.sessionNumber, meanScore: latest.meanScore, cupperCount: latest.cupperCount, finalizedAt: latest.finalizedAt }]
      : [];
  });
}

export type OrderLineSummary = orders.OrderLineSummary;
export const findOrderLine = orders.findOrderLine;
export const findFulfillment = orders.findFulfillmentOfLot;

/** The line names the lot, or holds (or shipped) a claim on it, or lineage runs from the lot to it. */
export async function orderLineDrawsOnLot(q: Queryable, orgId: string, orderLineId: string, roastedLotId: string): Promise<boolean> {
  return (
    (await orders.orderLineClaimsLot(q, orgId, orderLineId, roastedLotId)) ||
    (await lineage.leadsDirectly(q, orgId, { kind: 'roasted_lot', id: roastedLotId }, { kind: 'order_line', id: orderLineId }))
  );
}
