import { z } from 'zod';
import { code, country, currency, date, decimal, email, id, name, page, strict, text, url } from '../../../rpc/schemas.js';
import { currencyOut, dateOut, idOut, out, timeOut } from '../../../rpc/outputs.js';

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

// ---------------------------------------------------------------------------------------------------
// Plots

/** A position as RFC 7946 writes it: [longitude, latitude], degrees in WGS 84. */
const position = z.tuple([z.number(), z.number()]);

/** GeoJSON geometry of a plot: a Point (plots up to 4 ha) or a Polygon of one closed ring (geometry.ts checks the rules). */
export const PlotGeometry = z.discriminatedUnion('type', [
  strict({ type: z.literal('Point'), coordinates: position }),
  strict({ type: z.literal('Polygon'), coordinates: z.array(z.array(position).max(10_000)).min(1).max(20) }),
]);

export const CreatePlot = strict({
  producerId: id('producerId'),
  /** Unique among the producer's plots; the due diligence statement's ProductionPlace. */
  name: shortText,
  /** Hectares as stated by the producer; compared with the polygon's computed area. */
  areaHa: z.number().positive().max(1_000_000),
  geometry: PlotGeometry,
  /** The production period the plot's coffee was grown in (optional, inclusive). */
  productionFrom: date.optional(),
  productionTo: date.optional(),
});

export const PlotFilter = strict({ producerId: id('producerId').optional() });
export const ListPlots = strict({ filter: PlotFilter.default({}), page });

const positionOut = z.tuple([z.number(), z.number()]);
export const PlotGeometryOut = z
  .discriminatedUnion('type', [
    out({ type: z.literal('Point'), coordinates: positionOut }),
    out({ type: z.literal('Polygon'), coordinates: z.array(z.array(positionOut)) }),
  ])
  .meta({ id: 'PlotGeometry' });

export const Plot = out({
  id: idOut,
  producerId: idOut,
  name: z.string(),
  areaHa: z.number(),
  geometry: PlotGeometryOut,
  /** Hectares turf computes for a polygon (null for a point). */
  computedAreaHa: z.number().nullable(),
  /** area_mismatch when the stated area is more than 10 % from the computed one. */
  warnings: z.array(out({ rule: z.enum(['area_mismatch']), message: z.string() })),
  productionFrom: dateOut.nullable(),
  productionTo: dateOut.nullable(),
  createdAt: timeOut,
}).meta({ id: 'Plot' });
