import { z } from 'zod';
import { code, decimal, id, kg, name, page, strict, text } from '../../../rpc/schemas.js';
import { idOut, kgOut, out, timeOut } from '../../../rpc/outputs.js';

/** Two years: green coffee keeps about that long; roasted coffee far less. */
const MAX_SHELF_LIFE_DAYS = 730;

export const CreateProfile = strict({
  name,
  code,
  /** A profile written for one machine; startRoastBatch refuses it on another. */
  machineId: id('machineId').optional(),
  targetChargeKg: kg({ positive: true }).optional(),
  /** Bean temperature at drop, °C, to 0.1. */
  targetDropTempC: decimal({ scale: 1, positive: true, max: 399.9 }).optional(),
  /** Charge to drop, in seconds. */
  targetTotalTimeS: z.number().int().min(1).max(24 * 3600).optional(),
  /** Development time ratio: development / total × 100. */
  targetDtrPct: decimal({ scale: 2, positive: true, max: 99.99 }).optional(),
  notes: text(4000).optional(),
  /**
   * Days its roasts keep (an extension of the specification): a lot roasted on this profile is best before
   * its roast day plus this many days, which FEFO allocation spends first. Unset: 90 days.
   */
  shelfLifeDays: z.number().int().min(1).max(MAX_SHELF_LIFE_DAYS).optional(),
});

export const ProfileFilter = strict({
  machineId: id('machineId').optional(),
  /** Case-insensitive search in name and code. */
  q: z.string().trim().min(1).max(100).optional(),
});

export const ListProfiles = strict({ filter: ProfileFilter.default({}), page });
export const ById = strict({ id: id() });

export type CreateProfileInput = z.output<typeof CreateProfile>;
export type ProfileFilterInput = z.output<typeof ProfileFilter>;

/** Weights stay exact decimal strings; temperatures and percentages are numbers, like the roast metrics they are compared with. */
export const Profile = out({
  id: idOut,
  code: z.string(),
  name: z.string(),
  machineId: idOut.nullable(),
  targetChargeKg: kgOut.nullable(),
  targetDropTempC: z.number().nullable(),
  targetTotalTimeS: z.number().int().nullable(),
  targetDtrPct: z.number().nullable(),
  notes: z.string().nullable(),
  /** Null: its roasts keep the default 90 days. */
  shelfLifeDays: z.number().int().nullable(),
  createdAt: timeOut,
  updatedAt: timeOut,
}).meta({ id: 'Profile' });
