import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { FastifyRequest } from 'fastify';
import type { Queryable } from '../../db/client.js';
import { decryptSecret, loadSecretKey } from '../../crypto/secrets.js';
import { writeEvent } from '../../events/emit.js';
import { defineSurface } from '../../http/surface.js';
import { ProblemError, conflict, invalidInput, notFound } from '../../rpc/errors.js';
import { code as codeSchema, currency as currencySchema, fieldErrors, id } from '../../rpc/schemas.js';
import { orderOrThrow } from './operations.js';
import { resolveLines } from './product-lines.js';
import * as repo from './repository.js';
import type { OrderLineInput } from './schemas.js';
import * as shops from './shop-repository.js';

/**
 * Web shop order webhooks (extension): POST /hooks/v1/orgs/{orgId}/shops/{shopId}/orders, where a Shopify or
 * WooCommerce shop connected with orders.createShopConnection posts its orders. No credential: the shop's own
 * signature of the raw body (base64 HMAC-SHA256 with the connection's secret) is the authentication, checked
 * before anything is read or written. A shop's order becomes an order of the connection's customer, idempotent
 * on the shop's order id (`externalOrderId`), lines mapped by SKU to products in units (bags); one the mapping
 * cannot make leaves the order in draft with `draftReason`, otherwise it is confirmed. A cancellation cancels it.
 */

const HEADERS = {
  shopify: { signature: 'x-shopify-hmac-sha256', topic: 'x-shopify-topic' },
  woocommerce: { signature: 'x-wc-webhook-signature', topic: 'x-wc-webhook-topic' },
} as const;

/** What the two shops' order payloads have in common, as read here (every other field is ignored). */
const ShopLine = z.looseObject({
  sku: z.string().nullish(),
  name: z.string().nullish(),
  title: z.string().nullish(),
  quantity: z.number().int().positive(),
  price: z.union([z.string(), z.number()]),
});
const ShopOrderPayload = z.looseObject({
  id: z.union([z.number(), z.string()]),
  /** Shopify: the id as a string, exact where the JSON number is past 2^53. */
  admin_graphql_api_id: z.string().nullish(),
  order_number: z.union([z.number(), z.string()]).nullish(),
  number: z.union([z.number(), z.string()]).nullish(),
  name: z.string().nullish(),
  currency: z.string().nullish(),
  status: z.string().nullish(),
  cancel_reason: z.string().nullish(),
  line_items: z.array(ShopLine).max(500),
});
type ShopOrderPayload = z.output<typeof ShopOrderPayload>;

const Answer = z.strictObject({
  /** created: a new order; existing: the shop's order was received before (nothing written); canceled; ignored: a topic that changes nothing here. */
  outcome: z.enum(['created', 'existing', 'canceled', 'ignored']),
  orderId: z.string().nullable(),
  orderNumber: z.string().nullable(),
  state: z.string().nullable(),
  draftReason: z.string().nullable(),
});
type Answer = z.output<typeof Answer>;

const idOf = id();

/** Refuses (401, nothing read further) a body the connection's secret did not sign. */
function verify(signature: string | undefined, secret: string, raw: Buffer): void {
  const expected = createHmac('sha256', secret).update(raw).digest();
  const given = Buffer.from(signature ?? '', 'base64');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new ProblemError(401, 'invalid_signature', 'The webhook signature does not verify with this shop connection’s secret; nothing was written.');
  }
}

type Intent = 'create' | 'cancel' | 'ignore';

function intentOf(platform: shops.ShopPlatform, topic: string | undefined, order: ShopOrderPayload): Intent {
  if (platform === 'shopify') return topic === 'orders/create' ? 'create' : topic === 'orders/cancelled' ? 'cancel' : 'ignore';
  if (topic === 'order.created') return order.status === 'cancelled' ? 'cancel' : 'create';
  if (topic === 'order.updated') return order.status === 'cancelled' ? 'cancel' : 'ignore';
  return 'ignore';
}

/** The shop's order id as text: Shopify's ids pass 2^53, so its GraphQL id (a string) is read where present. */
const externalIdOf = (order: ShopOrderPayload) => /\/(\d+)$/.exec(order.admin_graphql_api_id ?? '')?.[1] ?? String(order.id);

/** `WEB-1234`: the connection's code and the shop's order number, in the characters an order number may have. */
const orderNumberOf = (prefix: string, order: ShopOrderPayload) =>
  `${prefix}-${String(order.order_number ?? order.number ?? order.name ?? order.id).replace(/[^A-Za-z0-9._\-/]/g, '')}`.slice(0, 64);

/** A price as a decimal with at most 4 places (WooCommerce answers a float). */
const priceOf = (price: string | number) => (typeof price === 'number' ? (Math.round(price * 10_000) / 10_000).toFixed(4) : price);

async function answerOf(q: Queryable, orgId: string, orderId: string, outcome: Answer['outcome']): Promise<Answer> {
  const order = (await repo.findOrder(q, orgId, orderId))!;
  return { outcome, orderId, orderNumber: order.orderNumber, state: order.state, draftReason: order.draftReason };
}

/** Creates the order (draft with the reasons when a line cannot be made, confirmed otherwise); undefined when it exists already. */
async function createOrder(q: Queryable, orgId: string, shop: shops.ShopConnection, payload: ShopOrderPayload, externalOrderId: string): Promise<string | undefined> {
  const customer = (await repo.findCustomer(q, orgId, shop.customerId))!;
  const currency = payload.currency && currencySchema.safeParse(payload.currency).success ? payload.currency : customer.currency;
  if (!currency) throw invalidInput([{ path: 'currency', message: 'the order names no currency and the shop’s customer has none' }]);
  const reasons: string[] = [];
  const candidates: { line: number; input: OrderLineInput }[] = [];
  payload.line_items.forEach((item, i) => {
    const label = `line ${i + 1} (${item.name ?? item.title ?? 'unnamed'})`;
    const price = priceOf(item.price);
    if (!item.sku) reasons.push(`${label}: no SKU`);
    else if (!codeSchema.safeParse(item.sku).success) reasons.push(`${label}: no product has SKU ${item.sku}`);
    else if (!/^\d{1,12}(\.\d{1,4})?$/.test(price)) reasons.push(`${label}: price ${item.price} is not a price`);
    else candidates.push({ line: i, input: { productSku: item.sku, quantityUnits: item.quantity, unitPrice: price } });
  });
  const resolved = await resolveLines(q, orgId, candidates.map((c) => c.input));
  for (const error of [...resolved.missing, ...resolved.invalid]) {
    const candidate = candidates[Number(/^lines\[(\d+)\]/.exec(error.path)![1])];
    const item = payload.line_items[candidate.line];
    reasons.push(`line ${candidate.line + 1} (${item.name ?? item.title ?? 'unnamed'}): ${error.message}`);
  }
  const draftReason = reasons.length > 0 ? reasons.join('; ') : null;
  const orderId = await repo.insertOrderUnlessTaken(q, orgId, shop.id, {
    orderNumber: orderNumberOf(shop.code, payload),
    customerId: customer.id,
    channel: 'webstore',
    externalOrderId,
    currency,
    requestedShipAt: null,
    shopConnectionId: shop.id,
    draftReason,
  });
  if (!orderId) {
    if (await shops.findShopOrderId(q, orgId, shop.id, externalOrderId)) return undefined;
    throw conflict('duplicate', `Another order already has the number ${orderNumberOf(shop.code, payload)}.`, {
      errors: [{ path: 'order_number', message: 'already used in this organization' }],
    });
  }
  await repo.insertOrderLines(q, orgId, orderId, resolved.lines, { roastedLots: new Map(), greenLots: new Map() });
  await writeEvent(q, orgId, 'orders.order.created', { order: await orderOrThrow(q, orgId, orderId) });
  if (!draftReason) {
    await repo.confirmOrder(q, orgId, orderId);
    await writeEvent(q, orgId, 'orders.order.confirmed', { order: await orderOrThrow(q, orgId, orderId) });
  }
  return orderId;
}

/** Cancels the order unless it shipped or is canceled already (then it is left as it is). */
async function cancel(q: Queryable, orgId: string, orderId: string, reason: string | null | undefined): Promise<boolean> {
  const locked = (await repo.lockOrder(q, orgId, orderId))!;
  if (!['draft', 'confirmed', 'partially_allocated', 'allocated'].includes(locked.state)) return false;
  const released = await repo.releaseClaims(q, orgId, { orderId });
  await repo.cancelOrder(q, orgId, orderId, `canceled in the shop${reason ? `: ${reason}` : ''}`);
  await writeEvent(q, orgId, 'orders.order.canceled', { order: await orderOrThrow(q, orgId, orderId), released });
  return true;
}

export const shopOrderSurface = defineSurface({
  name: 'orders.receiveShopOrder',
  method: 'POST',
  path: '/hooks/v1/orgs/:orgId/shops/:shopId/orders',
  tag: 'orders',
  summary: 'A web shop’s order webhook: Shopify orders/create and orders/cancelled, WooCommerce order.created and order.updated (extension).',
  description:
    'Posted by the shop connected with orders.createShopConnection (its `webhookPath`), signed by it: Shopify’s `X-Shopify-Hmac-Sha256` or ' +
    'WooCommerce’s `X-WC-Webhook-Signature`, base64 HMAC-SHA256 of the raw body with the connection’s secret; a missing or wrong ' +
    'signature is 401 `invalid_signature` and writes nothing. An unknown organization or connection (another organization’s, a deleted ' +
    'one) is 404. The topic (`X-Shopify-Topic`, `X-WC-Webhook-Topic`) decides: an order created becomes an order of the connection’s ' +
    'customer, channel webstore, numbered `<code>-<shop order number>`, `externalOrderId` the shop’s order id; each line’s SKU names a ' +
    'product and its quantity is units of it (bags, through the product’s net weight), priced per unit. A line without a SKU, with a SKU ' +
    'no product has, or whose product cannot fill it (no profile or blend, no net weight) is left out and the order stays a draft with ' +
    '`draftReason` naming each; otherwise it is confirmed. The same shop order again answers `existing` and writes nothing. A ' +
    'cancellation (Shopify orders/cancelled; WooCommerce status `cancelled`) cancels the order, releasing its claims (one not received ' +
    'before is created and canceled, so a late creation finds it); a shipped order is left as it is. Other topics answer `ignored`.',
  credentials: ['none'],
  rate: [{ budget: 'shop_webhooks', per: (request: FastifyRequest) => shopKey(request) }],
  params: z.strictObject({
    orgId: z.string().describe('The organization (`org_…`).'),
    shopId: z.string().describe('The shop connection (`shp_…`).'),
  }),
  headers: z.object({
    'x-shopify-hmac-sha256': z.string().optional().describe('Shopify: base64 HMAC-SHA256 of the raw body with the connection’s secret.'),
    'x-shopify-topic': z.string().optional().describe('Shopify: orders/create or orders/cancelled.'),
    'x-wc-webhook-signature': z.string().optional().describe('WooCommerce: base64 HMAC-SHA256 of the raw body with the connection’s secret.'),
    'x-wc-webhook-topic': z.string().optional().describe('WooCommerce: order.created or order.updated.'),
  }),
  body: { contentType: 'application/json', schema: ShopOrderPayload, required: true },
  answers: { 200: { description: 'What the webhook did, and the order it concerns.', schema: Answer } },
  errors: ['not_found', 'invalid_signature', 'invalid_input', 'duplicate'],
  examples: {
    params: { orgId: 'org_01m8gem0w9k2v3c4x5z6b7n8q1', shopId: 'shp_01m8gem1f3dh886g1h0tkgz5yt' },
    request: {
      id: 820982911946154508,
      admin_graphql_api_id: 'gid://shopify/Order/820982911946154508',
      name: '#9999',
      order_number: 1234,
      currency: 'USD',
      line_items: [{ name: 'Ethiopia Guji 250 g', sku: 'ETH-250-WB', quantity: 2, price: '12.90' }],
    },
    answers: { 200: { outcome: 'created', orderId: 'so_01m8getzp7djbzrqfgmznhj490', orderNumber: 'WEB-1234', state: 'confirmed', draftReason: null } },
  },
  async handler(request, reply, { deps }) {
    const { orgId, shopId } = request.params as { orgId: string; shopId: string };
    if (!idOf.safeParse(orgId).success || !idOf.safeParse(shopId).success) throw notFound('shop connection', shopId, 'shopId');
    const headers = request.headers as Record<string, string | undefined>;
    const answer = await deps.db.transaction(
      async (tx): Promise<Answer> => {
        const found = await shops.findShop(tx, orgId, shopId);
        if (!found) throw notFound('shop connection', shopId, 'shopId');
        const { shop } = found;
        verify(headers[HEADERS[shop.platform].signature], decryptSecret(loadSecretKey(deps.services.config), found.secretEncrypted), request.rawBody ?? Buffer.alloc(0));
        const parsed = ShopOrderPayload.safeParse(request.body);
        if (!parsed.success) throw invalidInput(fieldErrors(parsed.error).slice(0, 50), 'The order payload is not one this service reads; nothing was written.');
        const payload = parsed.data;
        const intent = intentOf(shop.platform, headers[HEADERS[shop.platform].topic], payload);
        if (intent === 'ignore') return { outcome: 'ignored', orderId: null, orderNumber: null, state: null, draftReason: null };
        const externalOrderId = externalIdOf(payload);
        let orderId = await shops.findShopOrderId(tx, orgId, shop.id, externalOrderId);
        let created = false;
        if (!orderId) {
          // undefined: a concurrent delivery of the same order committed it first.
          const made = await createOrder(tx, orgId, shop, payload, externalOrderId);
          created = made !== undefined;
          orderId = made ?? (await shops.findShopOrderId(tx, orgId, shop.id, externalOrderId))!;
        }
        if (intent === 'cancel') return answerOf(tx, orgId, orderId, (await cancel(tx, orgId, orderId, payload.cancel_reason)) ? 'canceled' : 'existing');
        return answerOf(tx, orgId, orderId, created ? 'created' : 'existing');
      },
      { orgId },
    );
    return reply.code(200).send(answer);
  },
});

/** The budget key: the connection named in the path (an anonymous caller counts against the shop it names). */
function shopKey(request: FastifyRequest): string {
  const { orgId, shopId } = request.params as { orgId: string; shopId: string };
  return `shop:${orgId}:${shopId}`;
}
