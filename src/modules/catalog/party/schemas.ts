import { z } from 'zod';
import { code, country, currency, decimal, email, id, name, page, strict, text, url } from '../../../rpc/schemas.js';
import { currencyOut, idOut, out, timeOut } from '../../../rpc/outputs.js';

export const PARTNER_TYPES = ['supplier', 'importer', 'exporter', 'cooperative', 'producer', 'mill', 'broker', 'warehouse', 'customer'] as const;
export const PRODUCER_KINDS = ['farm', 'cooperative', 'washing_station', 'estate', 'smallholder_group'] as const;

const partnerType = z.enum(PARTNER_TYPES);

/** One partner may hold several types; each at most once, and a partner is always at least one thing. */
const partnerTypes = z
  .array(partnerType)
  .min(1, 'at least one type')
  .max(PARTNER_TYPES.length)
  .refine((types) => new Set(types).size === types.length, 'each type at most once');

const shortText = z.string().trim().min(1).max(120);
const phone = z.string().trim().min(1).max(40);
const paymentTermsDays = z.number().int().min(0).max(365);

/** Metres above sea level; the lowest coffee grows near sea level, the highest below 3,000 m. */
const altitudeM = z.number().int().min(-500).max(9000);
/** Degrees; stored with six decimals (about 11 cm), more precise input is rounded to that. */
const latitude = z.number().min(-90).max(90);
const longitude = z.number().min(-180).max(180);
const farmSizeHa = decimal({ scale: 3, max: 10_000_000 });
const labels = z.array(z.string().trim().min(1).max(100)).max(50);

export const CreatePartner = strict({
  name,
  code,
  types: partnerTypes,
  country: country.optional(),
  defaultCurrency: currency.optional(),
  paymentTermsDays: paymentTermsDays.optional(),
  contactEmail: email.optional(),
  contactPhone: phone.optional(),
  website: url.optional(),
  notes: text().optional(),
});

/** Omitted fields stay as they are; null clears an optional field. The code is the partner's identity and is fixed. */
export const UpdatePartner = strict({
  id: id(),
  name: name.optional(),
  types: partnerTypes.optional(),
  country: country.nullable().optional(),
  defaultCurrency: currency.nullable().optional(),
  paymentTermsDays: paymentTermsDays.nullable().optional(),
  contactEmail: email.nullable().optional(),
  contactPhone: phone.nullable().optional(),
  website: url.nullable().optional(),
  notes: text().nullable().optional(),
  isActive: z.boolean().optional(),
});

export const PartnerFilter = strict({
  /** Partners holding this type (among others). */
  type: partnerType.optional(),
  isActive: z.boolean().optional(),
  country: country.optional(),
  /** Case-insensitive search in name and code. */
  q: z.string().trim().min(1).max(100).optional(),
});

export const ListPartners = strict({ filter: PartnerFilter.default({}), page });

const producerKind = z.enum(PRODUCER_KINDS);

export const CreateProducer = strict({
  name,
  code,
  kind: producerKind,
  partnerId: id('partnerId').optional(),
  country: country.optional(),
  region: shortText.optional(),
  subregion: shortText.optional(),
  altitudeMinM: altitudeM.optional(),
  altitudeMaxM: altitudeM.optional(),
  latitude: latitude.optional(),
  longitude: longitude.optional(),
  varieties: labels.optional(),
  processMethods: labels.optional(),
  farmSizeHa: farmSizeHa.optional(),
});

/** Omitted fields stay as they are; null clears an optional field (an empty list clears a list). */
export const UpdateProducer = strict({
  id: id(),
  name: name.optional(),
  kind: producerKind.optional(),
  partnerId: id('partnerId').nullable().optional(),
  country: country.nullable().optional(),
  region: shortText.nullable().optional(),
  subregion: shortText.nullable().optional(),
  altitudeMinM: altitudeM.nullable().optional(),
  altitudeMaxM: altitudeM.nullable().optional(),
  latitude: latitude.nullable().optional(),
  longitude: longitude.nullable().optional(),
  varieties: labels.optional(),
  processMethods: labels.optional(),
  farmSizeHa: farmSizeHa.nullable().optional(),
  isActive: z.boolean().optional(),
});

export const ProducerFilter = strict({
  kind: producerKind.optional(),
  country: country.optional(),
  partnerId: id('partnerId').optional(),
  isActive: z.boolean().optional(),
  /** Case-insensitive search in name, code and region. */
  q: z.string().trim().min(1).max(100).optional(),
});

export const ListProducers = strict({ filter: ProducerFilter.default({}), page });

export const ById = strict({ id: id() });

export const Partner = out({
  id: idOut,
  code: z.string(),
  name: z.string(),
  types: z.array(partnerType),
  country: z.string().nullable(),
  defaultCurrency: currencyOut.nullable(),
  paymentTermsDays: z.number().int().nullable(),
  contactEmail: z.string().nullable(),
  contactPhone: z.string().nullable(),
  website: z.string().nullable(),
  notes: z.string().nullable(),
  isActive: z.boolean(),
  createdAt: timeOut,
  updatedAt: timeOut,
}).meta({ id: 'Partner' });

export const Producer = out({
  id: idOut,
  code: z.string(),
  name: z.string(),
  kind: producerKind,
  partnerId: idOut.nullable(),
  country: z.string().nullable(),
  region: z.string().nullable(),
  subregion: z.string().nullable(),
  altitudeMinM: z.number().int().nullable(),
  altitudeMaxM: z.number().int().nullable(),
  /** Degrees, at most six decimals. */
  latitude: z.number().nullable(),
  longitude: z.number().nullable(),
  varieties: z.array(z.string()),
  processMethods: z.array(z.string()),
  /** Hectares, at most three decimals: a measurement, answered as a number. */
  farmSizeHa: z.number().nullable(),
  isActive: z.boolean(),
  createdAt: timeOut,
  updatedAt: timeOut,
}).meta({ id: 'Producer' });
