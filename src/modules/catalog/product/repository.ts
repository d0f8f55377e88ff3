import type { Queryable } from '../../../db/client.js';
import { SqlParams, iso, likePattern, setClause } from '../../../db/sql.js';
import { newId } from '../../../lib/ids.js';
import { decodeCursor, pageOf, type Page } from '../../../db/paging.js';
import type { PRODUCT_FORMATS, ROAST_LEVELS } from './schemas.js';

type ProductFormat = (typeof PRODUCT_FORMATS)[number];
type RoastLevel = (typeof ROAST_LEVELS)[number];

interface ProductRow {
  id: string;
  sku: string;
  name: string;
  format: ProductFormat;
  net_weight_kg: string | null;
  list_price: string | null;
  currency: string | null;
  barcode: string | null;
  is_active: boolean;
  profile_id: string | null;
  blend_id: string | null;
  roast_level: RoastLevel | null;
  created_at: Date;
  updated_at: Date;
}

export type Product = ReturnType<typeof toProduct>;

const toProduct = (r: ProductRow) => ({
  id: r.id,
  sku: r.sku,
  name: r.name,
  format: r.format,
  netWeightKg: r.net_weight_kg,
  listPrice: r.list_price,
  currency: r.currency,
  barcode: r.barcode,
  isActive: r.is_active,
  profileId: r.profile_id,
  blendId: r.blend_id,
  roastLevel: r.roast_level,
  createdAt: iso(r.created_at)!,
  updatedAt: iso(r.updated_at)!,
});

export interface NewProduct {
  sku: string;
  name: string;
  format: string;
  netWeightKg?: string;
  listPrice?: string;
  currency?: string;
  barcode?: string;
  profileId?: string;
  blendId?: string;
  roastLevel?: string;
}

export async function insertProduct(q: Queryable, orgId: string, input: NewProduct): Promise<Product> {
  const [row] = await q.query<ProductRow>(
    `insert into products (org_id, id, sku, name, format, net_weight_kg, list_price, currency, barcode, profile_id, blend_id, roast_level)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) returning *`,
    [
      orgId, newId('prd'), input.sku, input.name, input.format,
      input.netWeightKg ?? null, input.listPrice ?? null, input.currency ?? null, input.barcode ?? null,
      input.profileId ?? null, input.blendId ?? null, input.roastLevel ?? null,
    ],
  );
  return toProduct(row);
}

/** forUpdate locks the row: updates and bill-of-materials publication for one product take turns. */
export async function findProduct(q: Queryable, orgId: string, id: string, options: { forUpdate?: boolean } = {}): Promise<Product | undefined> {
  const [row] = await q.query<ProductRow>(
    `select * from products where org_id = $1 and id = $2${options.forUpdate ? ' for no key update' : ''}`,
    [orgId, id],
  );
  return row && toProduct(row);
}

export interface ProductChanges {
  name?: string;
  format?: string;
  netWeightKg?: string | null;
  listPrice?: string | null;
  currency?: string | null;
  barcode?: string | null;
  isActive?: boolean;
  profileId?: string | null;
  blendId?: string | null;
  roastLevel?: string | null;
}

export async function updateProduct(q: Queryable, orgId: string, id: string, changes: ProductChanges): Promise<Product> {
  const params = new SqlParams();
  const set = setClause(params, {
    name: changes.name,
    format: changes.format,
    net_weight_kg: changes.netWeightKg,
    list_price: changes.listPrice,
    currency: changes.currency,
    barcode: changes.barcode,
    is_active: changes.isActive,
    profile_id: changes.profileId,
    blend_id: changes.blendId,
    roast_level: changes.roastLevel,
  });
  const [row] = await q.query<ProductRow>(
    `update products set ${set ? `${set}, ` : ''}updated_at = now()
     where org_id = ${params.add(orgId)} and id = ${params.add(id)} returning *`,
    params.values,
  );
  return toProduct(row);
}

export async function listProducts(
  q: Queryable,
  orgId: string,
  filter: { format?: string; isActive?: boolean; q?: string },
  page: Page,
) {
  const params = new SqlParams();
  const where = [`org_id = ${params.add(orgId)}`];
  if (filter.format) where.push(`format = ${params.add(filter.format)}`);
  if (filter.isActive !== undefined) where.push(`is_active = ${params.add(filter.isActive)}`);
  if (filter.q) {
    const p = params.add(likePattern(filter.q));
    where.push(`(name ilike ${p} or sku ilike ${p} or barcode ilike ${p})`);
  }
  const after = decodeCursor(page.cursor, 'products', ['id']);
  if (after) where.push(`id > ${params.add(String(after[0]))}`);
  const rows = await q.query<ProductRow>(
    `select * from products where ${where.join(' and ')} order by id limit ${params.add(page.limit + 1)}`,
    params.values,
  );
  return pageOf(rows.map(toProduct), page.limit, 'products', (p) => [p.id]);
}

/** Which of the ids name no product of this organization. */
export async function missingProductIds(q: Queryable, orgId: string, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await q.query<{ id: string }>(
    `select x.id from unnest($2::text[]) x(id) where not exists (select 1 from products t where t.org_id = $1 and t.id = x.id)`,
    [orgId, ids],
  );
  return rows.map((r) => r.id);
}

/** The organization's products with these SKUs (exact match), by SKU. */
/** Which of these barcodes products of this organization carry. */
export async function barcodesInUse(q: Queryable, orgId: string, barcodes: string[]): Promise<string[]> {
  if (barcodes.length === 0) return [];
  const rows = await q.query<{ barcode: string }>(`select barcode from products where org_id = $1 and barcode = any($2::text[])`, [orgId, barcodes]);
  return rows.map((r) => r.barcode);
}

export async function findProductsBySku(q: Queryable, orgId: string, skus: string[]): Promise<Map<string, Product>> {
  if (skus.length === 0) return new Map();
  const rows = await q.query<ProductRow>(`select * from products where org_id = $1 and sku = any($2::text[])`, [orgId, skus]);
  return new Map(rows.map((r) => [r.sku, toProduct(r)]));
}

/** The organization's products with these ids (missing ones are absent), by id. */
export async function findProducts(q: Queryable, orgId: string, ids: string[]): Promise<Map<string, Product>> {
  if (ids.length === 0) return new Map();
  const rows = await q.query<ProductRow>(`select * from products where org_id = $1 and id = any($2::text[])`, [orgId, ids]);
  return new Map(rows.map((r) => [r.id, toProduct(r)]));
}
