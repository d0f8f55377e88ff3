import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { startTestServer, type TestOrg } from '../../testing/harness.js';
import { decryptSecret, loadSecretKey } from '../../crypto/secrets.js';
import { makeProfile } from '../production/roast/testing.js';
import { makeCustomer, ordersState, roastLot } from './testing.js';

const server = await startTestServer();

/** The payload examples of each shop's documentation (test/fixtures/shops/README.md says where from). */
const fixture = (name: string) => readFileSync(new URL(`../../../test/fixtures/shops/${name}`, import.meta.url), 'utf8');
const SHOPIFY_ORDER = fixture('shopify-order.json');
const WOO_ORDER = fixture('woocommerce-order.json');

const sign = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('base64');

async function connect(org: TestOrg, platform: 'shopify' | 'woocommerce', secret: string, code = platform === 'shopify' ? 'WEB' : 'WOO') {
  const customer = await makeCustomer(org, { currency: 'USD' });
  const res = await org.call('orders.createShopConnection', { platform, name: `${platform} shop`, code, customerId: customer.id, secret });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

function post(path: string, body: string, headers: Record<string, string>) {
  return server.request(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body }).then(async (r) => ({ status: r.status, body: await r.json() }));
}

const shopify = (shop: any, body: string, topic: string, secret: string) =>
  post(shop.webhookPath, body, { 'x-shopify-topic': topic, 'x-shopify-hmac-sha256': sign(secret, body), 'x-shopify-shop-domain': 'jsmith.myshopify.com' });
const woo = (shop: any, body: string, topic: string, secret: string) =>
  post(shop.webhookPath, body, { 'x-wc-webhook-topic': topic, 'x-wc-webhook-signature': sign(secret, body), 'x-wc-webhook-resource': 'order' });

async function eventTypes(org: TestOrg) {
  return (await server.owner.query<{ type: string }>(`select type from events where org_id = $1 and type like 'orders.order.%' order by id`, [org.id])).map((e) => e.type);
}

test('shop connections: the secret is stored encrypted like webhook secrets and never answered; list, rotate, delete', async () => {
  const org = await server.createOrg();
  const shop = await connect(org, 'shopify', 'shpss_first_secret');
  assert.match(shop.id, /^shp_/);
  assert.equal(shop.webhookPath, `/hooks/v1/orgs/${org.id}/shops/${shop.id}/orders`);
  assert.ok(!JSON.stringify(shop).includes('shpss_first_secret'), 'the answer never shows the secret');
  const [row] = await server.owner.query<{ secret_encrypted: string }>(`select secret_encrypted from shop_connections where org_id = $1 and id = $2`, [org.id, shop.id]);
  assert.match(row.secret_encrypted, /^v1\./);
  assert.equal(decryptSecret(loadSecretKey(server.app.services.config), row.secret_encrypted), 'shpss_first_secret');

  const dup = await org.call('orders.createShopConnection', { platform: 'woocommerce', name: 'x', code: 'WEB', customerId: shop.customerId, secret: 'another-secret' });
  assert.deepEqual([dup.status, dup.body.code, dup.body.errors?.[0]?.path], [409, 'duplicate', 'code']);
  const listed = await org.call('orders.listShopConnections', {}, { method: 'GET' });
  assert.deepEqual(listed.body.items.map((s: any) => s.id), [shop.id]);

  const rotated = await org.call('orders.rotateShopSecret', { id: shop.id, secret: 'shpss_second_secret' });
  assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
  assert.ok(rotated.body.secretRotatedAt, 'the rotation time is answered');
  const body = SHOPIFY_ORDER;
  const old = await shopify(shop, body, 'orders/create', 'shpss_first_secret');
  assert.deepEqual([old.status, old.body.code], [401, 'invalid_signature'], 'the old secret no longer verifies');

  assert.equal((await org.call('orders.deleteShopConnection', { id: shop.id })).status, 200);
  const gone = await shopify(shop, body, 'orders/create', 'shpss_second_secret');
  assert.deepEqual([gone.status, gone.body.code], [404, 'not_found']);
  assert.equal((await org.call('orders.deleteShopConnection', { id: shop.id })).status, 404);
  assert.deepEqual((await org.call('orders.listShopConnections', {}, { method: 'GET' })).body.items, []);
});

test('Shopify orders/create (the documented sample) becomes a confirmed order of bags; a replay creates nothing twice; orders/cancelled cancels it', async () => {
  const org = await server.createOrg();
  const secret = 'shpss_4f3c2b1a0e9d8c7b';
  const shop = await connect(org, 'shopify', secret);
  const profile = await makeProfile(org);
  const product = (await org.call('catalog.product.createProduct', { sku: 'SKU2006-001', name: 'Aviator espresso 250 g', format: 'whole_bean', netWeightKg: '0.250', profileId: profile.id })).body;
  const lot = await roastLot(org, { kg: '5', profileId: profile.id });

  const created = await shopify(shop, SHOPIFY_ORDER, 'orders/create', secret);
  assert.equal(created.status, 200, JSON.stringify(created.body));
  assert.deepEqual({ ...created.body, orderId: undefined }, { outcome: 'created', orderId: undefined, orderNumber: 'WEB-1234', state: 'confirmed', draftReason: null });
  const order = (await org.call('orders.getOrder', { id: created.body.orderId })).body;
  assert.deepEqual(
    [order.channel, order.externalOrderId, order.shopConnectionId, order.customerId, order.currency, order.lines.length],
    ['webstore', '820982911946154508', shop.id, shop.customerId, 'USD', 1],
    'the exact Shopify id, past 2^53, from admin_graphql_api_id',
  );
  assert.deepEqual(
    [order.lines[0].productId, order.lines[0].quantityUnits, order.lines[0].quantityKg, order.lines[0].unitPrice, order.lines[0].profileId],
    [product.id, 1, '0.250', '89.9900', profile.id],
  );
  const allocated = await org.call('orders.allocateOrder', { id: order.id });
  assert.deepEqual(allocated.body.claims.map((c: any) => [c.roastedLotId, c.quantityKg]), [[lot.roastedLotId, '0.250']]);

  const before = await ordersState(server.owner, org.id);
  const replay = await shopify(shop, SHOPIFY_ORDER, 'orders/create', secret);
  assert.deepEqual([replay.status, replay.body.outcome, replay.body.orderId], [200, 'existing', order.id]);
  assert.deepEqual(await ordersState(server.owner, org.id), before, 'a replay writes nothing');

  const canceled = await shopify(shop, SHOPIFY_ORDER, 'orders/cancelled', secret);
  assert.deepEqual([canceled.status, canceled.body.outcome, canceled.body.state], [200, 'canceled', 'canceled']);
  const after = (await org.call('orders.getOrder', { id: order.id })).body;
  assert.equal(after.cancelReason, 'canceled in the shop: customer');
  assert.equal(after.allocatedKg, '0.000', 'the claims are released');
  const again = await shopify(shop, SHOPIFY_ORDER, 'orders/cancelled', secret);
  assert.deepEqual([again.status, again.body.outcome, again.body.state], [200, 'existing', 'canceled']);
  assert.deepEqual(await eventTypes(org), ['orders.order.created', 'orders.order.confirmed', 'orders.order.allocated', 'orders.order.canceled']);
  const ignored = await shopify(shop, SHOPIFY_ORDER, 'orders/updated', secret);
  assert.deepEqual([ignored.status, ignored.body.outcome], [200, 'ignored']);
});

test('a wrong or missing signature is refused with nothing written; another organization’s shop is 404', async () => {
  const org = await server.createOrg();
  const other = await server.createOrg();
  const shop = await connect(org, 'shopify', 'shpss_right_secret');
  const before = await ordersState(server.owner, org.id);
  const wrong = await shopify(shop, SHOPIFY_ORDER, 'orders/create', 'shpss_wrong_secret');
  assert.deepEqual([wrong.status, wrong.body.code], [401, 'invalid_signature']);
  // Signed over other bytes than were sent (the body re-serialised): refused too.
  const reformatted = JSON.stringify(JSON.parse(SHOPIFY_ORDER));
  const tampered = await post(shop.webhookPath, SHOPIFY_ORDER, { 'x-shopify-topic': 'orders/create', 'x-shopify-hmac-sha256': sign('shpss_right_secret', reformatted) });
  assert.deepEqual([tampered.status, tampered.body.code], [401, 'invalid_signature']);
  const missing = await post(shop.webhookPath, SHOPIFY_ORDER, { 'x-shopify-topic': 'orders/create' });
  assert.deepEqual([missing.status, missing.body.code], [401, 'invalid_signature']);
  assert.deepEqual(await ordersState(server.owner, org.id), before, 'nothing written');

  // The shop's id under another organization's path, correctly signed: 404, as for a shop that does not exist.
  const foreign = await post(`/hooks/v1/orgs/${other.id}/shops/${shop.id}/orders`, SHOPIFY_ORDER, {
    'x-shopify-topic': 'orders/create', 'x-shopify-hmac-sha256': sign('shpss_right_secret', SHOPIFY_ORDER),
  });
  assert.deepEqual([foreign.status, foreign.body.code], [404, 'not_found']);
  const otherShop = await connect(other, 'shopify', 'shpss_other_secret');
  const crossed = await post(`/hooks/v1/orgs/${org.id}/shops/${otherShop.id}/orders`, SHOPIFY_ORDER, {
    'x-shopify-topic': 'orders/create', 'x-shopify-hmac-sha256': sign('shpss_other_secret', SHOPIFY_ORDER),
  });
  assert.deepEqual([crossed.status, crossed.body.code], [404, 'not_found']);
  assert.deepEqual(await ordersState(server.owner, org.id), before, 'nothing written');
  assert.deepEqual(await eventTypes(other), []);
});

test('WooCommerce order.created (the documented order) with an unknown SKU stays a draft with the reason; order.updated cancelled cancels it', async () => {
  const org = await server.createOrg();
  const secret = 'wc-webhook-secret-727';
  const shop = await connect(org, 'woocommerce', secret);
  const profile = await makeProfile(org);
  const product = (await org.call('catalog.product.createProduct', { sku: 'Bar3', name: 'Bar 3 bag', format: 'ground_filter', netWeightKg: '0.500', profileId: profile.id })).body;

  const created = await woo(shop, WOO_ORDER, 'order.created', secret);
  assert.equal(created.status, 200, JSON.stringify(created.body));
  assert.deepEqual([created.body.outcome, created.body.orderNumber, created.body.state, created.body.draftReason], ['created', 'WOO-727', 'draft', 'line 1 (Woo Single #1): no SKU']);
  const order = (await org.call('orders.getOrder', { id: created.body.orderId })).body;
  assert.deepEqual([order.externalOrderId, order.draftReason, order.state], ['727', 'line 1 (Woo Single #1): no SKU', 'draft']);
  assert.deepEqual(order.lines.map((l: any) => [l.productId, l.quantityUnits, l.quantityKg, l.unitPrice, l.lineTotal]), [[product.id, 1, '0.500', '12.0000', '12.0000']]);

  const replay = await woo(shop, WOO_ORDER, 'order.created', secret);
  assert.deepEqual([replay.body.outcome, replay.body.orderId], ['existing', order.id]);
  const updated = await woo(shop, WOO_ORDER, 'order.updated', secret);
  assert.deepEqual([updated.status, updated.body.outcome], [200, 'ignored'], 'an update that is not a cancellation changes nothing');

  const cancelledBody = JSON.stringify({ ...JSON.parse(WOO_ORDER), status: 'cancelled' });
  const canceled = await woo(shop, cancelledBody, 'order.updated', secret);
  assert.deepEqual([canceled.status, canceled.body.outcome, canceled.body.orderId, canceled.body.state], [200, 'canceled', order.id, 'canceled']);
  assert.equal((await org.call('orders.listOrders', {}, { method: 'GET' })).body.items.length, 1, 'one order for the shop’s order 727');

  // A SKU no product has: named in the reason.
  const unknown = JSON.stringify({ ...JSON.parse(WOO_ORDER), id: 728, number: '728', line_items: [{ ...JSON.parse(WOO_ORDER).line_items[1], sku: 'NOPE-1' }] });
  const draft = await woo(shop, unknown, 'order.created', secret);
  assert.deepEqual([draft.body.state, draft.body.draftReason], ['draft', 'line 1 (Ship Your Idea &ndash; Color: Black, Size: M Test): no product has SKU NOPE-1']);
});
