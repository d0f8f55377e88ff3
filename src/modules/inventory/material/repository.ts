import type { Queryable } from '../../../db/client.js';
import { SqlParams, iso, likePattern } from '../../../db/sql.js';
import { newId } from '../../../lib/ids.js';
import { decodeCursor, pageOf, type Page } from '../../../db/paging.js';
import type { MATERIAL_KINDS, MaterialReason } from './schemas.js';

type MaterialKind = (typeof MATERIAL_KINDS)[number];

// ---------------------------------------------------------------------------------------------------
// Materials

interface MaterialRow {
  id: string;
  sku: string;
  name: string;
  kind: MaterialKind;
  unit_cost: string | null;
  currency: string | null;
  reorder_point: string | null;
  reorder_qty: string | null;
  lead_time_days: number | null;
  supplier_partner_id: string | null;
  on_hand: string;
  below_reorder_point: boolean;
  is_active: boolean;
  created_at: Date;
  updated_at: Date;
}

export type Material = ReturnType<typeof toMaterial>;

const toMaterial = (r: MaterialRow) => ({
  id: r.id,
  sku: r.sku,
  name: r.name,
  kind: r.kind,
  unitCost: r.unit_cost,
  currency: r.currency,
  reorderPoint: r.reorder_point,
  reorderQty: r.reorder_qty,
  leadTimeDays: r.lead_time_days,
  supplierPartnerId: r.supplier_partner_id,
  onHand: r.on_hand,
  belowReorderPoint: r.below_reorder_point,
  isActive: r.is_active,
  createdAt: iso(r.created_at)!,
  updatedAt: iso(r.updated_at)!,
});

/** The one definition of "below reorder point", shared by reads and the list filter. */
const BELOW_REORDER_POINT = `(reorder_point is not null and on_hand < reorder_point)`;
const MATERIAL_COLUMNS = `*, ${BELOW_REORDER_POINT} as below_reorder_point`;

export interface NewMaterial {
  sku: string;
  name: string;
  kind: string;
  unitCost?: string;
  currency?: string;
  reorderPoint?: string;
  reorderQty?: string;
  leadTimeDays?: number;
  supplierPartnerId?: string;
}

/** A material starts with nothing on hand; stock arrives through the ledger (reason receive). */
export async function insertMaterial(q: Queryable, orgId: string, input: NewMaterial): Promise<Material> {
  const [row] = await q.query<MaterialRow>(
    `insert into materials (org_id, id, sku, name, kind, unit_cost, currency, reorder_point, reorder_qty, lead_time_days, supplier_partner_id)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) returning ${MATERIAL_COLUMNS}`,
    [
      orgId, newId('mat'), input.sku, input.name, input.kind, input.unitCost ?? null, input.currency ?? null,
      input.reorderPoint ?? null, input.reorderQty ?? null, input.leadTimeDays ?? null, input.supplierPartnerId ?? null,
    ],
  );
  return toMaterial(row);
}

/** Which of these skus materials of this organization use. */
export async function materialSkusInUse(q: Queryable, orgId: string, skus: string[]): Promise<string[]> {
  if (skus.length === 0) return [];
  const rows = await q.query<{ sku: string }>(`select sku from materials where org_id = $1 and sku = any($2::text[])`, [orgId, skus]);
  return rows.map((r) => r.sku);
}

/** forUpdate locks the row, which serializes every movement of this material's balance. */
export async function findMaterial(q: Queryable, orgId: string, id: string, options: { forUpdate?: boolean } = {}): Promise<Material | undefined> {
  const [row] = await q.query<MaterialRow>(
    `select ${MATERIAL_COLUMNS} from materials where org_id = $1 and id = $2${options.forUpdate ? ' for no key update' : ''}`,
    [orgId, id],
  );
  return row && toMaterial(row);
}

/** Which of these ids name materials of this organization. */
export async function existingMaterialIds(q: Queryable, orgId: string, ids: string[]): Promise<Set<string>> {
  const params = new SqlParams();
  const org = params.add(orgId);
  const list = ids.map((id) => params.add(id)).join(', ');
  const rows = await q.query<{ id: string }>(`select id from materials where org_id = ${org} and id in (${list})`, params.values);
  return new Set(rows.map((r) => r.id));
}

export async function listMaterials(
  q: Queryable,
  orgId: string,
  filter: { kind?: string; supplierPartnerId?: string; belowReorderPoint?: boolean; isActive?: boolean; q?: string },
  page: Page,
) {
  const params = new SqlParams();
  const where = [`org_id = ${params.add(orgId)}`];
  if (filter.kind) where.push(`kind = ${params.add(filter.kind)}`);
  if (filter.supplierPartnerId) where.push(`supplier_partner_id = ${params.add(filter.supplierPartnerId)}`);
  if (filter.belowReorderPoint !== undefined) where.push(filter.belowReorderPoint ? BELOW_REORDER_POINT : `not ${BELOW_REORDER_POINT}`);
  if (filter.isActive !== undefined) where.push(`is_active = ${params.add(filter.isActive)}`);
  if (filter.q) {
    const p = params.add(likePattern(filter.q));
    where.push(`(name ilike ${p} or sku ilike ${p})`);
  }
  const after = decodeCursor(page.cursor, 'materials', ['id']);
  if (after) where.push(`id > ${params.add(String(after[0]))}`);
  const rows = await q.query<MaterialRow>(
    `select ${MATERIAL_COLUMNS} from materials where ${where.join(' and ')} order by id limit ${params.add(page.limit + 1)}`,
    params.values,
  );
  return pageOf(rows.map(toMaterial), page.limit, 'materials', (m) => [m.id]);
}

// ---------------------------------------------------------------------------------------------------
// The quantity ledger

interface MaterialTransactionRow {
  id: string;
  material_id: string;
  reason: MaterialReason;
  delta_qty: string;
  balance_after: string;
  location_id: string | null;
  credential_id: string;
  comment: string | null;
  created_at: Date;
}

export type MaterialTransaction = ReturnType<typeof toTransaction>;

const toTransaction = (r: MaterialTransactionRow) => ({
  id: r.id,
  materialId: r.material_id,
  reason: r.reason,
  deltaQty: r.delta_qty,
  balanceAfter: r.balance_after,
  locationId: r.location_id,
  credentialId: r.credential_id,
  comment: r.comment,
  createdAt: iso(r.created_at)!,
});

export interface Movement {
  deltaQty: string;
  reason: MaterialReason;
  locationId?: string;
  comment?: string;
  credentialId: string;
}

/**
 * Moves a material's balance and appends the ledger row that explains it, together: the only way
 * on_hand changes, so on_hand = sum(delta_qty) holds. The caller holds the material's row lock. Only
 * reason recount may take the balance below zero; any other decrease that would is refused (undefined
 * is returned and nothing is written). An increase is always allowed, even onto a negative balance.
 */
export async function applyMovement(
  q: Queryable,
  orgId: string,
  materialId: string,
  movement: Movement,
): Promise<{ material: Material; transaction: MaterialTransaction } | undefined> {
  const [row] = await q.query<MaterialRow>(
    `update materials set on_hand = on_hand + $3::numeric, updated_at = now()
     where org_id = $1 and id = $2 and ($4 or $3::numeric > 0 or on_hand + $3::numeric >= 0)
     returning ${MATERIAL_COLUMNS}`,
    [orgId, materialId, movement.deltaQty, movement.reason === 'recount'],
  );
  if (!row) return undefined;
  const [ledger] = await q.query<MaterialTransactionRow>(
    `insert into material_transactions (org_id, id, material_id, reason, delta_qty, balance_after, location_id, credential_id, comment)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9) returning *`,
    [
      orgId, newId('mtx'), materialId, movement.reason, movement.deltaQty, row.on_hand,
      movement.locationId ?? null, movement.credentialId, movement.comment ?? null,
    ],
  );
  return { material: toMaterial(row), transaction: toTransaction(ledger) };
}

// ---------------------------------------------------------------------------------------------------
// Bills of materials

interface BillOfMaterialsRow {
  id: string;
  product_id: string;
  version: number;
  name: string;
  yield_qty: number;
  published_by: string;
  published_at: Date;
  retired_at: Date | null;
}

interface BillOfMaterialsLineRow {
  bill_of_materials_id: string;
  line_no: number;
  material_id: string;
  material_sku: string;
  material_name: string;
  material_kind: MaterialKind;
  quantity: string;
  waste_pct: string;
}

export type BillOfMaterials = ReturnType<typeof toBillOfMaterials>;

const toLine = (r: BillOfMaterialsLineRow) => ({
  lineNo: r.line_no,
  materialId: r.material_id,
  materialSku: r.material_sku,
  materialName: r.material_name,
  materialKind: r.material_kind,
  quantity: r.quantity,
  wastePct: r.waste_pct,
});

const toBillOfMaterials = (r: BillOfMaterialsRow, lines: BillOfMaterialsLineRow[]) => ({
  id: r.id,
  productId: r.product_id,
  version: r.version,
  name: r.name,
  yieldQty: r.yield_qty,
  publishedBy: r.published_by,
  publishedAt: iso(r.published_at)!,
  retiredAt: iso(r.retired_at),
  lines: lines.filter((l) => l.bill_of_materials_id === r.id).map(toLine),
});

export interface NewBillOfMaterials {
  productId: string;
  name: string;
  yieldQty: number;
  lines: { materialId: string; quantity: string; wastePct?: string }[];
  publishedBy: string;
}

/**
 * Retires the product's active version (if any) and publishes the next one. The caller holds the
 * product's row lock, so version numbers are gapless and at most one version is active; the partial
 * unique index bills_of_materials_one_active backs that up.
 */
export async function publishBillOfMaterials(
  q: Queryable,
  orgId: string,
  input: NewBillOfMaterials,
): Promise<{ published: BillOfMaterials; retiredVersion: number | null }> {
  const [retired] = await q.query<{ version: number }>(
    `update bills_of_materials set retired_at = clock_timestamp()
     where org_id = $1 and product_id = $2 and retired_at is null returning version`,
    [orgId, input.productId],
  );
  const id = newId('bom');
  await q.query(
    `insert into bills_of_materials (org_id, id, product_id, version, name, yield_qty, published_by)
     select $1, $2, $3, coalesce(max(version), 0) + 1, $4, $5, $6
     from bills_of_materials where org_id = $1 and product_id = $3`,
    [orgId, id, input.productId, input.name, input.yieldQty, input.publishedBy],
  );
  const params = new SqlParams();
  const org = params.add(orgId);
  const bom = params.add(id);
  const values = input.lines
    .map((line, index) => `(${org}, ${bom}, ${index + 1}, ${params.add(line.materialId)}, ${params.add(line.quantity)}::numeric, ${params.add(line.wastePct ?? '0')}::numeric)`)
    .join(', ');
  await q.query(
    `insert into bill_of_materials_lines (org_id, bill_of_materials_id, line_no, material_id, quantity, waste_pct) values ${values}`,
    params.values,
  );
  const [published] = await findBillsOfMaterials(q, orgId, input.productId, { id });
  return { published, retiredVersion: retired?.version ?? null };
}

/** Every version of the product's bill of materials (or just the one with `id`) with its lines, newest first. */
export async function findBillsOfMaterials(
  q: Queryable,
  orgId: string,
  productId: string,
  only: { id?: string } = {},
): Promise<BillOfMaterials[]> {
  const params = new SqlParams();
  const where = [`b.org_id = ${params.add(orgId)}`, `b.product_id = ${params.add(productId)}`];
  if (only.id) where.push(`b.id = ${params.add(only.id)}`);
  const versions = await q.query<BillOfMaterialsRow>(
    `select * from bills_of_materials b where ${where.join(' and ')} order by version desc`,
    params.values,
  );
  if (versions.length === 0) return [];
  const lines = await q.query<BillOfMaterialsLineRow>(
    `select l.bill_of_materials_id, l.line_no, l.material_id, m.sku as material_sku, m.name as material_name,
            m.kind as material_kind, l.quantity, l.waste_pct
     from bills_of_materials b
     join bill_of_materials_lines l on l.org_id = b.org_id and l.bill_of_materials_id = b.id
     join materials m on m.org_id = l.org_id and m.id = l.material_id
     where ${where.join(' and ')}
     order by l.bill_of_materials_id, l.line_no`,
    params.values,
  );
  return versions.map((v) => toBillOfMaterials(v, lines));
}

// ---------------------------------------------------------------------------------------------------
// Requirements explosion

interface RequirementRow {
  bill_of_materials_id: string;
  version: number;
  yield_qty: number;
  material_id: string;
  sku: string;
  name: string;
  kind: MaterialKind;
  quantity_per_yield: string;
  waste_pct: string;
  required: string;
  on_hand: string;
  short_by: string;
  remaining_after: string;
  reorder_point: string | null;
  falls_below_reorder_point: boolean;
  lead_time_days: number | null;
  can_produce: boolean;
  max_producible: string;
  longest_lead_time_days: number | null;
  short_count: number;
}

/** Beyond this, a count no longer survives JSON numbers exactly; the answer is "effectively unlimited". */
const MAX_JSON_INTEGER = '9007199254740991';

/**
 * What making `quantity` units of the product takes from each material of its active bill of materials,
 * in exact numeric arithmetic: required = quantity / yieldQty × line quantity × (1 + wastePct / 100),
 * rounded UP to the unit's 3 decimals so a shortage is never understated. A material's producible count
 * is the largest n whose requirement fits on hand; since on hand has 3 decimals too, that is the integer
 * quotient on_hand × yieldQty × 100 / (quantity × (100 + wastePct)), computed with div() (exact truncation).
 * Undefined when the product has no active bill of materials.
 */
export async function explodeRequirements(q: Queryable, orgId: string, productId: string, quantity: number) {
  const rows = await q.query<RequirementRow>(
    `with active as (
       select id, version, yield_qty from bills_of_materials
       where org_id = $1 and product_id = $2 and retired_at is null
     ), needs as (
       select b.id as bill_of_materials_id, b.version, b.yield_qty, l.line_no, m.id as material_id, m.sku, m.name, m.kind,
              l.quantity as quantity_per_yield, l.waste_pct, m.on_hand, m.reorder_point, m.lead_time_days,
              -- thousandths of the unit, before rounding up: quantity × line quantity × (100 + waste) × 1000 / (yield × 100)
              $3::numeric * l.quantity * (100 + l.waste_pct) * 1000 as numerator,
              b.yield_qty * 100 as denominator
       from active b
       join bill_of_materials_lines l on l.org_id = $1 and l.bill_of_materials_id = b.id
       join materials m on m.org_id = $1 and m.id = l.material_id
     ), required as (
       select *,
              round((div(numerator, denominator) + case when mod(numerator, denominator) = 0 then 0 else 1 end) / 1000, 3) as required,
              div(greatest(on_hand, 0) * yield_qty * 100, quantity_per_yield * (100 + waste_pct)) as producible
       from needs
     )
     select bill_of_materials_id, version, yield_qty, material_id, sku, name, kind, quantity_per_yield, waste_pct,
            required, on_hand, greatest(required - on_hand, 0)::numeric(30, 3) as short_by,
            (on_hand - required)::numeric(30, 3) as remaining_after, reorder_point,
            coalesce(on_hand - required < reorder_point, false) as falls_below_reorder_point, lead_time_days,
            bool_and(required <= on_hand) over () as can_produce,
            least(min(producible) over (), ${MAX_JSON_INTEGER})::text as max_producible,
            max(lead_time_days) filter (where required > on_hand) over () as longest_lead_time_days,
            (count(*) filter (where required > on_hand) over ())::int as short_count
     from required
     order by line_no`,
    [orgId, productId, quantity],
  );
  if (rows.length === 0) return undefined;
  const [first] = rows;
  return {
    productId,
    quantity,
    billOfMaterials: { id: first.bill_of_materials_id, version: first.version, yieldQty: first.yield_qty },
    materials: rows.map((r) => ({
      materialId: r.material_id,
      sku: r.sku,
      name: r.name,
      kind: r.kind,
      quantityPerYield: r.quantity_per_yield,
      wastePct: r.waste_pct,
      required: r.required,
      onHand: r.on_hand,
      shortBy: r.short_by,
      remainingAfter: r.remaining_after,
      reorderPoint: r.reorder_point,
      fallsBelowReorderPoint: r.falls_below_reorder_point,
      leadTimeDays: r.lead_time_days,
    })),
    summary: {
      canProduce: first.can_produce,
      maxProducibleQuantity: Number(first.max_producible),
      shortMaterialCount: first.short_count,
      longestLeadTimeDays: first.longest_lead_time_days,
    },
  };
}
