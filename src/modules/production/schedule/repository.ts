import type { Queryable } from '../../../db/client.js';
import { iso, isoDate } from '../../../db/sql.js';
import { newId } from '../../../lib/ids.js';
import { DEFAULT_PRE_ROAST_LOSS_PCT } from '../../inventory/blend/schemas.js';
import type { DemandItem, FeasibilityNote, PlannedBatch, RoastLevel } from './planner.js';

// ---------------------------------------------------------------------------------------------------
// Demand

interface DemandRow {
  profile_id: string | null;
  profile_code: string | null;
  profile_machine_id: string | null;
  target_drop_temp_c: string | null;
  green_lot_id: string | null;
  green_lot_code: string | null;
  roast_level: RoastLevel | null;
  is_decaf: boolean;
  ordered_kg: string;
  allocated_kg: string;
  open_kg: string;
  line_count: number;
  earliest_due_date: Date | string | null;
  expected_loss_pct: string;
  expected_loss_source: 'demand' | 'profile_history' | 'default';
}

export type DemandAggregateItem = ReturnType<typeof toDemand>;

const toDemand = (r: DemandRow) => ({
  profileId: r.profile_id,
  profileCode: r.profile_code,
  profileMachineId: r.profile_machine_id,
  targetDropTempC: r.target_drop_temp_c === null ? null : Number(r.target_drop_temp_c),
  greenLotId: r.green_lot_id,
  greenLotCode: r.green_lot_code,
  roastLevel: r.roast_level,
  isDecaf: r.is_decaf,
  /** Roasted kilograms on the confirmed order lines. */
  orderedKg: r.ordered_kg,
  /** Of those, already allocated from roasted stock. */
  allocatedKg: r.allocated_kg,
  /** Still to roast: ordered less allocated, line by line. */
  openKg: r.open_kg,
  orderLineCount: r.line_count,
  earliestDueDate: isoDate(r.earliest_due_date),
  expectedLossPct: r.expected_loss_pct,
  /** Where the loss comes from: the demand itself, the mean of the profile's completed batches, or the default. */
  expectedLossSource: r.expected_loss_source,
});

/**
 * Confirmed order lines (the roast_demand view, which the orders module defines) due on or before
 * `dueBefore`, less what is allocated to each line, merged by what is roasted together: profile, green
 * lot, roast level and decaf. Items with nothing left to roast are left out.
 */
export async function listDemand(q: Queryable, orgId: string, dueBefore: string | null): Promise<DemandAggregateItem[]> {
  const rows = await q.query<DemandRow>(
    `with lines as (
       select profile_id, green_lot_id, roast_level, coalesce(is_decaf, false) as is_decaf, due_date, ordered_kg,
              least(coalesce(allocated_kg, 0), ordered_kg) as allocated_kg, expected_loss_pct
       from roast_demand where org_id = $1 and ($2::date is null or due_date <= $2::date)
     ),
     merged as (
       select profile_id, green_lot_id, roast_level, is_decaf, sum(ordered_kg) as ordered_kg, sum(allocated_kg) as allocated_kg,
              sum(ordered_kg - allocated_kg) as open_kg, count(*)::int as line_count, min(due_date) as earliest_due_date,
              max(expected_loss_pct) as expected_loss_pct
       from lines group by profile_id, green_lot_id, roast_level, is_decaf
     )
     select m.profile_id, p.code as profile_code, p.machine_id as profile_machine_id, p.target_drop_temp_c,
            m.green_lot_id, g.lot_code as green_lot_code, m.roast_level, m.is_decaf,
            m.ordered_kg::numeric(14, 3), m.allocated_kg::numeric(14, 3), m.open_kg::numeric(14, 3), m.line_count, m.earliest_due_date,
            coalesce(m.expected_loss_pct, history.mean_loss, $3::numeric)::numeric(5, 2) as expected_loss_pct,
            case when m.expected_loss_pct is not null then 'demand' when history.mean_loss is not null then 'profile_history' else 'default' end
              as expected_loss_source
     from merged m
     left join roast_profiles p on p.org_id = $1 and p.id = m.profile_id
     left join green_lots g on g.org_id = $1 and g.id = m.green_lot_id
     left join lateral (
       select round(avg(b.weight_loss_pct), 2) as mean_loss from roast_batches b
       where b.org_id = $1 and b.profile_id = m.profile_id and b.state = 'completed' and b.weight_loss_pct is not null
     ) history on true
     where m.open_kg > 0
     order by m.earliest_due_date nulls last, p.code, g.lot_code, m.roast_level, m.is_decaf`,
    [orgId, dueBefore, DEFAULT_PRE_ROAST_LOSS_PCT],
  );
  return rows.map(toDemand);
}

export const toPlannerDemand = (d: DemandAggregateItem): DemandItem => ({
  profileId: d.profileId,
  profileCode: d.profileCode,
  profileMachineId: d.profileMachineId,
  targetDropTempC: d.targetDropTempC,
  greenLotId: d.greenLotId,
  greenLotCode: d.greenLotCode,
  roastLevel: d.roastLevel,
  isDecaf: d.isDecaf,
  openKg: d.openKg,
  expectedLossPct: d.expectedLossPct,
});

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
    `select * from production_schedules where org_id = $1 and id = $2${options.forUpdate ? ' for update' : ''}`,
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
