import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestOrg } from '../../testing/harness.js';
import { makeGreenLot } from '../inventory/green/testing.js';
import { makeProfile } from '../production/roast/testing.js';
import { createOrder, makeCustomer, refusedUnchanged, roastLot, unique } from './testing.js';
import { assertProblem } from '../../testing/problems.js';

const server = await startTestServer();

async function eventsOf(org: TestOrg, type: string) {
  return server.owner.query<{ data: any }>(`select data from events where org_id = $1 and type = $2 order by id`, [org.id, type]);
}

async function makeProduct(org: TestOrg): Promise<string> {
  const res = await org.call('catalog.product.createProduct', { sku: unique('SKU'), name: 'Gerba 1 kg', format: 'whole_bean' });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.id;
}

test('createCustomer stores every field, emits orders.customer.created, and codes are unique per organization', async () => {
  const org = await server.createOrg();
  const input = {
    name: 'Café Nord',
    code: 'CAFE-NORD',
    customerType: 'cafe',
    currency: 'EUR',
    paymentTermsDays: 30,
    contactEmail: 'buying@cafenord.example',
    shippingAddress: { recipient: 'Bar', line1: 'Hafenstraße 1', city: 'Hamburg', postalCode: '20457', country: 'DE' },
  };
  const res = await org.call('orders.createCustomer', input);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.match(res.body.id, /^cus_[0-9a-z]{26}$/);
  const { id, createdAt, updatedAt, ...fields } = res.body;
  assert.deepEqual(fields, input);
  assert.match(createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.deepEqual((await eventsOf(org, 'orders.customer.created')).map((e) => e.data.customer), [res.body]);

  await refusedUnchanged(server.owner, org, () => org.call('orders.createCustomer', { ...input, name: 'Other' }), 409, 'duplicate', 'code');
  // The same code is free in another organization.
  assert.equal((await (await server.createOrg()).call('orders.createCustomer', input)).status, 200);
});

test('createCustomer refuses invalid input with 400 naming the field', async () => {
  const org = await server.createOrg();
  const base = { name: 'Shop', code: 'S1' };
  const invalid: [Record<string, unknown>, string][] = [
    [{ ...base, customerType: 'friend' }, 'customerType'],
    [{ ...base, currency: 'eur' }, 'currency'],
    [{ ...base, paymentTermsDays: 14.5 }, 'paymentTermsDays'],
    [{ ...base, paymentTermsDays: 400 }, 'paymentTermsDays'],
    [{ ...base, contactEmail: 'not-an-email' }, 'contactEmail'],
    [{ ...base, shippingAddress: { street: 'x' } }, 'shippingAddress.street'],
    [{ ...base, shippingAddress: { country: 'Germany' } }, 'shippingAddress.country'],
    [{ ...base, isActive: true }, 'isActive'],
    [{ name: 'No code' }, 'code'],
  ];
  for (const [input, path] of invalid) {
    await refusedUnchanged(server.owner, org, () => org.call('orders.createCustomer', input), 400, 'invalid_input', path);
  }
});

test('listCustomers filters by customerType and q, pages stably, and refuses unknown filters', async () => {
  const org = await server.createOrg();
  const nord = await makeCustomer(org, { name: 'Café Nord', code: 'NORD', customerType: 'cafe' });
  const sued = await makeCustomer(org, { name: 'Rösterei Süd', code: 'SUED', customerType: 'wholesale', contactEmail: 'einkauf@sued.example' });
  const web = await makeCustomer(org, { name: 'Webshop', code: 'WEB', customerType: 'retail' });
  const ids = async (input: unknown) => {
    const res = await org.call('orders.listCustomers', input, { method: 'GET' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.items.map((c: any) => c.id);
  };
  assert.deepEqual(await ids({}), [nord.id, sued.id, web.id]);
  assert.deepEqual(await ids({ filter: { customerType: 'wholesale' } }), [sued.id]);
  assert.deepEqual(await ids({ filter: { q: 'nord' } }), [nord.id]);
  assert.deepEqual(await ids({ filter: { q: 'EINKAUF@' } }), [sued.id]);
  const first = await org.call('orders.listCustomers', { page: { limit: 2 } });
  assert.deepEqual(first.body.items.map((c: any) => c.id), [nord.id, sued.id]);
  const rest = await org.call('orders.listCustomers', { page: { limit: 2, cursor: first.body.nextCursor } });
  assert.deepEqual(rest.body.items.map((c: any) => c.id), [web.id]);
  assert.equal(rest.body.nextCursor, null);
  assertProblem(await org.call('orders.listCustomers', { filter: { country: 'DE' } }), 400, 'invalid_input', 'filter.country');
});

test('createOrder stores lines with exact totals, takes the customer’s currency, and emits orders.order.created', async () => {
  const org = await server.createOrg();
  const customer = await makeCustomer(org, { currency: 'CHF' });
  const greenLotId = await makeGreenLot(org);
  const profile = await makeProfile(org);
  const productId = await makeProduct(org);
  const lot = await roastLot(org, { kg: '12' });
  const res = await org.call('orders.createOrder', {
    orderNumber: 'SO-1',
    customerId: customer.id,
    channel: 'webstore',
    requestedShipAt: '2030-03-01',
    lines: [
      { roastedLotId: lot.roastedLotId, quantityKg: 1.5, unitPrice: '24.9' },
      { greenLotId, profileId: profile.id, productId, quantityKg: '0.333', unitPrice: '19.99', currency: 'CHF' },
    ],
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const order = res.body;
  assert.match(order.id, /^so_[0-9a-z]{26}$/);
  assert.equal(order.state, 'draft');
  assert.equal(order.channel, 'webstore');
  assert.equal(order.currency, 'CHF');
  assert.equal(order.requestedShipAt, '2030-03-01T00:00:00.000Z');
  assert.deepEqual(order.customer, { id: customer.id, code: customer.code, name: customer.name });
  assert.equal(order.totalKg, '1.833');
  // 1.5 × 24.9 = 37.35; 0.333 × 19.99 = 6.65667 → 6.6567 (4 decimals); exact in SQL numeric.
  assert.equal(order.totalAmount, '44.0067');
  assert.deepEqual(
    order.lines.map((l: any) => [l.lineNumber, l.roastedLotId, l.roastedLotCode, l.greenLotId, l.profileId, l.productId, l.quantityKg, l.unitPrice, l.currency, l.lineTotal, l.allocatedKg, l.unallocatedKg]),
    [
      [1, lot.roastedLotId, lot.lotCode, null, null, null, '1.500', '24.9000', 'CHF', '37.3500', '0.000', '1.500'],
      [2, null, null, greenLotId, profile.id, productId, '0.333', '19.9900', 'CHF', '6.6567', '0.000', '0.333'],
    ],
  );
  assert.deepEqual((await org.call('orders.getOrder', { id: order.id }, { method: 'GET' })).body, order);
  assert.deepEqual((await eventsOf(org, 'orders.order.created')).map((e) => e.data.order), [order]);
});

test('createOrder refuses bad lines, currencies and references, naming the field, and writes nothing', async () => {
  const org = await server.createOrg();
  const withCurrency = await makeCustomer(org, { currency: 'EUR' });
  const withoutCurrency = await makeCustomer(org, { currency: undefined });
  const greenLotId = await makeGreenLot(org);
  const other = await server.createOrg();
  const foreignLot = await makeGreenLot(other);
  const line = { greenLotId, quantityKg: '1', unitPrice: '10' };
  const base = { orderNumber: 'SO-X', customerId: withCurrency.id, lines: [line] };
  const cases: [Record<string, unknown>, number, string, string][] = [
    [{ ...base, lines: [] }, 400, 'invalid_input', 'lines'],
    [{ ...base, lines: [{ quantityKg: '1', unitPrice: '1' }] }, 400, 'invalid_input', 'lines[0].roastedLotId'],
    [{ ...base, lines: [{ ...line, roastedLotId: 'rl_0000000000000000000000000a' }] }, 400, 'invalid_input', 'lines[0].greenLotId'],
    [{ ...base, lines: [{ roastedLotId: 'rl_0000000000000000000000000a', profileId: 'rp_00000000000000000000000000', quantityKg: '1', unitPrice: '1' }] }, 400, 'invalid_input', 'lines[0].profileId'],
    [{ ...base, lines: [{ ...line, quantityKg: '0' }] }, 400, 'invalid_input', 'lines[0].quantityKg'],
    [{ ...base, lines: [{ ...line, quantityKg: '1.0001' }] }, 400, 'invalid_input', 'lines[0].quantityKg'],
    [{ ...base, lines: [{ ...line, unitPrice: '-1' }] }, 400, 'invalid_input', 'lines[0].unitPrice'],
    [{ ...base, lines: [{ ...line, sku: 'x' }] }, 400, 'invalid_input', 'lines[0].sku'],
    [{ ...base, channel: 'phone' }, 400, 'invalid_input', 'channel'],
    [{ ...base, requestedShipAt: 'tomorrow' }, 400, 'invalid_input', 'requestedShipAt'],
    [{ ...base, lines: [line, { ...line, currency: 'USD' }] }, 400, 'invalid_input', 'lines[1].currency'],
    [{ ...base, customerId: withoutCurrency.id }, 400, 'invalid_input', 'currency'],
    [{ ...base, customerId: 'cus_0000000000000000000000000a' }, 404, 'not_found', 'customerId'],
    [{ ...base, lines: [line, { ...line, greenLotId: foreignLot }] }, 404, 'not_found', 'lines[1].greenLotId'],
    [{ ...base, lines: [{ ...line, productId: 'prd_000000000000000000000000aa' }] }, 404, 'not_found', 'lines[0].productId'],
  ];
  for (const [input, status, code, path] of cases) {
    await refusedUnchanged(server.owner, org, () => org.call('orders.createOrder', input), status, code, path);
  }
  // Without the customer's currency, the lines' one currency prices the order.
  const res = await org.call('orders.createOrder', { ...base, customerId: withoutCurrency.id, lines: [{ ...line, currency: 'USD' }] });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.currency, 'USD');
  // Order numbers are unique per organization.
  await refusedUnchanged(server.owner, org, () => org.call('orders.createOrder', base), 409, 'duplicate', 'orderNumber');
});

test('a repeated externalOrderId is a no-op that answers the stored order; another channel’s id is another order', async () => {
  const org = await server.createOrg();
  const customer = await makeCustomer(org);
  const greenLotId = await makeGreenLot(org);
  const input = { orderNumber: 'WEB-1001', customerId: customer.id, channel: 'webstore', externalOrderId: 'shop-1001', lines: [{ greenLotId, quantityKg: '2', unitPrice: '18' }] };
  const first = await org.call('orders.createOrder', input);
  assert.equal(first.status, 200);
  // The re-import differs (quantity, number), and still changes nothing.
  const again = await org.call('orders.createOrder', { ...input, orderNumber: 'WEB-1001-B', lines: [{ greenLotId, quantityKg: '5', unitPrice: '18' }] });
  assert.equal(again.status, 200);
  assert.deepEqual(again.body, first.body);
  assert.equal((await eventsOf(org, 'orders.order.created')).length, 1);
  const marketplace = await org.call('orders.createOrder', { ...input, orderNumber: 'MP-1001', channel: 'marketplace' });
  assert.equal(marketplace.status, 200);
  assert.notEqual(marketplace.body.id, first.body.id);
});

test('ten concurrent imports of one external order make one order, and every answer names it', async () => {
  const org = await server.createOrg();
  const customer = await makeCustomer(org);
  const greenLotId = await makeGreenLot(org);
  const input = { orderNumber: 'EDI-77', customerId: customer.id, channel: 'edi', externalOrderId: 'edi-77', lines: [{ greenLotId, quantityKg: '3', unitPrice: '15' }] };
  const answers = await Promise.all(Array.from({ length: 10 }, () => org.call('orders.createOrder', input)));
  assert.deepEqual(answers.map((a) => a.status), Array(10).fill(200), JSON.stringify(answers.map((a) => a.body)));
  assert.equal(new Set(answers.map((a) => a.body.id)).size, 1);
  const [row] = await server.owner.query<{ orders: number; lines: number }>(
    `select (select count(*)::int from orders where org_id = $1) as orders, (select count(*)::int from order_lines where org_id = $1) as lines`,
    [org.id],
  );
  assert.deepEqual(row, { orders: 1, lines: 1 });
  assert.equal((await eventsOf(org, 'orders.order.created')).length, 1);
});

test('listOrders filters by state, customer, channel, requested ship days and q, newest first', async () => {
  const org = await server.createOrg();
  const nord = await makeCustomer(org, { name: 'Café Nord' });
  const sued = await makeCustomer(org, { name: 'Rösterei Süd' });
  const greenLotId = await makeGreenLot(org);
  const lines = [{ greenLotId, quantityKg: '1', unitPrice: '10' }];
  const a = await createOrder(org, { orderNumber: 'A-1', customerId: nord.id, channel: 'direct', requestedShipAt: '2030-01-10', lines });
  const b = await createOrder(org, { orderNumber: 'B-2', customerId: sued.id, channel: 'webstore', externalOrderId: 'ext-99', requestedShipAt: '2030-01-11T23:30:00Z', lines });
  const c = await createOrder(org, { orderNumber: 'C-3', customerId: nord.id, channel: 'webstore', lines });
  assert.equal((await org.call('orders.confirmOrder', { id: b.id })).status, 200);
  const ids = async (filter: Record<string, unknown>) => {
    const res = await org.call('orders.listOrders', { filter }, { method: 'GET' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.items.map((o: any) => o.id);
  };
  assert.deepEqual(await ids({}), [c.id, b.id, a.id]);
  assert.deepEqual(await ids({ state: 'confirmed' }), [b.id]);
  assert.deepEqual(await ids({ state: 'draft', customerId: nord.id }), [c.id, a.id]);
  assert.deepEqual(await ids({ channel: 'webstore' }), [c.id, b.id]);
  assert.deepEqual(await ids({ requestedShipFrom: '2030-01-11' }), [b.id]);
  assert.deepEqual(await ids({ requestedShipTo: '2030-01-10' }), [a.id]);
  assert.deepEqual(await ids({ requestedShipFrom: '2030-01-10', requestedShipTo: '2030-01-11' }), [b.id, a.id]);
  assert.deepEqual(await ids({ q: 'süd' }), [b.id]);
  assert.deepEqual(await ids({ q: 'EXT-99' }), [b.id]);
  assert.deepEqual(await ids({ q: 'c-3' }), [c.id]);
  const summary = (await org.call('orders.listOrders', { filter: { q: 'A-1' } })).body.items[0];
  assert.equal(summary.lineCount, 1);
  assert.equal(summary.totalAmount, '10.0000');
  assert.equal(summary.lines, undefined);
  const page = await org.call('orders.listOrders', { page: { limit: 2 } });
  const next = await org.call('orders.listOrders', { page: { limit: 2, cursor: page.body.nextCursor } });
  assert.deepEqual([...page.body.items, ...next.body.items].map((o: any) => o.id), [c.id, b.id, a.id]);
  assertProblem(await org.call('orders.listOrders', { filter: { status: 'draft' } }), 400, 'invalid_input', 'filter.status');
  assertProblem(await org.call('orders.getOrder', { id: 'so_0000000000000000000000000a' }), 404, 'not_found', 'id');
});

test('order states move draft → confirmed → … and every other move is 409 invalid_state_transition', async () => {
  const org = await server.createOrg();
  const greenLotId = await makeGreenLot(org);
  const customer = await makeCustomer(org);
  const lines = [{ greenLotId, quantityKg: '1', unitPrice: '10' }];
  const draft = await createOrder(org, { customerId: customer.id, lines });
  for (const [operation, input] of [
    ['orders.allocateOrder', { id: draft.id }],
    ['orders.fulfillOrder', { id: draft.id }],
    ['orders.releaseOrderAllocation', { orderLineId: draft.lines[0].id }],
  ] as const) {
    await refusedUnchanged(server.owner, org, () => org.call(operation, input), 409, 'invalid_state_transition');
  }
  const confirmed = await org.call('orders.confirmOrder', { id: draft.id });
  assert.equal(confirmed.status, 200);
  assert.equal(confirmed.body.state, 'confirmed');
  assert.match(confirmed.body.confirmedAt, /Z$/);
  assert.equal((await eventsOf(org, 'orders.order.confirmed')).length, 1);
  await refusedUnchanged(server.owner, org, () => org.call('orders.confirmOrder', { id: draft.id }), 409, 'invalid_state_transition');
  await refusedUnchanged(server.owner, org, () => org.call('orders.fulfillOrder', { id: draft.id }), 409, 'invalid_state_transition');
  await refusedUnchanged(server.owner, org, () => org.call('orders.releaseOrderAllocation', { orderLineId: draft.lines[0].id }), 409, 'not_allocated', 'orderLineId');

  const canceled = await org.call('orders.cancelOrder', { id: draft.id, reason: 'customer changed their mind' });
  assert.equal(canceled.status, 200, JSON.stringify(canceled.body));
  assert.equal(canceled.body.order.state, 'canceled');
  assert.equal(canceled.body.order.cancelReason, 'customer changed their mind');
  for (const [operation, input] of [
    ['orders.cancelOrder', { id: draft.id }],
    ['orders.confirmOrder', { id: draft.id }],
    ['orders.allocateOrder', { id: draft.id }],
  ] as const) {
    await refusedUnchanged(server.owner, org, () => org.call(operation, input), 409, 'invalid_state_transition');
  }
  // A draft may be canceled straight away.
  const other = await createOrder(org, { customerId: customer.id, lines });
  assert.equal((await org.call('orders.cancelOrder', { id: other.id })).body.order.state, 'canceled');
  assertProblem(await org.call('orders.confirmOrder', { id: 'so_0000000000000000000000000a' }), 404, 'not_found', 'id');
  assertProblem(await org.call('orders.releaseOrderAllocation', { orderLineId: 'sol_000000000000000000000000a' }), 404, 'not_found', 'orderLineId');
});

test('an order line shows its margin per bag against the product’s list price: coffee at its roasted cost plus the bill of materials', async () => {
  const org = await server.createOrg();
  const call = async (operation: string, input: Record<string, unknown>) => {
    const res = await org.call(operation, input);
    assert.equal(res.status, 200, `${operation}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const green = await call('inventory.green.importGreenLot', { name: 'Gerba', lotCode: unique('GL'), weightKg: '100', unitCost: '7.85', currency: 'EUR' });
  const roasted = await roastLot(org, { kg: '8', greenLotId: green.lot.id }); // charged 10 kg: 78.50 / 8 = 9.8125 per roasted kg
  const bag = await call('inventory.material.createMaterial', { sku: unique('BAG'), name: 'Valve bag 250 g', kind: 'bag', unitCost: '0.185', currency: 'EUR' });
  const label = await call('inventory.material.createMaterial', { sku: unique('LBL'), name: 'Label', kind: 'label', unitCost: '0.05', currency: 'EUR' });
  const product = await call('catalog.product.createProduct', { sku: unique('SKU'), name: 'Gerba 250 g', format: 'whole_bean', netWeightKg: '0.25', listPrice: '12.90', currency: 'EUR' });
  const bare = await call('catalog.product.createProduct', { sku: unique('SKU'), name: 'Gerba bulk', format: 'whole_bean', netWeightKg: '1' });
  // A label spoils 10 %: 0.185 + 0.05 × 1.1 = 0.2400 per bag.
  await call('inventory.material.setBillOfMaterials', { productId: product.id, name: 'Bag', lines: [{ materialId: bag.id, quantity: '1' }, { materialId: label.id, quantity: '1', wastePct: '10' }] });
  const customer = await makeCustomer(org);
  const order = await createOrder(org, {
    customerId: customer.id,
    currency: 'EUR',
    lines: [
      { roastedLotId: roasted.roastedLotId, productId: product.id, quantityKg: '1', unitPrice: '40' },
      { roastedLotId: roasted.roastedLotId, productId: bare.id, quantityKg: '1', unitPrice: '30' },
      { roastedLotId: roasted.roastedLotId, quantityKg: '1', unitPrice: '30' },
    ],
  });
  const [costed, noPrice, noProduct] = order.lines.map((l: any) => l.margin);
  // Coffee 9.8125 × 0.25 = 2.453125 → 2.4531; unit cost 2.6931; margin 12.90 − 2.6931 = 10.2069 = 79.12 %.
  assert.deepEqual({ ...costed, rule: undefined }, {
    currency: 'EUR', listPrice: '12.9000', coffeeCost: '2.4531', materialsCost: '0.2400', unitCost: '2.6931', margin: '10.2069', marginPct: '79.12', missing: null, rule: undefined,
  });
  assert.match(costed.rule, /list price − \(coffee \+ materials\)/);
  assert.deepEqual([noPrice.missing, noPrice.margin, noPrice.unitCost], ['no_list_price', null, null]);
  assert.deepEqual([noProduct.missing, noProduct.margin], ['no_product', null]);

  // A material without a unit cost leaves the materials, and so the margin, missing (never counted as 0).
  const foil = await call('inventory.material.createMaterial', { sku: unique('FOIL'), name: 'Foil', kind: 'other' });
  await call('inventory.material.setBillOfMaterials', { productId: product.id, name: 'Bag v2', lines: [{ materialId: bag.id, quantity: '1' }, { materialId: foil.id, quantity: '1' }] });
  const again = await call('orders.getOrder', { id: order.id });
  assert.deepEqual([again.lines[0].margin.missing, again.lines[0].margin.margin, again.lines[0].margin.materialsCost], ['material_not_costed', null, null]);
});
