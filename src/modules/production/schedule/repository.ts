import type { Queryable } from '../../../db/client.js';
import { iso, isoDate } from '../../../db/sql.js';
import { newId } from '../../../lib/ids.js';
import type { FeasibilityNote, PlannedBatch, RoastLevel } from './planner.js';

// ---------------------------------------------------------------------------------------------------
// Schedules

interface ScheduleRow {
  id: string;
  name: string;
  scheduled_date: Date | string;
  location_id: string | null;
  due_before: Date | string | null;
  max_batches_per_machine: number | null;
  state: 'draft' | 'released';
  notes: FeasibilityNote[];
  credential_id: string;
  released_at: Date | null;
  released_by: string | null;
  created_at: Date;
  updated_at: Date;
}

const toSchedule = (r: ScheduleRow) => ({
  id: r.id,
  name: r.name,
  scheduledDate: isoDate(r.scheduled_date)!,
  locationId: r.location_id,
  dueBefore: isoDate(r.due_before),
  maxBatchesPerMachine: r.max_batches_per_machine,
  /** draft when generated; released once committed to the roasting floor. */
  state: r.state,
  /** Feasibility notes: no_demand, green_short, no_machine_fits, over_capacity. */
  notes: r.notes,
  createdBy: r.credential_id,
  releasedAt: iso(r.released_at),
  releasedBy: r.released_by,
  createdAt: iso(r.created_at)!,
  updatedAt: iso(r.updated_at)!,
});

export type Schedule = ReturnType<typeof toSchedule>;

interface ScheduledBatchRow {
  id: string;
  position: number;
  machine_id: string;
  machine_sequence: number;
  profile_id: string | null;
  green_lot_id: string | null;
  roast_level: RoastLevel | null;
  is_decaf: boolean;
  green_kg: string;
  expected_roasted_kg: string;
  expected_loss_pct: string;
}

const toScheduledBatch = (r: ScheduledBatchRow) => ({
  id: r.id,
  position: r.position,
  machineId: r.machine_id,
  machineSequence: r.machine_sequence,
  profileId: r.profile_id,
  greenLotId: r.green_lot_id,
  roastLevel: r.roast_level,
  isDecaf: r.is_decaf,
  greenKg: r.green_kg,
  expectedRoastedKg: r.expected_roasted_kg,
  expectedLossPct: r.expected_loss_pct,
});

export async function insertSchedule(
  q: Queryable,
  orgId: string,
  credentialId: string,
  schedule: { name: string; scheduledDate: string; locationId: string | null; dueBefore: string | null; maxBatchesPerMachine: number | null; notes: FeasibilityNote[] },
  batches: PlannedBatch[],
): Promise<string> {
  const id = newId('sch');
  await q.query(
    `insert into production_schedules (org_id, id, name, scheduled_date, location_id, due_before, max_batches_per_machine, notes, credential_id)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [orgId, id, schedule.name, schedule.scheduledDate, schedule.locationId, schedule.dueBefore, schedule.maxBatchesPerMachine, JSON.stringify(schedule.notes), credentialId],
  );
  if (batches.length > 0) {
    await q.query(
      `insert into scheduled_batches (org_id, id, schedule_id, position, machine_id, machine_sequence, profile_id, green_lot_id,
         roast_level, is_decaf, green_kg, expected_roasted_kg, expected_loss_pct)
       select $1, b.id, $2, b.position, b.machine_id, b.machine_sequence, b.profile_id, b.green_lot_id, b.roast_level, b.is_decaf,
              b.green_kg, b.expected_roasted_kg, b.expected_loss_pct
       from unnest($3::text[], $4::int[], $5::text[], $6::int[], $7::text[], $8::text[], $9::text[], $10::boolean[], $11::numeric[], $12::numeric[], $13::numeric[])
         as b(id, position, machine_id, machine_sequence, profile_id, green_lot_id, roast_level, is_decaf, green_kg, expected_roasted_kg, expected_loss_pct)`,
      [
        orgId,
        id,
        batches.map(() => newId('sb')),
        batches.map((b) => b.position),
        batches.map((b) => b.machineId),
        batches.map((b) => b.machineSequence),
        batches.map((b) => b.profileId),
        batches.map((b) => b.greenLotId),
        batches.map((b) => b.roastLevel),
        batches.map((b) => b.isDecaf),
        batches.map((b) => b.greenKg),
        batches.map((b) => b.expectedRoastedKg),
        batches.map((b) => b.expectedLossPct),
      ],
    );
  }
  return id;
}

export async function findSchedule(q: Queryable, orgId: string, id: string, options: { forUpdate?: boolean } = {}): Promise<Schedule | undefined> {
  const [row] = await q.query<ScheduleRow>(
    `select * from production_schedules where org_id = $1 and id = $2${options.forUpdate ? ' for no key update' : ''}`,
    [orgId, id],
  );
  return row && toSchedule(row);
}

export async function listScheduledBatches(q: Queryable, orgId: string, scheduleId: string) {
  const rows = await q.query<ScheduledBatchRow>(
    `select * from scheduled_batches where org_id = $1 and schedule_id = $2 order by position`,
    [orgId, scheduleId],
  );
  return rows.map(toScheduledBatch);
}

export async function markReleased(q: Queryable, orgId: string, id: string, credentialId: string): Promise<void> {
  await q.query(
    `update production_schedules set state = 'released', released_at = now(), released_by = $3, updated_at = now()
     where org_id = $1 and id = $2`,
    [orgId, id, credentialId],
  );
}
