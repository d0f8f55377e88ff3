import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestOrg } from '../../testing/harness.js';

import { createOrder, makeCustomer, roastLot } from '../orders/testing.js';
import { buildChain, insertEdges, makeProducer, type Chain } from './testing.js';
import { importLot } from '../inventory/green/testing.js';
import { assertProblem } from '../../testing/problems.js';

const server = await startTestServer();
const org = await server.createOrg();
const chain: Chain = await buildChain(org);

const trace = async (direction: 'Backward' | 'Forward', kind: string, id: string, caller: TestOrg = org) => {
  const res = await caller.call(`traceability.trace${direction}`, { kind, id }, { method: 'GET' });
  return res;
};
const nodeKeys = (body: any) => body.nodes.map((n: any) => `${n.kind}:${n.id}`).sort();

test('traceForward from a green lot finds every customer who received any of it, through a split and a merge', async () => {
  const fromEthiopia = await trace('Forward', 'green_lot', chain.ethiopia.id);
  assert.equal(fromEthiopia.status, 200, JSON.stringify(fromEthiopia.body));
  assert.deepEqual(fromEthiopia.body.customers.map((c: any) => [c.name, c.orderLineIds]), [
    ['Café Nord', [chain.nordShipment.lineId]],
    ['Rösterei Süd', [chain.suedShipment.lineId]],
  ]);
  assert.deepEqual(nodeKeys(fromEthiopia.body), [
    `green_lot:${chain.blendBase.id}`, `green_lot:${chain.ethiopia.id}`,
    `order_line:${chain.nordShipment.lineId}`, `order_line:${chain.suedShipment.lineId}`,
    `roast_batch:${chain.firstRoast.batchId}`, `roast_batch:${chain.secondRoast.batchId}`,
    `roasted_lot:${chain.firstRoast.roastedLotId}`, `roasted_lot:${chain.secondRoast.roastedLotId}`,
  ].sort());
  assert.deepEqual(fromEthiopia.body.start, { kind: 'green_lot', id: chain.ethiopia.id, depth: 0, label: `${chain.ethiopia.lotCode} (Ethiopia Gerba)` });
  assert.equal(fromEthiopia.body.depthLimitReached, false);
  // One step per node the coffee went on from, from the start outwards; the split sends it two ways.
  assert.deepEqual(fromEthiopia.body.steps, [
    `Green lot ${chain.ethiopia.lotCode} (Ethiopia Gerba) -> green lot ${chain.blendBase.lotCode} (Gerba Huila base), roast batch ${batchNumberOf(chain.firstRoast)}`,
    `Green lot ${chain.blendBase.lotCode} (Gerba Huila base) -> roast batch ${batchNumberOf(chain.secondRoast)}`,
    `Roast batch ${batchNumberOf(chain.firstRoast)} -> roasted lot ${chain.firstRoast.lotCode}`,
    `Roast batch ${batchNumberOf(chain.secondRoast)} -> roasted lot ${chain.secondRoast.lotCode}`,
    `Roasted lot ${chain.firstRoast.lotCode} -> order ${chain.nordShipment.order.orderNumber} line 1 (customer Café Nord)`,
    `Roasted lot ${chain.secondRoast.lotCode} -> order ${chain.suedShipment.order.orderNumber} line 1 (customer Rösterei Süd)`,
  ]);

  // Colombian coffee only entered the merged lot, so only Rösterei Süd received any of it; the same from its producer.
  const fromColombia = await trace('Forward', 'green_lot', chain.colombia.id);
  assert.deepEqual(fromColombia.body.customers.map((c: any) => c.name), ['Rösterei Süd']);
  const fromHuila = await trace('Forward', 'producer', chain.huila.id);
  assert.deepEqual(fromHuila.body.customers.map((c: any) => c.name), ['Rösterei Süd']);
  assert.equal(fromHuila.body.steps.length, 5);
  assert.equal(fromHuila.body.steps[0], `Producer Finca La Esperanza -> green lot ${chain.colombia.lotCode} (Colombia Huila)`);
  assert.equal(fromHuila.body.steps[4], `Roasted lot ${chain.secondRoast.lotCode} -> order ${chain.suedShipment.order.orderNumber} line 1 (customer Rösterei Süd)`);
});

test('traceBackward from an order line walks up to every producer, with the weights that flowed', async () => {
  const res = await trace('Backward', 'order_line', chain.suedShipment.lineId);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const { start, nodes, edges, steps, customers } = res.body;
  assert.deepEqual(start, {
    kind: 'order_line', id: chain.suedShipment.lineId, depth: 0, label: `${chain.suedShipment.order.orderNumber} line 1`,
    orderId: chain.suedShipment.order.id, customerId: chain.sued.id,
  });
  assert.deepEqual(customers, [{ id: chain.sued.id, code: chain.sued.code, name: 'Rösterei Süd', orderLineIds: [chain.suedShipment.lineId] }]);
  assert.deepEqual(nodes.map((n: any) => [n.kind, n.depth]).sort(), [
    ['green_lot', 3], ['green_lot', 4], ['green_lot', 4], ['order_line', 0], ['producer', 5], ['producer', 5], ['roast_batch', 2], ['roasted_lot', 1],
  ].sort());
  // Edges name their ends by id, each of them a node of the trace.
  const ids = new Set(nodes.map((n: any) => n.id));
  assert.ok(edges.every((e: any) => ids.has(e.from) && ids.has(e.to)), 'every edge names nodes of the trace');
  assert.ok(edges.every((e: any) => !Number.isNaN(Date.parse(e.createdAt)) && e.createdAt.endsWith('Z')), 'every edge has a UTC ISO createdAt');
  const weight = (from: string, to: string) => edges.find((e: any) => e.from === from && e.to === to)?.weightKg;
  assert.equal(weight(chain.secondRoast.roastedLotId, chain.suedShipment.lineId), '6.000');
  assert.equal(weight(chain.secondRoast.batchId, chain.secondRoast.roastedLotId), '8.000');
  assert.equal(weight(chain.blendBase.id, chain.secondRoast.batchId), '10.000');
  assert.equal(weight(chain.ethiopia.id, chain.blendBase.id), '30.000');
  assert.equal(weight(chain.colombia.id, chain.blendBase.id), '60.000');
  assert.equal(edges.length, 7);
  // The shipment's edges carry its fulfilment as their group; an edge recorded alone (a producer's) has none.
  assert.equal(edges.find((e: any) => e.to === chain.suedShipment.lineId).groupId, chain.suedShipment.fulfillmentId);
  assert.ok(!('groupId' in edges.find((e: any) => e.to === chain.ethiopia.id)), 'the producer edge, recorded alone, has no groupId');
  // One step per node the coffee came together in, origins first; the merge names both its sources.
  assert.deepEqual(steps, [
    `Producer Gerba Cooperative -> green lot ${chain.ethiopia.lotCode} (Ethiopia Gerba)`,
    `Producer Finca La Esperanza -> green lot ${chain.colombia.lotCode} (Colombia Huila)`,
    `Green lot ${chain.ethiopia.lotCode} (Ethiopia Gerba) + green lot ${chain.colombia.lotCode} (Colombia Huila) -> green lot ${chain.blendBase.lotCode} (Gerba Huila base)`,
    `Green lot ${chain.blendBase.lotCode} (Gerba Huila base) -> roast batch ${batchNumberOf(chain.secondRoast)}`,
    `Roast batch ${batchNumberOf(chain.secondRoast)} -> roasted lot ${chain.secondRoast.lotCode}`,
    `Roasted lot ${chain.secondRoast.lotCode} -> order ${chain.suedShipment.order.orderNumber} line 1 (customer Rösterei Süd)`,
  ]);
  // GET and POST answer the same.
  assert.deepEqual((await org.call('traceability.traceBackward', { kind: 'order_line', id: chain.suedShipment.lineId })).body, res.body);
});

test('traces follow blending and packing, which are recorded as lineage edges', async () => {
  // Two roasted lots blended into a blend lot, packed as a product batch, shipped on an order line.
  const customer = await makeCustomer(org, { name: 'Espresso Bar Ost' });
  const order = await createOrder(org, { customerId: customer.id, lines: [{ roastedLotId: chain.firstRoast.roastedLotId, quantityKg: '2', unitPrice: '30' }] });
  const blendLot = 'bl_01blend0000000000000000000';
  const productBatch = 'pb_01pack00000000000000000000';
  await insertEdges(server.owner, org.id, [
    ['roasted_lot', chain.firstRoast.roastedLotId, 'blend_lot', blendLot, '1.200'],
    ['roasted_lot', chain.secondRoast.roastedLotId, 'blend_lot', blendLot, '0.800'],
    ['blend_lot', blendLot, 'product_batch', productBatch, '2.000'],
    ['product_batch', productBatch, 'order_line', order.lines[0].id, '2.000'],
  ]);
  const back = await trace('Backward', 'order_line', order.lines[0].id);
  assert.equal(back.status, 200);
  const kinds = new Set(back.body.nodes.map((n: any) => n.kind));
  assert.deepEqual([...kinds].sort(), ['blend_lot', 'green_lot', 'order_line', 'producer', 'product_batch', 'roast_batch', 'roasted_lot']);
  assert.deepEqual(back.body.nodes.filter((n: any) => n.kind === 'producer').map((n: any) => n.label).sort(), ['Finca La Esperanza', 'Gerba Cooperative']);
  // Neither the blend lot nor the product batch has a row to name it: they read as their ids.
  assert.deepEqual(back.body.steps.slice(-3), [
    `Roasted lot ${chain.firstRoast.lotCode} + roasted lot ${chain.secondRoast.lotCode} -> blend lot ${blendLot}`,
    `Blend lot ${blendLot} -> product batch ${productBatch}`,
    `Product batch ${productBatch} -> order ${order.orderNumber} line 1 (customer Espresso Bar Ost)`,
  ]);
  assert.ok(back.body.steps[0].startsWith('Producer '), `the first step starts at a producer: ${back.body.steps[0]}`);

  const forward = await trace('Forward', 'producer', chain.huila.id);
  assert.deepEqual(forward.body.customers.map((c: any) => c.name), ['Espresso Bar Ost', 'Rösterei Süd']);
  const fromPack = await trace('Backward', 'product_batch', productBatch);
  assert.equal(fromPack.status, 200);
  assert.equal(fromPack.body.start.label, null);
});

test('edges keep the names of their ends that never change; producers are named as they are now', async () => {
  // Every edge the operations recorded knows its ends, except producers (renamable). (The blend lots and product
  // batches above were written by hand, without rows.)
  const recorded = `('green_lot', 'roast_batch', 'roasted_lot', 'order_line')`;
  const unknown = await server.owner.query<{ kind: string }>(
    `select from_kind as kind from lineage_edges where org_id = $1 and from_known is null and from_kind in ${recorded}
     union all
     select to_kind from lineage_edges where org_id = $1 and to_known is null and to_kind in ${recorded}`,
    [org.id],
  );
  assert.deepEqual(unknown, []);
  const [{ knowing }] = await server.owner.query<{ knowing: number }>(
    `select count(*)::int as knowing from lineage_edges where org_id = $1 and to_known is not null and to_kind in ${recorded}`,
    [org.id],
  );
  assert.ok(knowing >= 8, `only ${knowing} edges know their downstream end`);

  const other = await server.createOrg();
  const producer = await makeProducer(other, { name: 'Old Name Cooperative' });
  const lot = await importLot(other, { producerId: producer.id, name: 'Renamed origin' });
  const renamed = await other.call('catalog.party.updateProducer', { id: producer.id, name: 'New Name Cooperative' });
  assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
  const back = await trace('Backward', 'green_lot', lot.id, other);
  assert.deepEqual(back.body.nodes.map((n: any) => n.label), [`${lot.lotCode} (Renamed origin)`, 'New Name Cooperative']);

  // An edge that knows nothing of its end (recorded before the end's row existed, or with triggers off): the
  // trace looks the row up.
  const merged = await importLot(other, { name: 'Merged in' });
  await server.owner.transaction(async (tx) => {
    await tx.query(`set local session_replication_role = replica`);
    await insertEdges(tx, other.id, [['green_lot', merged.id, 'green_lot', lot.id, '5.000']]);
  });
  const [{ known }] = await server.owner.query<{ known: string[] | null }>(
    `select from_known as known from lineage_edges where org_id = $1 and from_id = $2`,
    [other.id, merged.id],
  );
  assert.equal(known, null);
  const withMerged = await trace('Backward', 'green_lot', lot.id, other);
  assert.equal(withMerged.body.nodes.find((n: any) => n.id === merged.id).label, `${merged.lotCode} (Merged in)`);

  // What the edges copied cannot change afterwards.
  await assert.rejects(
    server.owner.query(`update green_lots set name = 'Rewritten' where org_id = $1 and id = $2`, [other.id, lot.id]),
    /lot_code and name cannot change once recorded/,
  );
  await assert.rejects(
    server.owner.query(`update roasted_lots set lot_code = 'R-X' where org_id = $1 and id = $2`, [org.id, chain.firstRoast.roastedLotId]),
    /lot_code cannot change once recorded/,
  );
});

test('a cycle in the lineage cannot loop the walk, and long chains stop at the depth limit', async () => {
  const other = await server.createOrg();
  const ids = Array.from({ length: 60 }, (_, i) => `pb_chain${String(i).padStart(4, '0')}`);
  await insertEdges(server.owner, other.id, ids.slice(1).map((id, i) => ['product_batch', ids[i], 'product_batch', id, '1.000'] as [string, string, string, string, string]));
  const long = await trace('Forward', 'product_batch', ids[0], other);
  assert.equal(long.status, 200, JSON.stringify(long.body));
  assert.equal(long.body.nodes.length, 51);
  assert.equal(long.body.depthLimit, 50);
  assert.equal(long.body.depthLimitReached, true);
  const exact = await trace('Forward', 'product_batch', ids[9], other);
  assert.equal(exact.body.nodes.length, 51);
  assert.equal(exact.body.depthLimitReached, false);

  await insertEdges(server.owner, other.id, [
    ['blend_lot', 'bl_a', 'blend_lot', 'bl_b', '1.000'],
    ['blend_lot', 'bl_b', 'blend_lot', 'bl_c', '1.000'],
    ['blend_lot', 'bl_c', 'blend_lot', 'bl_a', '1.000'],
  ]);
  const cycle = await trace('Backward', 'blend_lot', 'bl_a', other);
  assert.equal(cycle.status, 200);
  assert.deepEqual(nodeKeys(cycle.body), ['blend_lot:bl_a', 'blend_lot:bl_b', 'blend_lot:bl_c']);
  assert.equal(cycle.body.edges.length, 3);
  // The walk goes round to the limit, but every node it meets there was walked from at a lesser depth.
  assert.equal(cycle.body.depthLimitReached, false);
  assert.deepEqual(cycle.body.steps, ['Blend lot bl_a -> blend lot bl_b', 'Blend lot bl_b -> blend lot bl_c', 'Blend lot bl_c -> blend lot bl_a']);

  // Two ways of different length lead to pb_dc, so the walk reaches pb_dc → pb_dd at two depths: it is one
  // edge, listed once, and pb_dd is as near as its nearest way.
  await insertEdges(server.owner, other.id, [
    ['product_batch', 'pb_da', 'product_batch', 'pb_db', '1.000'],
    ['product_batch', 'pb_db', 'product_batch', 'pb_dc', '1.000'],
    ['product_batch', 'pb_da', 'product_batch', 'pb_dc', '1.000'],
    ['product_batch', 'pb_dc', 'product_batch', 'pb_dd', '1.000'],
  ]);
  const diamond = await trace('Forward', 'product_batch', 'pb_da', other);
  assert.equal(diamond.status, 200, JSON.stringify(diamond.body));
  assert.deepEqual(diamond.body.nodes.map((n: any) => [n.id, n.depth]), [['pb_da', 0], ['pb_db', 1], ['pb_dc', 1], ['pb_dd', 2]]);
  assert.deepEqual(diamond.body.edges.map((e: any) => [e.from, e.to]), [['pb_da', 'pb_db'], ['pb_da', 'pb_dc'], ['pb_db', 'pb_dc'], ['pb_dc', 'pb_dd']]);
  assert.deepEqual(diamond.body.steps, [
    'Product batch pb_da -> product batch pb_db, product batch pb_dc',
    'Product batch pb_db -> product batch pb_dc',
    'Product batch pb_dc -> product batch pb_dd',
  ]);
});

test('an unknown start, or another organization’s, is 404; bad kinds are 400', async () => {
  const stranger = await server.createOrg();
  for (const [kind, id] of [
    ['green_lot', chain.ethiopia.id],
    ['order_line', chain.nordShipment.lineId],
    ['producer', chain.gerba.id],
  ]) {
    assertProblem(await trace('Backward', kind, id, stranger), 404, 'not_found', 'id');
    assertProblem(await trace('Forward', kind, id, stranger), 404, 'not_found', 'id');
  }
  assertProblem(await trace('Forward', 'product_batch', 'pb_nowhere'), 404, 'not_found', 'id');
  // A lot of the wrong kind is not found either: kinds are part of the identity.
  assertProblem(await trace('Forward', 'roast_batch', chain.ethiopia.id), 404, 'not_found', 'id');
  assertProblem(await trace('Forward', 'customer', chain.nord.id), 400, 'invalid_input', 'kind');
  assertProblem(await org.call('traceability.traceForward', { kind: 'green_lot', id: chain.ethiopia.id, depth: 3 }), 400, 'invalid_input', 'depth');
  // A lot with no lineage at all is its own trace.
  const lonely = await roastLot(org, { kg: '1' });
  const alone = await trace('Forward', 'roasted_lot', lonely.roastedLotId);
  assert.equal(alone.status, 200);
  assert.deepEqual(alone.body.steps, [`Roasted lot ${lonely.lotCode}`]);
});

test('getRoastedLotTraceability answers roasted lot → roast batch → green lots → producers, with producer details', async () => {
  const res = await org.call('inventory.roast.getRoastedLotTraceability', { id: chain.secondRoast.roastedLotId }, { method: 'GET' });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const body = res.body;
  assert.equal(body.roastedLot.id, chain.secondRoast.roastedLotId);
  assert.equal(body.roastedLot.lotCode, chain.secondRoast.lotCode);
  assert.deepEqual(body.roastBatches.map((b: any) => [b.id, b.chargeWeightKg, b.dropWeightKg, b.weightLossPct]), [[chain.secondRoast.batchId, '10.000', '8.000', '20.00']]);
  assert.deepEqual(body.greenLots.map((g: any) => g.id).sort(), [chain.ethiopia.id, chain.colombia.id, chain.blendBase.id].sort());
  const gerba = body.producers.find((p: any) => p.id === chain.gerba.id);
  assert.deepEqual(
    { ...gerba },
    {
      id: chain.gerba.id, code: chain.gerba.code, name: 'Gerba Cooperative', kind: 'cooperative', country: 'ET', region: 'Sidama', subregion: 'Bensa',
      altitudeMinM: 1900, altitudeMaxM: 2200, latitude: 6.5604, longitude: 38.7386, varieties: ['74110', 'Heirloom'], processMethods: ['washed'], farmSizeHa: null,
    },
  );
  assert.deepEqual(body.producers.map((p: any) => p.name), ['Finca La Esperanza', 'Gerba Cooperative']);
  assert.equal(body.chain.steps.length, 5);
  assert.equal(body.chain.steps[2], `Green lot ${chain.ethiopia.lotCode} (Ethiopia Gerba) + green lot ${chain.colombia.lotCode} (Colombia Huila) -> green lot ${chain.blendBase.lotCode} (Gerba Huila base)`);
  assert.equal(body.chain.steps[4], `Roast batch ${batchNumberOf(chain.secondRoast)} -> roasted lot ${chain.secondRoast.lotCode}`);

  assertProblem(await org.call('inventory.roast.getRoastedLotTraceability', { id: 'rl_0000000000000000000000000a' }), 404, 'not_found', 'id');
  const stranger = await server.createOrg();
  assertProblem(await stranger.call('inventory.roast.getRoastedLotTraceability', { id: chain.secondRoast.roastedLotId }), 404, 'not_found', 'id');
});

function batchNumberOf(roast: { lotCode: string }): string {
  // A roast batch's output lot is coded R-<batchNumber>.
  return roast.lotCode.replace(/^R-/, '');
}
