import { z } from 'zod';
import { code, date, decimal, id, name, page, strict } from '../../../rpc/schemas.js';
import { dateOut, idOut, kgOut, out, timeOut } from '../../../rpc/outputs.js';

export const MACHINE_TYPES = ['drum', 'fluid_bed', 'recirculating', 'sample', 'tangential', 'centrifugal'] as const;
export const CONNECTIVITIES = ['none', 'logger', 'bridge', 'modbus', 'serial', 'cloud_api'] as const;

export const FUELS = ['lpg', 'natural_gas', 'electric'] as const;

const machineType = z.enum(MACHINE_TYPES);
/** Extension: what the burner burns, for energy and CO2 metrics (Artisan's LPG / natural gas / electricity). */
const fuel = z.enum(FUELS).describe('extension: lpg, natural_gas or electric; with burnerRatingKw, roast metrics report energy and CO2');
/** Extension: the burner's (or heater's) power at 100 %, kW (numeric(10,3)). */
const burnerRatingKw = decimal({ scale: 3, positive: true, max: 9_999_999.999 }).describe(
  'extension: burner or heater power at 100 %, kW; with fuel and a `burner` channel (%) in the telemetry, roast metrics report energy and CO2',
);
const connectivity = z.enum(CONNECTIVITIES);
const label = z.string().trim().min(1).max(120);

/** Kilograms to the gram, within the machines columns (numeric(10,3)). A drum's capacity and largest batch are never zero. */
const capacityKg = decimal({ scale: 3, positive: true, max: 9_999_999.999 });
const minBatchKg = decimal({ scale: 3, max: 9_999_999.999 });

export const RegisterMachine = strict({
  name,
  code,
  locationId: id('locationId').optional(),
  brand: label.optional(),
  model: label.optional(),
  machineType: machineType.optional(),
  capacityKg: capacityKg.optional(),
  minBatchKg: minBatchKg.optional(),
  maxBatchKg: capacityKg.optional(),
  connectivity: connectivity.optional(),
  installedAt: date.optional(),
  burnerRatingKw: burnerRatingKw.optional(),
  fuel: fuel.optional(),
});

/** Omitted fields stay as they are; null clears an optional field. The code is the machine's identity and is fixed. */
export const UpdateMachine = strict({
  id: id(),
  name: name.optional(),
  locationId: id('locationId').nullable().optional(),
  brand: label.nullable().optional(),
  model: label.nullable().optional(),
  machineType: machineType.nullable().optional(),
  capacityKg: capacityKg.nullable().optional(),
  minBatchKg: minBatchKg.nullable().optional(),
  maxBatchKg: capacityKg.nullable().optional(),
  connectivity: connectivity.nullable().optional(),
  installedAt: date.nullable().optional(),
  burnerRatingKw: burnerRatingKw.nullable().optional(),
  fuel: fuel.nullable().optional(),
  isActive: z.boolean().optional(),
});

export const MachineFilter = strict({
  machineType: machineType.optional(),
  connectivity: connectivity.optional(),
  locationId: id('locationId').optional(),
  isActive: z.boolean().optional(),
  /** Case-insensitive search in name, code, brand and model. */
  q: z.string().trim().min(1).max(100).optional(),
});

export const ListMachines = strict({ filter: MachineFilter.default({}), page });

/** A bridge token lives 30 days unless asked otherwise, at most a year: a bridge renews it, nobody types it. */
export const IssueMachineBridgeToken = strict({
  machineId: id('machineId'),
  expiresInHours: z.number().int().min(1).max(8760).default(720),
});

export const ById = strict({ id: id() });

export const Machine = out({
  id: idOut,
  code: z.string(),
  name: z.string(),
  locationId: idOut.nullable(),
  brand: z.string().nullable(),
  model: z.string().nullable(),
  machineType: machineType.nullable(),
  capacityKg: kgOut.nullable(),
  minBatchKg: kgOut.nullable(),
  maxBatchKg: kgOut.nullable(),
  connectivity: connectivity.nullable(),
  installedAt: dateOut.nullable(),
  burnerRatingKw: z.string().regex(/^\d+\.\d{3}$/).nullable().describe('extension: burner or heater power at 100 %, kW, three decimals'),
  fuel: z.enum(FUELS).nullable().describe('extension: the burner\'s fuel'),
  /** Only active machines count against the plan's cap and can hold bridge tokens. */
  isActive: z.boolean(),
  createdAt: timeOut,
  updatedAt: timeOut,
}).meta({ id: 'Machine' });

/** The bridge token's secret, answered once on issue: only its hash is kept. */
export const MachineBridgeToken = out({
  id: idOut,
  token: z.string(),
  machineId: idOut,
  expiresAt: timeOut,
}).meta({ id: 'MachineBridgeToken' });
