import assert from 'node:assert/strict';
import type { Queryable } from '../../db/client.js';
import { newId } from '../../lib/ids.js';
import type { TestOrg } from '../../testing/harness.js';
import { importLot } from '../inventory/green/testing.js';
import { confirmedOrder, makeCustomer, roastLot, unique, type RoastedLotFixture } from '../orders/testing.js';

/** Test fixtures for traceability, shared by its tests, its tenancy cases and the browser test. */

export async function makeProducer(org: TestOrg, input: Record<string, unknown> = {}): Promise<any> {
  const res = await org.call('catalog.party.createProducer', { name: 'Gerba Cooperative', code: unique('PR'), kind: 'cooperative', ...input });
  if (res.status !== 200) throw new Error(`createProducer: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Ships an order of one line drawing `kg` from the roasted lot to `customerId`: allocated, then fulfilled. */
export async function shipFromLot(org: TestOrg, line: Record<string, unknown>, customerId: string): Promise<{ order: any; lineId: string; fulfillmentId: string }> {
  const order = await confirmedOrder(org, [line], { customerId });
  const allocated = await org.call('orders.allocateOrder', { id: order.id });
  assert.equal(allocated.body.complete, true, JSON.stringify(allocated.body));
  const shipped = await org.call('orders.fulfillOrder', { id: order.id });
  assert.equal(shipped.status, 200, JSON.stringify(shipped.body));
  return { order: shipped.body.order, lineId: order.lines[0].id, fulfillmentId: shipped.body.fulfillment.id };
}

export interface Chain {
  gerba: any;
  huila: any;
  /** GL-1, Ethiopia Gerba, 100 kg from Gerba Cooperative. */
  ethiopia: any;
  /** GL-2, Colombia Huila, 60 kg from Finca La Esperanza. */
  colombia: any;
  /** 30 kg split off GL-1, into which GL-2 was then merged. */
  blendBase: any;
  /** Roasted from GL-1. */
  firstRoast: RoastedLotFixture;
  /** Roasted from the split-and-merged lot. */
  secondRoast: RoastedLotFixture;
  nord: any;
  sued: any;
  /** Café Nord's order line: 5 kg of the first roast. */
  nordShipment: { order: any; lineId: string; fulfillmentId: string };
  /** Rösterei Süd's order line: 6 kg of any roast of the split-and-merged lot. */
  suedShipment: { order: any; lineId: string; fulfillmentId: string };
}

/**
 * Coffee from two producers through a split and a merge, two roasts and two shipped orders, built with
 * the service's own operations only:
 *
 *   Gerba Cooperative → GL-1 ─┬─ roast → R1 → Café Nord
 *                             └─ split → GL-1B ─ roast → R2 → Rösterei Süd
 *   Finca La Esperanza → GL-2 ── merge ──┘
 */
export async function buildChain(org: TestOrg): Promise<Chain> {
  const gerba = await makeProducer(org, {
    name: 'Gerba Cooperative', kind: 'cooperative', country: 'ET', region: 'Sidama', subregion: 'Bensa',
    altitudeMinM: 1900, altitudeMaxM: 2200, latitude: 6.5604, longitude: 38.7386, varieties: ['74110', 'Heirloom'], processMethods: ['washed'],
  });
  const huila = await makeProducer(org, { name: 'Finca La Esperanza', kind: 'farm', country: 'CO', region: 'Huila', varieties: ['Caturra'] });
  const ethiopia = await importLot(org, { lotCode: unique('GL-1'), name: 'Ethiopia Gerba', weightKg: '100', producerId: gerba.id, processMethod: 'washed', varieties: ['74110'], harvestYear: 2024 });
  const colombia = await importLot(org, { lotCode: unique('GL-2'), name: 'Colombia Huila', weightKg: '60', producerId: huila.id });
  const split = await org.call('inventory.green.splitGreenLot', { id: ethiopia.id, weightKg: '30', newLotCode: unique('GL-1B'), newName: 'Gerba Huila base' });
  assert.equal(split.status, 200, JSON.stringify(split.body));
  const blendBase = split.body.child;
  const merge = await org.call('inventory.green.mergeGreenLots', { targetId: blendBase.id, sourceIds: [colombia.id] });
  assert.equal(merge.status, 200, JSON.stringify(merge.body));
  const firstRoast = await roastLot(org, { kg: '10', greenLotId: ethiopia.id });
  const secondRoast = await roastLot(org, { kg: '8', greenLotId: blendBase.id });
  const nord = await makeCustomer(org, { name: 'Café Nord' });
  const sued = await makeCustomer(org, { name: 'Rösterei Süd' });
  const nordShipment = await shipFromLot(org, { roastedLotId: firstRoast.roastedLotId, quantityKg: '5' }, nord.id);
  const suedShipment = await shipFromLot(org, { greenLotId: blendBase.id, quantityKg: '6' }, sued.id);
  return { gerba, huila, ethiopia, colombia, blendBase, firstRoast, secondRoast, nord, sued, nordShipment, suedShipment };
}

let edgesWritten = 0;

/**
 * Lineage of shapes no operation makes (cycles, long chains; blends and packings as orders.fulfillOrder records
 * them are built through it in origin.test.ts): written as the owner, exactly as the operations write edges. Their ids sort in the order written (a trace lists edges
 * of one depth by id): ids made in one millisecond by newId would sort at random.
 */
export async function insertEdges(owner: Queryable, orgId: string, edges: [string, string, string, string, string | null][]): Promise<void> {
  for (const [fromKind, fromId, toKind, toId, weightKg] of edges) {
    await owner.query(
      `insert into lineage_edges (org_id, id, from_kind, from_id, to_kind, to_id, weight_kg) values ($1, $2, $3, $4, $5, $6, $7)`,
      [orgId, `lin_${String(++edgesWritten).padStart(10, '0')}${newId('').slice(11)}`, fromKind, fromId, toKind, toId, weightKg],
    );
  }
}
