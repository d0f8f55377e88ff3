import type { Queryable } from '../../../db/client.js';
import { SqlParams, iso, likePattern, setClause } from '../../../db/sql.js';
import { newId } from '../../../lib/ids.js';
import { decodeCursor, pageOf, type Page } from '../../../db/paging.js';
import type { PRODUCT_FORMATS } from './schemas.js';

type ProductFormat = (typeof PRODUCT_FORMATS)[number];

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
}

export async function insertProduct(q: Queryable, orgId: string, input: NewProduct): Promise<Product> {
  const [row] = await q.query<ProductRow>(
    `insert into products (org_id, id, sku, name, format, net_weight_kg, list_price, currency, barcode)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9) returning *`,
    [
      orgId, newId('prd'), input.sku, input.name, input.format,
      input.netWeightKg ?? null, input.listPrice ?? null, input.currency ?? null, input.barcode ?? null,
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
