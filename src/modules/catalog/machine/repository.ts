import type { z } from 'zod';
import type { Queryable } from '../../../db/client.js';
import { SqlParams, iso, isoDate, likePattern, setClause } from '../../../db/sql.js';
import { newId } from '../../../lib/ids.js';
import { decodeCursor, pageOf, type Page } from '../../../db/paging.js';
import type { CONNECTIVITIES, FUELS, MACHINE_TYPES, MachineFilter, RegisterMachine, UpdateMachine } from './schemas.js';

interface MachineRow {
  id: string;
  code: string;
  name: string;
  location_id: string | null;
  brand: string | null;
  model: string | null;
  machine_type: (typeof MACHINE_TYPES)[number] | null;
  /** numeric(10,3): exact decimal strings such as "15.000". */
  capacity_kg: string | null;
  min_batch_kg: string | null;
  max_batch_kg: string | null;
  connectivity: (typeof CONNECTIVITIES)[number] | null;
  installed_at: Date | string | null;
  burner_rating_kw: string | null;
  fuel: (typeof FUELS)[number] | null;
  is_active: boolean;
  created_at: Date;
  updated_at: Date;
}

export type Machine = ReturnType<typeof toMachine>;

const toMachine = (r: MachineRow) => ({
  id: r.id,
  code: r.code,
  name: r.name,
  locationId: r.location_id,
  brand: r.brand,
  model: r.model,
  machineType: r.machine_type,
  capacityKg: r.capacity_kg,
  minBatchKg: r.min_batch_kg,
  maxBatchKg: r.max_batch_kg,
  connectivity: r.connectivity,
  installedAt: isoDate(r.installed_at),
  burnerRatingKw: r.burner_rating_kw,
  fuel: r.fuel,
  isActive: r.is_active,
  createdAt: iso(r.created_at)!,
  updatedAt: iso(r.updated_at)!,
});

export async function countActiveMachines(q: Queryable, orgId: string): Promise<number> {
  const [row] = await q.query<{ n: number }>(`select count(*)::int as n from machines where org_id = $1 and is_active`, [orgId]);
  return row.n;
}

export async function insertMachine(q: Queryable, orgId: string, input: z.output<typeof RegisterMachine>): Promise<Machine> {
  const [row] = await q.query<MachineRow>(
    `insert into machines (org_id, id, code, name, location_id, brand, model, machine_type, capacity_kg, min_batch_kg,
                           max_batch_kg, connectivity, installed_at, burner_rating_kw, fuel)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) returning *`,
    [
      orgId, newId('mch'), input.code, input.name, input.locationId ?? null, input.brand ?? null, input.model ?? null,
      input.machineType ?? null, input.capacityKg ?? null, input.minBatchKg ?? null, input.maxBatchKg ?? null,
      input.connectivity ?? null, input.installedAt ?? null, input.burnerRatingKw ?? null, input.fuel ?? null,
    ],
  );
  return toMachine(row);
}

export async function findMachine(q: Queryable, orgId: string, id: string, options: { forUpdate?: boolean } = {}): Promise<Machine | undefined> {
  const [row] = await q.query<MachineRow>(
    `select * from machines where org_id = $1 and id = $2${options.forUpdate ? ' for no key update' : ''}`,
    [orgId, id],
  );
  return row && toMachine(row);
}

export async function updateMachine(q: Queryable, orgId: string, id: string, changes: Omit<z.output<typeof UpdateMachine>, 'id'>): Promise<Machine> {
  const params = new SqlParams();
  const set = setClause(params, {
    name: changes.name,
    location_id: changes.locationId,
    brand: changes.brand,
    model: changes.model,
    machine_type: changes.machineType,
    capacity_kg: changes.capacityKg,
    min_batch_kg: changes.minBatchKg,
    max_batch_kg: changes.maxBatchKg,
    connectivity: changes.connectivity,
    installed_at: changes.installedAt,
    burner_rating_kw: changes.burnerRatingKw,
    fuel: changes.fuel,
    is_active: changes.isActive,
  });
  const [row] = await q.query<MachineRow>(
    `update machines set ${set ? `${set}, ` : ''}updated_at = now()
     where org_id = ${params.add(orgId)} and id = ${params.add(id)} returning *`,
    params.values,
  );
  return toMachine(row);
}

export async function listMachines(q: Queryable, orgId: string, filter: z.output<typeof MachineFilter>, page: Page) {
  const params = new SqlParams();
  const where = [`org_id = ${params.add(orgId)}`];
  if (filter.machineType) where.push(`machine_type = ${params.add(filter.machineType)}`);
  if (filter.connectivity) where.push(`connectivity = ${params.add(filter.connectivity)}`);
  if (filter.locationId) where.push(`location_id = ${params.add(filter.locationId)}`);
  if (filter.isActive !== undefined) where.push(`is_active = ${params.add(filter.isActive)}`);
  if (filter.q) {
    const p = params.add(likePattern(filter.q));
    where.push(`(name ilike ${p} or code ilike ${p} or brand ilike ${p} or model ilike ${p})`);
  }
  const after = decodeCursor(page.cursor, 'machines', ['id']);
  if (after) where.push(`id > ${params.add(String(after[0]))}`);
  const rows = await q.query<MachineRow>(
    `select * from machines where ${where.join(' and ')} order by id limit ${params.add(page.limit + 1)}`,
    params.values,
  );
  return pageOf(rows.map(toMachine), page.limit, 'machines', (m) => [m.id]);
}

/** Active machines with their batch sizes, at the location when one is given, by code. */
export async function listActiveMachineSizes(q: Queryable, orgId: string, locationId: string | null): Promise<MachineBatchSizes[]> {
  const rows = await q.query<{ id: string; code: string; min_batch_kg: string | null; max_batch_kg: string | null; capacity_kg: string | null }>(
    `select id, code, min_batch_kg, max_batch_kg, capacity_kg from machines
     where org_id = $1 and is_active and ($2::text is null or location_id = $2) order by code`,
    [orgId, locationId],
  );
  return rows.map((r) => ({ id: r.id, code: r.code, minBatchKg: r.min_batch_kg, maxBatchKg: r.max_batch_kg, capacityKg: r.capacity_kg }));
}

export interface MachineBatchSizes {
  id: string;
  code: string;
  minBatchKg: string | null;
  maxBatchKg: string | null;
  capacityKg: string | null;
}
