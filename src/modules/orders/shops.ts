import { z } from 'zod';
import { defineOperation } from '../../rpc/define.js';
import { conflict, throwNotFound } from '../../rpc/errors.js';
import { code, id, name, page, strict } from '../../rpc/schemas.js';
import { idOut, out, pageOut, timeOut } from '../../rpc/outputs.js';
import { encryptSecret, loadSecretKey } from '../../crypto/secrets.js';
import * as repo from './repository.js';
import * as shops from './shop-repository.js';

/**
 * Web shop connections (extension): a Shopify or WooCommerce shop posting its order webhooks to its own
 * address (shop-webhooks.ts), signed with the shop's secret, which is stored encrypted like webhook
 * endpoints' secrets (src/crypto/secrets.ts) and never answered.
 */

export const SHOP_PLATFORMS = ['shopify', 'woocommerce'] as const;

/** The shop's signing secret as the shop shows it: Shopify's app client secret, WooCommerce's webhook secret. */
const secret = z.string().min(8, 'at least 8 characters').max(500);

export const CreateShopConnection = strict({
  platform: z.enum(SHOP_PLATFORMS),
  name,
  /** Prefixes the shop's order numbers (`WEB-1234`); unique per organization among live connections. */
  code,
  /** The customer the shop's orders are booked to. */
  customerId: id('customerId'),
  secret,
});
export const ListShopConnections = strict({ page });
export const RotateShopSecret = strict({ id: id(), secret });
export const ShopById = strict({ id: id() });

export const ShopConnection = out({
  id: idOut,
  platform: z.enum(SHOP_PLATFORMS),
  name: z.string(),
  code: z.string(),
  customerId: idOut,
  /** Where the shop posts its order webhooks (POST, on this service's host). */
  webhookPath: z.string(),
  secretRotatedAt: timeOut.nullable(),
  createdAt: timeOut,
  updatedAt: timeOut,
}).meta({ id: 'ShopConnection' });

const feature = 'orders' as const;
const sealed = (ctx: { services: { config: Parameters<typeof loadSecretKey>[0] } }, plain: string) => encryptSecret(loadSecretKey(ctx.services.config), plain);

export const shopOperations = [
  defineOperation({
    name: 'orders.createShopConnection',
    summary: 'Connect a Shopify or WooCommerce shop: its orders arrive by webhook at its own address (extension).',
    description:
      '`platform` (shopify, woocommerce), `name`, `code` (prefixes the shop’s order numbers, `WEB-1234`; unique among the organization’s ' +
      'connections, 409 `duplicate` naming `code`), `customerId` (the customer its orders are booked to; 404 naming it when unknown) and ' +
      '`secret`, the shop’s signing secret (Shopify: the app’s client secret; WooCommerce: the webhook’s secret), stored encrypted and never ' +
      'answered. Answers the connection with `webhookPath`, the address to give the shop (topics orders/create and orders/cancelled; ' +
      'order.created and order.updated).',
    extension: true,
    permission: 'orders.write',
    feature,
    get: false,
    input: CreateShopConnection,
    output: ShopConnection,
    errors: ['not_found', 'duplicate'],
    async handler(ctx, input) {
      (await repo.findCustomer(ctx.tx, ctx.orgId, input.customerId)) ?? throwNotFound('customer', input.customerId, 'customerId');
      const shop = await shops.insertShop(ctx.tx, ctx.orgId, { ...input, secretEncrypted: sealed(ctx, input.secret) });
      if (!shop) {
        throw conflict('duplicate', 'Another shop connection of this organization has this code.', { errors: [{ path: 'code', message: 'already used' }] });
      }
      return shop;
    },
  }),

  defineOperation({
    name: 'orders.listShopConnections',
    summary: 'The organization’s web shop connections, oldest first (extension).',
    description: 'Deleted connections are left out; secrets are never answered.',
    extension: true,
    permission: 'orders.read',
    feature,
    get: true,
    input: ListShopConnections,
    output: pageOut(ShopConnection),
    errors: ['invalid_cursor'],
    async handler(ctx, { page }) {
      return shops.listShops(ctx.tx, ctx.orgId, page);
    },
  }),

  defineOperation({
    name: 'orders.rotateShopSecret',
    summary: 'Replace a shop connection’s signing secret (extension).',
    description:
      'From the commit on, webhooks verify only with the new secret (rotate it in the shop first: deliveries signed with the old one are ' +
      'refused and the shop retries them). Another organization’s connection, or a deleted one, is 404.',
    extension: true,
    permission: 'orders.write',
    feature,
    get: false,
    input: RotateShopSecret,
    output: ShopConnection,
    errors: ['not_found'],
    async handler(ctx, { id, secret }) {
      (await shops.findShop(ctx.tx, ctx.orgId, id, { forUpdate: true })) ?? throwNotFound('shop connection', id);
      return shops.rotateShopSecret(ctx.tx, ctx.orgId, id, sealed(ctx, secret));
    },
  }),

  defineOperation({
    name: 'orders.deleteShopConnection',
    summary: 'Disconnect a web shop: its webhooks answer 404 from now on; its orders stay (extension).',
    description: 'Deleting twice, or another organization’s connection, is 404.',
    extension: true,
    permission: 'orders.write',
    feature,
    get: false,
    input: ShopById,
    output: ShopConnection,
    errors: ['not_found'],
    async handler(ctx, { id }) {
      (await shops.findShop(ctx.tx, ctx.orgId, id, { forUpdate: true })) ?? throwNotFound('shop connection', id);
      return shops.deleteShop(ctx.tx, ctx.orgId, id);
    },
  }),
];
