import type { Queryable } from '../../db/client.js';
import { iso } from '../../db/sql.js';
import { newId } from '../../lib/ids.js';
import { decodeCursor, pageOf, type Page } from '../../db/paging.js';

/** Web shop connections (shop_connections): the SQL of shops.ts and shop-webhooks.ts. */

export type ShopPlatform = 'shopify' | 'woocommerce';

interface ShopRow {
  id: string;
  platform: ShopPlatform;
  name: string;
  code: string;
  customer_id: string;
  secret_encrypted: string;
  secret_rotated_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** Where the shop posts its order webhooks. */
export const shopWebhookPath = (orgId: string, shopId: string) => `/hooks/v1/orgs/${orgId}/shops/${shopId}/orders`;

const toShop = (orgId: string, r: ShopRow) => ({
  id: r.id,
  platform: r.platform,
  name: r.name,
  code: r.code,
  customerId: r.customer_id,
  webhookPath: shopWebhookPath(orgId, r.id),
  secretRotatedAt: iso(r.secret_rotated_at),
  createdAt: iso(r.created_at)!,
  updatedAt: iso(r.updated_at)!,
});

export type ShopConnection = ReturnType<typeof toShop>;

export async function insertShop(
  q: Queryable,
  orgId: string,
  input: { platform: ShopPlatform; name: string; code: string; customerId: string; secretEncrypted: string },
): Promise<ShopConnection | undefined> {
  const [row] = await q.query<ShopRow>(
    `insert into shop_connections (org_id, id, platform, name, code, customer_id, secret_encrypted)
     values ($1, $2, $3, $4, $5, $6, $7)
     on conflict (org_id, code) where deleted_at is null do nothing returning *`,
    [orgId, newId('shp'), input.platform, input.name, input.code, input.customerId, input.secretEncrypted],
  );
  return row && toShop(orgId, row);
}

/** A live (not deleted) connection; forUpdate locks it until commit. */
export async function findShop(q: Queryable, orgId: string, id: string, options: { forUpdate?: boolean } = {}) {
  const [row] = await q.query<ShopRow>(
    `select * from shop_connections where org_id = $1 and id = $2 and deleted_at is null${options.forUpdate ? ' for no key update' : ''}`,
    [orgId, id],
  );
  return row && { shop: toShop(orgId, row), secretEncrypted: row.secret_encrypted };
}

export async function listShops(q: Queryable, orgId: string, page: Page) {
  const after = decodeCursor(page.cursor, 'shop_connections', ['id']);
  const rows = await q.query<ShopRow>(
    `select * from shop_connections where org_id = $1 and deleted_at is null and ($2::text is null or id > $2) order by id limit $3`,
    [orgId, after ? String(after[0]) : null, page.limit + 1],
  );
  return pageOf(rows.map((r) => toShop(orgId, r)), page.limit, 'shop_connections', (s) => [s.id]);
}

export async function rotateShopSecret(q: Queryable, orgId: string, id: string, secretEncrypted: string): Promise<ShopConnection> {
  const [row] = await q.query<ShopRow>(
    `update shop_connections set secret_encrypted = $3, secret_rotated_at = now(), updated_at = now() where org_id = $1 and id = $2 returning *`,
    [orgId, id, secretEncrypted],
  );
  return toShop(orgId, row);
}

export async function deleteShop(q: Queryable, orgId: string, id: string): Promise<ShopConnection> {
  const [row] = await q.query<ShopRow>(
    `update shop_connections set deleted_at = now(), updated_at = now() where org_id = $1 and id = $2 returning *`,
    [orgId, id],
  );
  return toShop(orgId, row);
}

/** The order a shop's order became, if it was received before. */
export async function findShopOrderId(q: Queryable, orgId: string, shopId: string, externalOrderId: string): Promise<string | undefined> {
  const [row] = await q.query<{ id: string }>(
    `select id from orders where org_id = $1 and shop_connection_id = $2 and external_order_id = $3`,
    [orgId, shopId, externalOrderId],
  );
  return row?.id;
}
