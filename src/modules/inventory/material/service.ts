import type { z } from 'zod';
import type { Queryable } from '../../../db/client.js';
import { alreadyUsed, referenceNotFound, type ProblemError } from '../../../rpc/errors.js';
import { findPartner } from '../../catalog/party/service.js';
import * as repo from './repository.js';
import type { CreateMaterial } from './schemas.js';

/** What other modules may ask of materials: what a product's packaging costs. */

export type MaterialsCost =
  | { billOfMaterialsId: string; version: number; currency: string; perUnit: string; missing: null }
  | { billOfMaterialsId: string | null; version: number | null; currency: null; perUnit: null; missing: 'no_bill_of_materials' | 'material_not_costed' | 'mixed_currencies' };

/**
 * The materials of each product's active bill of materials at their unit costs, per product unit: Σ unit cost ×
 * quantity × (1 + waste % / 100) / yield, 4 decimals half-up (exact SQL numeric). A material without a unit cost,
 * or materials in more than one currency (never converted), leave the cost missing; so does having no active
 * bill of materials.
 */
export async function materialsCostPerUnit(q: Queryable, orgId: string, productIds: string[]): Promise<Map<string, MaterialsCost>> {
  if (productIds.length === 0) return new Map();
  const rows = await q.query<{ product_id: string; bom_id: string | null; version: number | null; uncosted: number; currencies: number; currency: string | null; per_unit: string | null }>(
    `select p.product_id, b.id as bom_id, b.version,
            count(*) filter (where l.line_no is not null and (m.unit_cost is null or m.currency is null))::int as uncosted,
            count(distinct m.currency)::int as currencies, min(m.currency) as currency,
            round(sum(m.unit_cost * l.quantity * (1 + l.waste_pct / 100)) / b.yield_qty, 4)::text as per_unit
     from unnest($2::text[]) p(product_id)
     left join bills_of_materials b on b.org_id = $1 and b.product_id = p.product_id and b.retired_at is null
     left join bill_of_materials_lines l on l.org_id = $1 and l.bill_of_materials_id = b.id
     left join materials m on m.org_id = $1 and m.id = l.material_id
     group by p.product_id, b.id, b.version, b.yield_qty`,
    [orgId, productIds],
  );
  return new Map(
    rows.map((r): [string, MaterialsCost] => {
      const none = (missing: 'no_bill_of_materials' | 'material_not_costed' | 'mixed_currencies'): MaterialsCost => ({ billOfMaterialsId: r.bom_id, version: r.version, currency: null, perUnit: null, missing });
      if (r.bom_id === null || r.version === null) return [r.product_id, none('no_bill_of_materials')];
      if (r.uncosted > 0 || r.per_unit === null || r.currency === null) return [r.product_id, none('material_not_costed')];
      if (r.currencies > 1) return [r.product_id, none('mixed_currencies')];
      return [r.product_id, { billOfMaterialsId: r.bom_id, version: r.version, currency: r.currency, perUnit: r.per_unit, missing: null }];
    }),
  );
}

type NewMaterial = z.output<typeof CreateMaterial>;

/** Creates a material as createMaterial does, with nothing on hand: sku unique per organization (409 duplicate), the supplier a partner of the organization (404 naming supplierPartnerId), by the constraints. */
export function createMaterial(q: Queryable, orgId: string, input: NewMaterial): Promise<repo.Material> {
  return repo.insertMaterial(q, orgId, input);
}

/** Every refusal createMaterial would answer for these inputs, by index: a supplier not a partner of this organization (404), a sku already used (409 duplicate). Reads only. */
export async function materialRefusals(q: Queryable, orgId: string, inputs: NewMaterial[]): Promise<{ index: number; problem: ProblemError }[]> {
  const partners = new Map<string, boolean>();
  for (const id of new Set(inputs.flatMap((i) => (i.supplierPartnerId ? [i.supplierPartnerId] : [])))) partners.set(id, (await findPartner(q, orgId, id)) !== undefined);
  const skus = new Set(await repo.materialSkusInUse(q, orgId, inputs.map((i) => i.sku)));
  return inputs.flatMap((input, index) => [
    ...(input.supplierPartnerId && !partners.get(input.supplierPartnerId) ? [{ index, problem: referenceNotFound('supplierPartnerId') }] : []),
    ...(skus.has(input.sku) ? [{ index, problem: alreadyUsed('sku') }] : []),
  ]);
}
