import type { Queryable } from '../../../db/client.js';
import { SqlParams, iso, likePattern } from '../../../db/sql.js';
import { newId } from '../../../lib/ids.js';
import { decodeCursor, pageOf, type Page } from '../../../db/paging.js';
import type { BlendFilterInput, CreateBlendInput, ROAST_LEVELS } from './schemas.js';

interface BlendRow {
  id: string;
  code: string;
  name: string;
  blend_type: 'pre_roast' | 'post_roast';
  roast_level: (typeof ROAST_LEVELS)[number] | null;
  is_decaf: boolean;
  target_weight_loss_pct: string | null;
  created_at: Date;
}

interface ComponentRow {
  id: string;
  blend_id: string;
  position: number;
  green_lot_id: string;
  ratio_pct: string;
}

/** A component as stored; the green lot's code is green's to tell (see recipes.ts). */
const toComponent = (r: ComponentRow) => ({ id: r.id, greenLotId: r.green_lot_id, ratioPct: r.ratio_pct });

const toBlend = (r: BlendRow, components: ComponentRow[]) => ({
  id: r.id,
  code: r.code,
  name: r.name,
  blendType: r.blend_type,
  roastLevel: r.roast_level,
  isDecaf: r.is_decaf,
  targetWeightLossPct: r.target_weight_loss_pct,
  components: components.map(toComponent),
  createdAt: iso(r.created_at)!,
});

export type BlendRecord = ReturnType<typeof toBlend>;

/** Inserts the recipe and its components; both are immutable from then on. */
export async function insertBlend(
  q: Queryable,
  orgId: string,
  input: Omit<CreateBlendInput, 'targetWeightLossPct'> & { targetWeightLossPct: string | null },
): Promise<string> {
  const id = newId('bln');
  await q.query(
    `insert into blends (org_id, id, code, name, blend_type, roast_level, is_decaf, target_weight_loss_pct)
     values ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [orgId, id, input.code, input.name, input.blendType, input.roastLevel ?? null, input.isDecaf, input.targetWeightLossPct],
  );
  await q.query(
    `insert into blend_components (org_id, id, blend_id, position, green_lot_id, ratio_pct)
     select $1, c.id, $2, c.position, c.green_lot_id, c.ratio_pct
     from unnest($3::text[], $4::text[], $5::numeric[]) with ordinality as c(id, green_lot_id, ratio_pct, position)`,
    [orgId, id, input.components.map(() => newId('blc')), input.components.map((c) => c.greenLotId), input.components.map((c) => c.ratioPct)],
  );
  return id;
}

async function componentsOf(q: Queryable, orgId: string, blendIds: string[]): Promise<Map<string, ComponentRow[]>> {
  const rows = await q.query<ComponentRow>(
    `select c.id, c.blend_id, c.position, c.green_lot_id, c.ratio_pct
     from blend_components c
     where c.org_id = $1 and c.blend_id = any($2::text[]) order by c.blend_id, c.position`,
    [orgId, blendIds],
  );
  const byBlend = new Map<string, ComponentRow[]>();
  for (const r of rows) byBlend.set(r.blend_id, [...(byBlend.get(r.blend_id) ?? []), r]);
  return byBlend;
}

export async function findBlend(q: Queryable, orgId: string, id: string): Promise<BlendRecord | undefined> {
  const [row] = await q.query<BlendRow>(`select * from blends where org_id = $1 and id = $2`, [orgId, id]);
  return row && toBlend(row, (await componentsOf(q, orgId, [id])).get(id) ?? []);
}

export async function listBlends(q: Queryable, orgId: string, filter: BlendFilterInput, page: Page) {
  const params = new SqlParams();
  const where = [`org_id = ${params.add(orgId)}`];
  if (filter.blendType) where.push(`blend_type = ${params.add(filter.blendType)}`);
  if (filter.roastLevel) where.push(`roast_level = ${params.add(filter.roastLevel)}`);
  if (filter.isDecaf !== undefined) where.push(`is_decaf = ${params.add(filter.isDecaf)}`);
  if (filter.q) {
    const p = params.add(likePattern(filter.q));
    where.push(`(name ilike ${p} or code ilike ${p})`);
  }
  const after = decodeCursor(page.cursor, 'blends', ['id']);
  if (after) where.push(`id > ${params.add(String(after[0]))}`);
  const rows = await q.query<BlendRow>(
    `select * from blends where ${where.join(' and ')} order by id limit ${params.add(page.limit + 1)}`,
    params.values,
  );
  const components = await componentsOf(q, orgId, rows.map((r) => r.id));
  return pageOf(rows.map((r) => toBlend(r, components.get(r.id) ?? [])), page.limit, 'blends', (b) => [b.id]);
}

export interface ComponentNeed {
  greenLotId: string;
  ratioPct: string;
  neededKg: string;
}

/**
 * Per component, in recipe order, what `requestedKg` of the blend needs of its green lot. Pre-roast blends
 * are grossed up for roast loss: requested × ratio / (1 − loss), rounded up to the gram so the roaster never
 * comes up short; post-roast blends need requested × ratio (also rounded up).
 */
export async function componentNeeds(q: Queryable, orgId: string, blendId: string, requestedKg: string): Promise<ComponentNeed[]> {
  return q.query<ComponentNeed>(
    `select c.green_lot_id as "greenLotId", c.ratio_pct as "ratioPct",
            (ceil($3::numeric * c.ratio_pct * 1000
                  / case b.blend_type when 'pre_roast' then 100 - b.target_weight_loss_pct else 100 end) / 1000)::numeric(14, 3) as "neededKg"
     from blends b
     join blend_components c on c.org_id = b.org_id and c.blend_id = b.id
     where b.org_id = $1 and b.id = $2
     order by c.position`,
    [orgId, blendId, requestedKg],
  );
}
