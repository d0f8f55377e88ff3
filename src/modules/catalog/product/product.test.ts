import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestOrg } from '../../../testing/harness.js';

const server = await startTestServer();

async function eventsOf(org: TestOrg, type: string) {
  return server.owner.query<{ data: any }>(`select data from events where org_id = $1 and type = $2 order by id`, [org.id, type]);
}

async function productCount(org: TestOrg) {
  return (await server.owner.query<{ n: number }>(`select count(*)::int as n from products where org_id = $1`, [org.id]))[0].n;
}

function assertInvalid(res: { status: number; body: any }, path: string) {
  assert.equal(res.status, 400, JSON.stringify(res.body));
  assert.equal(res.body.code, 'invalid_input');
  assert.ok(res.body.errors.some((e: { path: string }) => e.path === path), `expected an error at ${path}: ${JSON.stringify(res.body.errors)}`);
}

test('createProduct stores every field, answers weights and money as exact strings, and emits catalog.product.created', async () => {
  const org = await server.createOrg();
  const res = await org.call('catalog.product.createProduct', {
    sku: 'ETH-250-WB', name: 'Ethiopia Guji 250 g', format: 'whole_bean', netWeightKg: 0.25, listPrice: '12.9', currency: 'EUR', barcode: '4006381333931',
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const product = res.body;
  assert.match(product.id, /^prd_[0-9a-z]{26}$/);
  assert.deepEqual(
    { ...product, id: undefined, createdAt: undefined, updatedAt: undefined },
    {
      id: undefined, sku: 'ETH-250-WB', name: 'Ethiopia Guji 250 g', format: 'whole_bean', netWeightKg: '0.250', listPrice: '12.9000',
      currency: 'EUR', barcode: '4006381333931', isActive: true, profileId: null, blendId: null, roastLevel: null, createdAt: undefined, updatedAt: undefined,
    },
  );
  assert.match(product.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.deepEqual((await org.call('catalog.product.getProduct', { id: product.id }, { method: 'GET' })).body, product);
  const events = await eventsOf(org, 'catalog.product.created');
  assert.equal(events.length, 1);
  assert.deepEqual(events[0].data.product, product);
});

test('only sku, name and format are required; optional fields answer null', async () => {
  const org = await server.createOrg();
  const res = await org.call('catalog.product.createProduct', { sku: 'BULK-1', name: 'House espresso 5 kg', format: 'bulk' });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.netWeightKg, null);
  assert.equal(res.body.listPrice, null);
  assert.equal(res.body.currency, null);
  assert.equal(res.body.barcode, null);
  // A currency alone is allowed: a price may follow later.
  const withCurrency = await org.call('catalog.product.createProduct', { sku: 'BULK-2', name: 'Decaf 5 kg', format: 'bulk', currency: 'USD' });
  assert.equal(withCurrency.status, 200);
});

test('createProduct refuses invalid input with 400 naming the field, and writes nothing', async () => {
  const org = await server.createOrg();
  const base = { sku: 'OK-1', name: 'Fine', format: 'capsule' };
  assertInvalid(await org.call('catalog.product.createProduct', { ...base, listPrice: '9.50' }), 'currency');
  assertInvalid(await org.call('catalog.product.createProduct', { ...base, format: 'whole-bean' }), 'format');
  assertInvalid(await org.call('catalog.product.createProduct', { ...base, currency: 'eur', listPrice: 1 }), 'currency');
  assertInvalid(await org.call('catalog.product.createProduct', { ...base, barcode: '1234567' }), 'barcode');
  assertInvalid(await org.call('catalog.product.createProduct', { ...base, barcode: '123456789012345' }), 'barcode');
  assertInvalid(await org.call('catalog.product.createProduct', { ...base, barcode: '12345abc' }), 'barcode');
  assertInvalid(await org.call('catalog.product.createProduct', { ...base, barcode: 12345678 }), 'barcode');
  assertInvalid(await org.call('catalog.product.createProduct', { ...base, netWeightKg: '0.2505' }), 'netWeightKg');
  assertInvalid(await org.call('catalog.product.createProduct', { ...base, netWeightKg: 0 }), 'netWeightKg');
  assertInvalid(await org.call('catalog.product.createProduct', { ...base, netWeightKg: -1 }), 'netWeightKg');
  assertInvalid(await org.call('catalog.product.createProduct', { ...base, listPrice: '-1', currency: 'EUR' }), 'listPrice');
  assertInvalid(await org.call('catalog.product.createProduct', { ...base, isActive: false }), 'isActive');
  assertInvalid(await org.call('catalog.product.createProduct', { name: 'No sku', format: 'capsule' }), 'sku');
  assert.equal(await productCount(org), 0);
  assert.equal((await eventsOf(org, 'catalog.product.created')).length, 0);
  // 8 and 14 digits are the bounds.
  assert.equal((await org.call('catalog.product.createProduct', { ...base, sku: 'B8', barcode: '12345670' })).status, 200);
  assert.equal((await org.call('catalog.product.createProduct', { ...base, sku: 'B14', barcode: '12345678901231' })).status, 200);
});

test('sku and barcode are unique per organization: 409 naming the field', async () => {
  const org = await server.createOrg();
  const other = await server.createOrg();
  assert.equal((await org.call('catalog.product.createProduct', { sku: 'SKU-1', name: 'A', format: 'instant', barcode: '99999999' })).status, 200);
  const sameSku = await org.call('catalog.product.createProduct', { sku: 'SKU-1', name: 'B', format: 'instant' });
  assert.equal(sameSku.status, 409);
  assert.equal(sameSku.body.code, 'duplicate');
  assert.deepEqual(sameSku.body.errors.map((e: { path: string }) => e.path), ['sku']);
  const sameBarcode = await org.call('catalog.product.createProduct', { sku: 'SKU-2', name: 'C', format: 'instant', barcode: '99999999' });
  assert.equal(sameBarcode.status, 409);
  assert.deepEqual(sameBarcode.body.errors.map((e: { path: string }) => e.path), ['barcode']);
  assert.equal(await productCount(org), 1);
  // Another organization has its own namespace.
  assert.equal((await other.call('catalog.product.createProduct', { sku: 'SKU-1', name: 'A', format: 'instant', barcode: '99999999' })).status, 200);
});

test('getProduct answers 404 for an unknown id and 400 for a malformed one', async () => {
  const org = await server.createOrg();
  const missing = await org.call('catalog.product.getProduct', { id: 'prd_00000000000000000000000000' });
  assert.equal(missing.status, 404);
  assert.equal(missing.body.code, 'not_found');
  assertInvalid(await org.call('catalog.product.getProduct', { id: 'not an id' }), 'id');
});

test('updateProduct changes given fields, null clears optional ones, and emits catalog.product.updated', async () => {
  const org = await server.createOrg();
  const created = (await org.call('catalog.product.createProduct', {
    sku: 'DRIP-10', name: 'Drip bags', format: 'drip_bag', netWeightKg: '0.120', barcode: '12345678',
  })).body;
  const res = await org.call('catalog.product.updateProduct', {
    id: created.id, name: 'Drip bags x10', format: 'ground_filter', netWeightKg: null, barcode: null, listPrice: 7, currency: 'GBP', isActive: false,
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.sku, 'DRIP-10', 'sku is not changeable');
  assert.equal(res.body.name, 'Drip bags x10');
  assert.equal(res.body.format, 'ground_filter');
  assert.equal(res.body.netWeightKg, null);
  assert.equal(res.body.barcode, null);
  assert.equal(res.body.listPrice, '7.0000');
  assert.equal(res.body.currency, 'GBP');
  assert.equal(res.body.isActive, false);
  assert.ok(res.body.updatedAt >= created.updatedAt, `updatedAt does not go back: ${created.updatedAt}, then ${res.body.updatedAt}`);
  assert.deepEqual((await org.call('catalog.product.getProduct', { id: created.id })).body, res.body);
  const events = await eventsOf(org, 'catalog.product.updated');
  assert.equal(events.length, 1);
  assert.deepEqual(events[0].data.product, res.body);
  // An update naming only the id changes nothing but is still an update.
  const noop = await org.call('catalog.product.updateProduct', { id: created.id });
  assert.equal(noop.status, 200);
  assert.equal(noop.body.name, 'Drip bags x10');
});

test('updateProduct keeps a currency with every price, judged against the stored row, and refuses without writing', async () => {
  const org = await server.createOrg();
  const unpriced = (await org.call('catalog.product.createProduct', { sku: 'U', name: 'Unpriced', format: 'bulk' })).body;
  assertInvalid(await org.call('catalog.product.updateProduct', { id: unpriced.id, listPrice: '10' }), 'currency');
  const priced = (await org.call('catalog.product.createProduct', { sku: 'P', name: 'Priced', format: 'bulk', listPrice: 10, currency: 'EUR' })).body;
  assertInvalid(await org.call('catalog.product.updateProduct', { id: priced.id, currency: null }), 'currency');
  assertInvalid(await org.call('catalog.product.updateProduct', { id: priced.id, listPrice: 12, currency: null }), 'currency');
  assert.deepEqual((await org.call('catalog.product.getProduct', { id: priced.id })).body, priced);
  assert.deepEqual((await org.call('catalog.product.getProduct', { id: unpriced.id })).body, unpriced);
  assert.equal((await eventsOf(org, 'catalog.product.updated')).length, 0);
  // A new price keeps the stored currency; clearing both together is fine.
  assert.equal((await org.call('catalog.product.updateProduct', { id: priced.id, listPrice: '11.25' })).body.currency, 'EUR');
  const cleared = await org.call('catalog.product.updateProduct', { id: priced.id, listPrice: null, currency: null });
  assert.equal(cleared.status, 200);
  assert.equal(cleared.body.listPrice, null);
});

test('updateProduct refuses unknown ids (404), taken barcodes (409) and unknown fields (400)', async () => {
  const org = await server.createOrg();
  const first = (await org.call('catalog.product.createProduct', { sku: 'A', name: 'A', format: 'capsule', barcode: '11111111' })).body;
  const second = (await org.call('catalog.product.createProduct', { sku: 'B', name: 'B', format: 'capsule' })).body;
  const missing = await org.call('catalog.product.updateProduct', { id: 'prd_00000000000000000000000000', name: 'x' });
  assert.equal(missing.status, 404);
  const taken = await org.call('catalog.product.updateProduct', { id: second.id, barcode: '11111111' });
  assert.equal(taken.status, 409);
  assert.deepEqual(taken.body.errors.map((e: { path: string }) => e.path), ['barcode']);
  assertInvalid(await org.call('catalog.product.updateProduct', { id: second.id, sku: 'C' }), 'sku');
  assertInvalid(await org.call('catalog.product.updateProduct', { id: second.id, name: null }), 'name');
  assert.deepEqual((await org.call('catalog.product.getProduct', { id: second.id })).body, second);
  assert.deepEqual((await org.call('catalog.product.getProduct', { id: first.id })).body, first);
});

test('listProducts filters by format, isActive and q (name, sku, barcode), pages stably, and refuses unknown filters', async () => {
  const org = await server.createOrg();
  const make = async (sku: string, name: string, format: string, barcode?: string) =>
    (await org.call('catalog.product.createProduct', { sku, name, format, barcode })).body.id as string;
  const espresso = await make('ESP-1', 'Espresso Blend', 'ground_espresso', '50000001');
  const filter = await make('FLT-1', 'Filter Kenya', 'ground_filter', '50000002');
  const beans = await make('WB-1', 'Kenya Beans', 'whole_bean', '70000003');
  await org.call('catalog.product.updateProduct', { id: filter, isActive: false });
  const ids = async (input: unknown) => {
    const res = await org.call('catalog.product.listProducts', input, { method: 'GET' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.items.map((p: { id: string }) => p.id);
  };
  assert.deepEqual(await ids({}), [espresso, filter, beans]);
  assert.deepEqual(await ids({ filter: { format: 'ground_filter' } }), [filter]);
  assert.deepEqual(await ids({ filter: { isActive: true } }), [espresso, beans]);
  assert.deepEqual(await ids({ filter: { isActive: false } }), [filter]);
  assert.deepEqual(await ids({ filter: { q: 'kenya' } }), [filter, beans]);
  assert.deepEqual(await ids({ filter: { q: 'esp-' } }), [espresso]);
  assert.deepEqual(await ids({ filter: { q: '5000000' } }), [espresso, filter]);
  assert.deepEqual(await ids({ filter: { q: 'kenya', isActive: true } }), [beans]);
  assert.deepEqual(await ids({ filter: { q: '%' } }), []);

  const first = (await org.call('catalog.product.listProducts', { page: { limit: 2 } })).body;
  assert.deepEqual(first.items.map((p: { id: string }) => p.id), [espresso, filter]);
  assert.ok(first.nextCursor, 'a full first page has a cursor to the next');
  const rest = (await org.call('catalog.product.listProducts', { page: { limit: 2, cursor: first.nextCursor } })).body;
  assert.deepEqual(rest.items.map((p: { id: string }) => p.id), [beans]);
  assert.equal(rest.nextCursor, null);

  assertInvalid(await org.call('catalog.product.listProducts', { filter: { barcode: '50000001' } }), 'filter.barcode');
  assertInvalid(await org.call('catalog.product.listProducts', { filter: { format: 'tin' } }), 'filter.format');
  assertInvalid(await org.call('catalog.product.listProducts', { page: { limit: 201 } }), 'page.limit');
  const garbage = await org.call('catalog.product.listProducts', { page: { cursor: 'garbage' } });
  assert.deepEqual([garbage.status, garbage.body.code, garbage.body.errors[0].path], [400, 'invalid_cursor', 'page.cursor']);
});
