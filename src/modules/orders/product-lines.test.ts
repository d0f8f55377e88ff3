import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestOrg } from '../../testing/harness.js';
import { makeGreenLot } from '../inventory/green/testing.js';
import { makeProfile } from '../production/roast/testing.js';
import { confirmedOrder, createOrder, makeCustomer, refusedUnchanged, roastLot, unique } from './testing.js';

const server = await startTestServer();

const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000);

async function makeProduct(org: TestOrg, fields: Record<string, unknown>): Promise<any> {
  const res = await org.call('catalog.product.createProduct', { sku: unique('SKU'), name: 'Bag', format: 'whole_bean', ...fields });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

async function makeBlend(org: TestOrg, components: { greenLotId: string; ratioPct: string }[], roastLevel = 'dark'): Promise<any> {
  const res = await org.call('inventory.blend.createBlend', { name: 'House', code: unique('BL'), blendType: 'post_roast', roastLevel, components });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

const claimsOf = (order: any) => order.lines.map((l: any) => l.allocations.map((a: any) => [a.lotCode, a.quantityKg]));

test('a product names a roast profile or a blend and its roast level; the rule is checked and unknown ids are 404', async () => {
  const org = await server.createOrg();
  const other = await server.createOrg();
  const profile = await makeProfile(org);
  const blend = await makeBlend(org, [{ greenLotId: await makeGreenLot(org), ratioPct: '100' }], 'medium');
  const byProfile = await makeProduct(org, { profileId: profile.id, roastLevel: 'light' });
  assert.deepEqual([byProfile.profileId, byProfile.blendId, byProfile.roastLevel], [profile.id, null, 'light']);
  const byBlend = await makeProduct(org, { blendId: blend.id });
  assert.deepEqual([byBlend.profileId, byBlend.blendId, byBlend.roastLevel], [null, blend.id, 'medium'], 'a blend’s level when the product names none');

  const both = await org.call('catalog.product.createProduct', { sku: 'BOTH', name: 'x', format: 'bulk', profileId: profile.id, blendId: blend.id });
  assert.deepEqual([both.status, both.body.errors[0].path], [400, 'blendId']);
  const theirs = await makeProfile(other);
  const foreign = await org.call('catalog.product.createProduct', { sku: 'FOREIGN', name: 'x', format: 'bulk', profileId: theirs.id });
  assert.deepEqual([foreign.status, foreign.body.code, foreign.body.errors?.[0]?.path], [404, 'not_found', 'profileId']);
  const level = await org.call('catalog.product.createProduct', { sku: 'LEVEL', name: 'x', format: 'bulk', roastLevel: 'cinnamon' });
  assert.deepEqual([level.status, level.body.errors[0].path], [400, 'roastLevel']);

  // Update: switching from the profile to the blend needs the profile cleared.
  const switched = await org.call('catalog.product.updateProduct', { id: byProfile.id, blendId: blend.id });
  assert.deepEqual([switched.status, switched.body.errors?.[0]?.path], [400, 'blendId']);
  const cleared = await org.call('catalog.product.updateProduct', { id: byProfile.id, profileId: null, blendId: blend.id, roastLevel: null });
  assert.equal(cleared.status, 200, JSON.stringify(cleared.body));
  assert.deepEqual([cleared.body.profileId, cleared.body.blendId, cleared.body.roastLevel], [null, blend.id, null]);
});

test('a line naming a product by SKU in bags is converted through its net weight, priced per bag, and allocated FEFO from roasts with its profile', async () => {
  const org = await server.createOrg();
  const profile = await makeProfile(org);
  const otherProfile = await makeProfile(org);
  const older = await roastLot(org, { kg: '3', profileId: profile.id, roastedAt: daysAgo(10) });
  const newer = await roastLot(org, { kg: '5', profileId: profile.id, roastedAt: daysAgo(2) });
  const stale = await roastLot(org, { kg: '9', profileId: profile.id, roastedAt: daysAgo(100) });
  await roastLot(org, { kg: '50', profileId: otherProfile.id });
  await roastLot(org, { kg: '50' });
  const product = await makeProduct(org, { sku: 'ETH-250', netWeightKg: '0.250', profileId: profile.id, roastLevel: 'light', listPrice: '9', currency: 'EUR' });

  const order = await confirmedOrder(org, [{ productSku: 'ETH-250', quantityUnits: 40, unitPrice: '8.5' }]);
  const [line] = order.lines;
  assert.deepEqual(
    [line.productId, line.profileId, line.blendId, line.roastLevel, line.quantityUnits, line.quantityKg, line.lineTotal, line.greenLotId, line.roastedLotId],
    [product.id, profile.id, null, 'light', 40, '10.000', '340.0000', null, null],
  );

  const res = await org.call('orders.allocateOrder', { id: order.id });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(claimsOf(res.body.order), [[[older.lotCode, '3.000'], [newer.lotCode, '5.000']]], 'FEFO over the profile’s roasts; other profiles and expired lots are not used');
  assert.deepEqual(res.body.shortfalls.map((s: any) => [s.lineNumber, s.quantityKg, s.allocatedKg, s.shortfallKg, s.reason, s.expiredLots.map((l: any) => l.lotCode)]), [
    [1, '10.000', '8.000', '2.000', 'expired', [stale.lotCode]],
  ]);
  assert.equal(res.body.order.state, 'partially_allocated');
  // The margin of a product line keeps working off its claims.
  assert.equal(res.body.order.lines[0].margin.listPrice, '9.0000');
  assert.notEqual(res.body.order.lines[0].margin.missing, 'no_roasted_lot');

  // Demand counts the product line: the profile, its roast level, what is still open.
  const demand = await org.call('production.schedule.listDemandAggregate', {}, { method: 'GET' });
  assert.deepEqual(demand.body.items.map((d: any) => [d.profileId, d.greenLotId, d.roastLevel, d.orderedKg, d.allocatedKg, d.openKg]), [
    [profile.id, null, 'light', '10.000', '8.000', '2.000'],
  ]);
});

test('a blend product is filled component by component at the recipe’s ratios, topped up later, and counted per component in demand', async () => {
  const org = await server.createOrg();
  const [a, b] = [await makeGreenLot(org), await makeGreenLot(org)];
  const blend = await makeBlend(org, [{ greenLotId: a, ratioPct: '60' }, { greenLotId: b, ratioPct: '40' }]);
  const product = await makeProduct(org, { blendId: blend.id, netWeightKg: '1.000' });
  const lotA = await roastLot(org, { kg: '20', greenLotId: a });
  const lotB = await roastLot(org, { kg: '1', greenLotId: b });

  const order = await confirmedOrder(org, [{ productId: product.id, quantityKg: '10' }]);
  assert.deepEqual([order.lines[0].blendId, order.lines[0].profileId, order.lines[0].roastLevel], [blend.id, null, 'dark']);
  const first = await org.call('orders.allocateOrder', { id: order.id });
  assert.equal(first.status, 200, JSON.stringify(first.body));
  assert.deepEqual(claimsOf(first.body.order), [[[lotA.lotCode, '6.000'], [lotB.lotCode, '1.000']]]);
  assert.deepEqual(first.body.shortfalls.map((s: any) => [s.quantityKg, s.allocatedKg, s.shortfallKg, s.reason]), [['10.000', '7.000', '3.000', 'insufficient_stock']]);

  const demand = await org.call('production.schedule.listDemandAggregate', {}, { method: 'GET' });
  assert.deepEqual(demand.body.items.map((d: any) => [d.greenLotId, d.roastLevel, d.orderedKg, d.allocatedKg, d.openKg]), [[b, 'dark', '4.000', '1.000', '3.000']]);

  // More of component b is roasted: the top-up claims only b's missing share.
  const moreB = await roastLot(org, { kg: '5', greenLotId: b });
  const topUp = await org.call('orders.allocateOrder', { id: order.id });
  assert.equal(topUp.status, 200, JSON.stringify(topUp.body));
  assert.equal(topUp.body.complete, true);
  assert.deepEqual(topUp.body.claims.map((c: any) => [c.lotCode, c.quantityKg]), [[moreB.lotCode, '3.000']]);
  assert.equal(topUp.body.order.state, 'allocated');
  const shipped = await org.call('orders.fulfillOrder', { id: order.id });
  assert.equal(shipped.status, 200, JSON.stringify(shipped.body));
});

test('lines naming a lot keep working beside product lines; bad product lines are refused naming the line, with nothing written', async () => {
  const org = await server.createOrg();
  const customer = await makeCustomer(org);
  const lot = await roastLot(org, { kg: '5' });
  const bare = await makeProduct(org, { sku: 'BARE' });
  const profile = await makeProfile(org);
  const noWeight = await makeProduct(org, { sku: 'NOWEIGHT', profileId: profile.id });
  const mixed = await createOrder(org, { customerId: customer.id, lines: [{ roastedLotId: lot.roastedLotId, productId: bare.id, quantityKg: '2', unitPrice: '20' }] });
  assert.deepEqual([mixed.lines[0].roastedLotId, mixed.lines[0].productId, mixed.lines[0].blendId, mixed.lines[0].quantityUnits], [lot.roastedLotId, bare.id, null, null]);

  const base = { orderNumber: 'SO-BAD', customerId: customer.id };
  const call = (line: Record<string, unknown>) => () => org.call('orders.createOrder', { ...base, lines: [{ roastedLotId: lot.roastedLotId, quantityKg: '1', unitPrice: '1' }, { unitPrice: '5', ...line }] });
  await refusedUnchanged(server.owner, org, call({ productSku: 'NOPE', quantityUnits: 1 }), 404, 'not_found', 'lines[1].productSku');
  await refusedUnchanged(server.owner, org, call({ productSku: 'BARE', quantityUnits: 1 }), 400, 'invalid_input', 'lines[1].productSku');
  await refusedUnchanged(server.owner, org, call({ productSku: 'NOWEIGHT', quantityUnits: 1 }), 400, 'invalid_input', 'lines[1].quantityUnits');
  await refusedUnchanged(server.owner, org, call({ productSku: 'NOWEIGHT', quantityUnits: 1, quantityKg: '1' }), 400, 'invalid_input', 'lines[1].quantityUnits');
  await refusedUnchanged(server.owner, org, call({ productSku: 'NOWEIGHT', productId: noWeight.id, quantityKg: '1' }), 400, 'invalid_input', 'lines[1].productSku');
  await refusedUnchanged(server.owner, org, call({ quantityUnits: 2 }), 400, 'invalid_input', 'lines[1].roastedLotId');
});
