import { z } from 'zod';
import { code, country, id, name, page, strict, text, timezone } from '../../../rpc/schemas.js';
import { idOut, out, timeOut } from '../../../rpc/outputs.js';

export const LOCATION_KINDS = ['the service', 'warehouse', 'cafe', 'lab', 'transit', 'external'] as const;

/** The specification's kind list, plus `roastery` as a synonym of `the service` (the roaster's own site). */
export const locationKind = z.union([z.enum(LOCATION_KINDS), z.literal('roastery').transform(() => 'the service' as const)]);

export const address = strict({
  line1: text(200).optional(),
  line2: text(200).optional(),
  city: text(120).optional(),
  region: text(120).optional(),
  postalCode: text(20).optional(),
  country: country.optional(),
});

export const CreateLocation = strict({
  name,
  code,
  kind: locationKind,
  address: address.optional(),
  timezone: timezone.optional(),
});

export const UpdateLocation = strict({
  id: id(),
  name: name.optional(),
  kind: locationKind.optional(),
  address: address.nullable().optional(),
  timezone: timezone.nullable().optional(),
  isActive: z.boolean().optional(),
});

export const LocationFilter = strict({
  kind: locationKind.optional(),
  isActive: z.boolean().optional(),
  /** Archived locations leave the default list; ask for them explicitly. */
  includeArchived: z.boolean().optional(),
  /** Case-insensitive search in name and code. */
  q: z.string().trim().min(1).max(100).optional(),
});

export const ListLocations = strict({ filter: LocationFilter.default({}), page });
export const ById = strict({ id: id() });

export const Location = out({
  id: idOut,
  code: z.string(),
  name: z.string(),
  kind: z.enum(LOCATION_KINDS),
  address: z.record(z.string(), z.string()).nullable(),
  timezone: z.string().nullable(),
  isActive: z.boolean(),
  /** Set once the location is archived: history, refusing changes. */
  archivedAt: timeOut.nullable(),
  createdAt: timeOut,
  updatedAt: timeOut,
}).meta({ id: 'Location' });
