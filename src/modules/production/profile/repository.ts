import type { Queryable } from '../../../db/client.js';
import { SqlParams, iso, likePattern } from '../../../db/sql.js';
import { newId } from '../../../lib/ids.js';
import { decodeCursor, pageOf, type Page } from '../../../db/paging.js';
import type { CreateProfileInput, ProfileFilterInput } from './schemas.js';

interface ProfileRow {
  id: string;
  code: string;
  name: string;
  machine_id: string | null;
  target_charge_kg: string | null;
  target_drop_temp_c: string | null;
  target_total_time_s: number | null;
  target_dtr_pct: string | null;
  notes: string | null;
  shelf_life_days: number | null;
  created_at: Date;
  updated_at: Date;
}

export type Profile = ReturnType<typeof toProfile>;

/** Weights stay exact decimal strings; temperatures and percentages are answered as numbers, like the roast metrics they are compared with. */
const toProfile = (r: ProfileRow) => ({
  id: r.id,
  code: r.code,
  name: r.name,
  machineId: r.machine_id,
  targetChargeKg: r.target_charge_kg,
  targetDropTempC: numberOrNull(r.target_drop_temp_c),
  targetTotalTimeS: r.target_total_time_s,
  targetDtrPct: numberOrNull(r.target_dtr_pct),
  notes: r.notes,
  /** Null: its roasts keep the default 90 days. */
  shelfLifeDays: r.shelf_life_days,
  createdAt: iso(r.created_at)!,
  updatedAt: iso(r.updated_at)!,
});

const numberOrNull = (value: string | null) => (value === null ? null : Number(value));

export async function insertProfile(q: Queryable, orgId: string, input: CreateProfileInput): Promise<Profile> {
  const [row] = await q.query<ProfileRow>(
    `insert into roast_profiles (org_id, id, code, name, machine_id, target_charge_kg, target_drop_temp_c, target_total_time_s, target_dtr_pct, notes, shelf_life_days)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) returning *`,
    [
      orgId, newId('prf'), input.code, input.name, input.machineId ?? null, input.targetChargeKg ?? null, input.targetDropTempC ?? null,
      input.targetTotalTimeS ?? null, input.targetDtrPct ?? null, input.notes ?? null, input.shelfLifeDays ?? null,
    ],
  );
  return toProfile(row);
}

export async function findProfile(q: Queryable, orgId: string, id: string): Promise<Profile | undefined> {
  const [row] = await q.query<ProfileRow>(`select * from roast_profiles where org_id = $1 and id = $2`, [orgId, id]);
  return row && toProfile(row);
}

export async function listProfiles(q: Queryable, orgId: string, filter: ProfileFilterInput, page: Page) {
  const params = new SqlParams();
  const where = [`org_id = ${params.add(orgId)}`];
  if (filter.machineId) where.push(`machine_id = ${params.add(filter.machineId)}`);
  if (filter.q) {
    const p = params.add(likePattern(filter.q));
    where.push(`(name ilike ${p} or code ilike ${p})`);
  }
  const after = decodeCursor(page.cursor, 'profiles', ['id']);
  if (after) where.push(`id > ${params.add(String(after[0]))}`);
  const rows = await q.query<ProfileRow>(
    `select * from roast_profiles where ${where.join(' and ')} order by id limit ${params.add(page.limit + 1)}`,
    params.values,
  );
  return pageOf(rows.map(toProfile), page.limit, 'profiles', (p) => [p.id]);
}

/** Which of the ids name no roast profile of this organization. */
/** The profiles that exist in the organization, by id. */
export async function findProfiles(q: Queryable, orgId: string, ids: string[]): Promise<Map<string, Profile>> {
  if (ids.length === 0) return new Map();
  const rows = await q.query<ProfileRow>(`select * from roast_profiles where org_id = $1 and id = any($2::text[])`, [orgId, ids]);
  return new Map(rows.map((r) => [r.id, toProfile(r)]));
}

export async function missingProfileIds(q: Queryable, orgId: string, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await q.query<{ id: string }>(
    `select x.id from unnest($2::text[]) x(id) where not exists (select 1 from roast_profiles t where t.org_id = $1 and t.id = x.id)`,
    [orgId, ids],
  );
  return rows.map((r) => r.id);
}
