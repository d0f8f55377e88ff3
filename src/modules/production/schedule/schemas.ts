import { z } from 'zod';
import { date, id, name, strict } from '../../../rpc/schemas.js';

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
