import { z } from 'zod';
import { date, id, name, strict } from '../../../rpc/schemas.js';
import { dateOut, decimalOut, idOut, kgOut, out, timeOut } from '../../../rpc/outputs.js';

export const GenerateProductionSchedule = strict({
  name,
  scheduledDate: date,
  /** Plan only this location's active machines and the green stock held there. */
  locationId: id('locationId').optional(),
  /** Demand due on or before this day; without it, all open demand. */
  dueBefore: date.optional(),
  maxBatchesPerMachine: z.number().int().min(1).max(1000).optional(),
});

export const ListDemandAggregate = strict({
  /** Demand due on or before this day; without it, all open demand (undated lines included). */
  dueBefore: date.optional(),
});

export const ById = strict({ id: id() });

const roastLevel = z.enum(['light', 'medium', 'dark']);

export const DemandAggregateItem = out({
  profileId: idOut.nullable(),
  profileCode: z.string().nullable(),
  profileMachineId: idOut.nullable(),
  targetDropTempC: z.number().nullable(),
  greenLotId: idOut.nullable(),
  greenLotCode: z.string().nullable(),
  roastLevel: roastLevel.nullable(),
  isDecaf: z.boolean(),
  /** Roasted kilograms on the confirmed order lines. */
  orderedKg: kgOut,
  /** Of those, already allocated from roasted stock. */
  allocatedKg: kgOut,
  /** Still to roast: ordered less allocated, line by line. */
  openKg: kgOut,
  orderLineCount: z.number().int(),
  earliestDueDate: dateOut.nullable(),
  expectedLossPct: decimalOut,
  /** Where the loss comes from: the demand itself, the mean of the profile's completed batches, or the default. */
  expectedLossSource: z.enum(['demand', 'profile_history', 'default']),
  /** Green to roast for the open kilograms, grossed up for the expected loss. */
  greenNeededKg: kgOut,
}).meta({ id: 'DemandAggregateItem' });

export const FeasibilityNote = out({
  kind: z.enum(['no_demand', 'green_short', 'no_machine_fits', 'over_capacity']),
  message: z.string(),
  profileId: idOut.nullable().optional(),
  greenLotId: idOut.nullable().optional(),
  /** green_short: green needed, available and missing. */
  neededKg: kgOut.optional(),
  availableKg: kgOut.optional(),
  shortKg: kgOut.optional(),
  /** no_machine_fits, over_capacity: green left unplanned. */
  unplannedKg: kgOut.optional(),
}).meta({ id: 'FeasibilityNote' });

export const ScheduledBatch = out({
  id: idOut,
  /** Position across the whole schedule, in roasting order. */
  position: z.number().int(),
  machineId: idOut,
  /** Order on its machine. */
  machineSequence: z.number().int(),
  profileId: idOut.nullable(),
  greenLotId: idOut.nullable(),
  roastLevel: roastLevel.nullable(),
  isDecaf: z.boolean(),
  greenKg: kgOut,
  expectedRoastedKg: kgOut,
  expectedLossPct: decimalOut,
}).meta({ id: 'ScheduledBatch' });

export const ProductionSchedule = out({
  id: idOut,
  name: z.string(),
  scheduledDate: dateOut,
  locationId: idOut.nullable(),
  dueBefore: dateOut.nullable(),
  maxBatchesPerMachine: z.number().int().nullable(),
  /** draft when generated; released once committed to the roasting floor. */
  state: z.enum(['draft', 'released']),
  notes: z.array(FeasibilityNote),
  createdBy: idOut,
  releasedAt: timeOut.nullable(),
  releasedBy: idOut.nullable(),
  createdAt: timeOut,
  updatedAt: timeOut,
  batches: z.array(ScheduledBatch),
  totals: out({ batchCount: z.number().int(), greenKg: kgOut, expectedRoastedKg: kgOut }),
}).meta({ id: 'ProductionSchedule' });
