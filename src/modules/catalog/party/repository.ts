import type { z } from 'zod';
import type { Queryable } from '../../../db/client.js';
import { SqlParams, iso, likePattern, setClause } from '../../../db/sql.js';
import { newId } from '../../../lib/ids.js';
import { decodeCursor, pageOf, type Page } from '../../../db/paging.js';
import type { Producer } from './schemas.js';
import type { CreatePartner, CreatePlot, CreateProducer, PARTNER_TYPES, PRODUCER_KINDS, PartnerFilter, PlotFilter, ProducerFilter, UpdatePartner, UpdateProducer } from './schemas.js';
import { AREA_TOLERANCE, type PlotGeometry, type PlotWarning } from './geometry.js';

type Changes<T extends z.ZodType> = Omit<z.output<T>, 'id'>;

interface PartnerRow {
  id: string;
  code: string;
  name: string;
  types: (typeof PARTNER_TYPES)[number][];
  country: string | null;
  default_currency: string | null;
  payment_terms_days: number | null;
  contact_email: string | null;
  contact_phone: string | null;
  website: string | null;
  notes: string | null;
  is_active: boolean;
  created_at: Date;
  updated_at: Date;
}

export type Partner = ReturnType<typeof toPartner>;

const toPartner = (r: PartnerRow) => ({
  id: r.id,
  code: r.code,
  name: r.name,
  types: r.types,
  country: r.country,
  defaultCurrency: r.default_currency,
  paymentTermsDays: r.payment_terms_days,
  contactEmail: r.contact_email,
  contactPhone: r.contact_phone,
  website: r.website,
  notes: r.notes,
  isActive: r.is_active,
  createdAt: iso(r.created_at)!,
  updatedAt: iso(r.updated_at)!,
});

interface ProducerRow {
  id: string;
  code: string;
  name: string;
  kind: (typeof PRODUCER_KINDS)[number];
  partner_id: string | null;
  country: string | null;
  region: string | null;
  subregion: string | null;
  altitude_min_m: number | null;
  altitude_max_m: number | null;
  /** numeric(8,6) / numeric(9,6): read as exact decimal strings. */
  latitude: string | null;
  longitude: string | null;
  varieties: string[];
  process_methods: string[];
  farm_size_ha: string | null;
  is_active: boolean;
  created_at: Date;
  updated_at: Date;
}

export type Producer = ReturnType<typeof toProducer>;

/** Coordinates and farm size are measurements, not money or stock: answered as JSON numbers at their stored precision. */
const numberOrNull = (value: string | null) => (value === null ? null : Number(value));

const toProducer = (r: ProducerRow) => ({
  id: r.id,
  code: r.code,
  name: r.name,
  kind: r.kind,
  partnerId: r.partner_id,
  country: r.country,
  region: r.region,
  subregion: r.subregion,
  altitudeMinM: r.altitude_min_m,
  altitudeMaxM: r.altitude_max_m,
  latitude: numberOrNull(r.latitude),
  longitude: numberOrNull(r.longitude),
  varieties: r.varieties,
  processMethods: r.process_methods,
  farmSizeHa: numberOrNull(r.farm_size_ha),
  isActive: r.is_active,
  createdAt: iso(r.created_at)!,
  updatedAt: iso(r.updated_at)!,
});

export async function insertPartner(q: Queryable, orgId: string, input: z.output<typeof CreatePartner>): Promise<Partner> {
  const [row] = await q.query<PartnerRow>(
    `insert into partners (org_id, id, code, name, types, country, default_currency, payment_terms_days,
                           contact_email, contact_phone, website, notes)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) returning *`,
    [
      orgId, newId('ptn'), input.code, input.name, input.types, input.country ?? null, input.defaultCurrency ?? null,
      input.paymentTermsDays ?? null, input.contactEmail ?? null, input.contactPhone ?? null, input.website ?? null, input.notes ?? null,
    ],
  );
  return toPartner(row);
}

/** Which of these partner codes are already used in the organization. */
export async function partnerCodesInUse(q: Queryable, orgId: string, codes: string[]): Promise<string[]> {
  if (codes.length === 0) return [];
  const rows = await q.query<{ code: string }>(`select code from partners where org_id = $1 and code = any($2::text[])`, [orgId, codes]);
  return rows.map((r) => r.code);
}

export async function findPartner(q: Queryable, orgId: string, id: string, options: { forUpdate?: boolean } = {}): Promise<Partner | undefined> {
  const [row] = await q.query<PartnerRow>(
    `select * from partners where org_id = $1 and id = $2${options.forUpdate ? ' for no key update' : ''}`,
    [orgId, id],
  );
  return row && toPartner(row);
}

export async function updatePartner(q: Queryable, orgId: string, id: string, changes: Changes<typeof UpdatePartner>): Promise<Partner> {
  const params = new SqlParams();
  const set = setClause(params, {
    name: changes.name,
    types: changes.types,
    country: changes.country,
    default_currency: changes.defaultCurrency,
    payment_terms_days: changes.paymentTermsDays,
    contact_email: changes.contactEmail,
    contact_phone: changes.contactPhone,
    website: changes.website,
    notes: changes.notes,
    is_active: changes.isActive,
  });
  const [row] = await q.query<PartnerRow>(
    `update partners set ${set ? `${set}, ` : ''}updated_at = now()
     where org_id = ${params.add(orgId)} and id = ${params.add(id)} returning *`,
    params.values,
  );
  return toPartner(row);
}

export async function listPartners(q: Queryable, orgId: string, filter: z.output<typeof PartnerFilter>, page: Page) {
  const params = new SqlParams();
  const where = [`org_id = ${params.add(orgId)}`];
  // Containment, so the GIN index on types serves it.
  if (filter.type) where.push(`types @> array[${params.add(filter.type)}]::text[]`);
  if (filter.isActive !== undefined) where.push(`is_active = ${params.add(filter.isActive)}`);
  if (filter.country) where.push(`country = ${params.add(filter.country)}`);
  if (filter.q) {
    const p = params.add(likePattern(filter.q));
    where.push(`(name ilike ${p} or code ilike ${p})`);
  }
  const after = decodeCursor(page.cursor, 'partners', ['id']);
  if (after) where.push(`id > ${params.add(String(after[0]))}`);
  const rows = await q.query<PartnerRow>(
    `select * from partners where ${where.join(' and ')} order by id limit ${params.add(page.limit + 1)}`,
    params.values,
  );
  return pageOf(rows.map(toPartner), page.limit, 'partners', (p) => [p.id]);
}

export async function insertProducer(q: Queryable, orgId: string, input: z.output<typeof CreateProducer>): Promise<Producer> {
  const [row] = await q.query<ProducerRow>(
    `insert into producers (org_id, id, code, name, kind, partner_id, country, region, subregion, altitude_min_m, altitude_max_m,
                            latitude, longitude, varieties, process_methods, farm_size_ha)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) returning *`,
    [
      orgId, newId('pdr'), input.code, input.name, input.kind, input.partnerId ?? null, input.country ?? null,
      input.region ?? null, input.subregion ?? null, input.altitudeMinM ?? null, input.altitudeMaxM ?? null,
      input.latitude ?? null, input.longitude ?? null, input.varieties ?? [], input.processMethods ?? [], input.farmSizeHa ?? null,
    ],
  );
  return toProducer(row);
}

export async function findProducer(q: Queryable, orgId: string, id: string, options: { forUpdate?: boolean } = {}): Promise<Producer | undefined> {
  const [row] = await q.query<ProducerRow>(
    `select * from producers where org_id = $1 and id = $2${options.forUpdate ? ' for no key update' : ''}`,
    [orgId, id],
  );
  return row && toProducer(row);
}

export async function updateProducer(q: Queryable, orgId: string, id: string, changes: Changes<typeof UpdateProducer>): Promise<Producer> {
  const params = new SqlParams();
  const set = setClause(params, {
    name: changes.name,
    kind: changes.kind,
    partner_id: changes.partnerId,
    country: changes.country,
    region: changes.region,
    subregion: changes.subregion,
    altitude_min_m: changes.altitudeMinM,
    altitude_max_m: changes.altitudeMaxM,
    latitude: changes.latitude,
    longitude: changes.longitude,
    varieties: changes.varieties,
    process_methods: changes.processMethods,
    farm_size_ha: changes.farmSizeHa,
    is_active: changes.isActive,
  });
  const [row] = await q.query<ProducerRow>(
    `update producers set ${set ? `${set}, ` : ''}updated_at = now()
     where org_id = ${params.add(orgId)} and id = ${params.add(id)} returning *`,
    params.values,
  );
  return toProducer(row);
}

export async function listProducers(q: Queryable, orgId: string, filter: z.output<typeof ProducerFilter>, page: Page) {
  const params = new SqlParams();
  const where = [`org_id = ${params.add(orgId)}`];
  if (filter.kind) where.push(`kind = ${params.add(filter.kind)}`);
  if (filter.country) where.push(`country = ${params.add(filter.country)}`);
  if (filter.partnerId) where.push(`partner_id = ${params.add(filter.partnerId)}`);
  if (filter.isActive !== undefined) where.push(`is_active = ${params.add(filter.isActive)}`);
  if (filter.q) {
    const p = params.add(likePattern(filter.q));
    where.push(`(name ilike ${p} or code ilike ${p} or region ilike ${p})`);
  }
  const after = decodeCursor(page.cursor, 'producers', ['id']);
  if (after) where.push(`id > ${params.add(String(after[0]))}`);
  const rows = await q.query<ProducerRow>(
    `select * from producers where ${where.join(' and ')} order by id limit ${params.add(page.limit + 1)}`,
    params.values,
  );
  return pageOf(rows.map(toProducer), page.limit, 'producers', (p) => [p.id]);
}

// ---------------------------------------------------------------------------------------------------
// For a traceability chain

/** The producers as a chain of custody shows them (where and how the coffee grew), by name and id. */
/** A producer as a chain of custody shows it. */
export type ProducerFacts = Omit<z.output<typeof Producer>, 'partnerId' | 'isActive' | 'createdAt' | 'updatedAt'>;

export async function describeProducers(q: Queryable, orgId: string, ids: string[]): Promise<ProducerFacts[]> {
  if (ids.length === 0) return [];
  const [row] = await q.query<{ producers: ProducerFacts[] }>(
    `select coalesce(jsonb_agg(jsonb_build_object(
         'id', p.id, 'code', p.code, 'name', p.name, 'kind', p.kind, 'country', p.country, 'region', p.region,
         'subregion', p.subregion, 'altitudeMinM', p.altitude_min_m, 'altitudeMaxM', p.altitude_max_m,
         'latitude', p.latitude, 'longitude', p.longitude, 'varieties', p.varieties, 'processMethods', p.process_methods,
         'farmSizeHa', p.farm_size_ha) order by p.name, p.id), '[]'::jsonb) as producers
     from producers p where p.org_id = $1 and p.id = any($2::text[])`,
    [orgId, ids],
  );
  return row.producers;
}

// ---------------------------------------------------------------------------------------------------
// Plots

interface PlotRow {
  id: string;
  producer_id: string;
  name: string;
  area_ha: string;
  geometry: PlotGeometry;
  computed_area_ha: string | null;
  production_from: string | null;
  production_to: string | null;
  created_at: Date;
}

const toPlot = (r: PlotRow) => {
  const areaHa = Number(r.area_ha);
  const computedAreaHa = numberOrNull(r.computed_area_ha);
  return {
    id: r.id,
    producerId: r.producer_id,
    name: r.name,
    areaHa,
    geometry: r.geometry,
    computedAreaHa,
    // Recomputed from the stored figures, so a changed tolerance reads the same for old plots.
    warnings: areaWarnings(areaHa, computedAreaHa),
    productionFrom: r.production_from,
    productionTo: r.production_to,
    createdAt: iso(r.created_at)!,
  };
};

function areaWarnings(areaHa: number, computedAreaHa: number | null): PlotWarning[] {
  if (computedAreaHa === null || Math.abs(computedAreaHa - areaHa) <= AREA_TOLERANCE * computedAreaHa) return [];
  return [{ rule: 'area_mismatch', message: `stated ${areaHa} ha, the polygon measures ${computedAreaHa} ha (more than ${AREA_TOLERANCE * 100} % apart)` }];
}

export type Plot = ReturnType<typeof toPlot>;

const PLOT_COLUMNS = `id, producer_id, name, area_ha::text, geometry, computed_area_ha::text, production_from::text, production_to::text, created_at`;

export async function insertPlot(q: Queryable, orgId: string, input: z.output<typeof CreatePlot>, computedAreaHa: number | null): Promise<Plot> {
  const [row] = await q.query<PlotRow>(
    `insert into plots (org_id, id, producer_id, name, area_ha, geometry, computed_area_ha, production_from, production_to)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9) returning ${PLOT_COLUMNS}`,
    [orgId, newId('plot'), input.producerId, input.name, input.areaHa, JSON.stringify(input.geometry), computedAreaHa, input.productionFrom ?? null, input.productionTo ?? null],
  );
  return toPlot(row);
}

export async function findPlot(q: Queryable, orgId: string, id: string): Promise<Plot | undefined> {
  const [row] = await q.query<PlotRow>(`select ${PLOT_COLUMNS} from plots where org_id = $1 and id = $2`, [orgId, id]);
  return row && toPlot(row);
}

export async function listPlots(q: Queryable, orgId: string, filter: z.output<typeof PlotFilter>, page: Page) {
  const params = new SqlParams();
  const where = [`org_id = ${params.add(orgId)}`];
  if (filter.producerId) where.push(`producer_id = ${params.add(filter.producerId)}`);
  const after = decodeCursor(page.cursor, 'plots', ['id']);
  if (after) where.push(`id > ${params.add(String(after[0]))}`);
  const rows = await q.query<PlotRow>(
    `select ${PLOT_COLUMNS} from plots where ${where.join(' and ')} order by id limit ${params.add(page.limit + 1)}`,
    params.values,
  );
  return pageOf(rows.map(toPlot), page.limit, 'plots', (p) => [p.id]);
}

/** The plots named by id, and every plot of the producers named by id, by producer and name. */
export async function plotsOf(q: Queryable, orgId: string, ids: { plotIds: string[]; producerIds: string[] }): Promise<Plot[]> {
  if (ids.plotIds.length === 0 && ids.producerIds.length === 0) return [];
  const rows = await q.query<PlotRow>(
    `select ${PLOT_COLUMNS} from plots where org_id = $1 and (id = any($2::text[]) or producer_id = any($3::text[])) order by producer_id, name, id`,
    [orgId, ids.plotIds, ids.producerIds],
  );
  return rows.map(toPlot);
}

/** Which of the ids name no plot of this organization. */
export async function missingPlotIds(q: Queryable, orgId: string, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await q.query<{ id: string }>(
    `select x.id from unnest($2::text[]) x(id) where not exists (select 1 from plots p where p.org_id = $1 and p.id = x.id)`,
    [orgId, ids],
  );
  return rows.map((r) => r.id);
}

/** Which of the ids name no producer of this organization. */
export async function missingProducerIds(q: Queryable, orgId: string, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await q.query<{ id: string }>(
    `select x.id from unnest($2::text[]) x(id) where not exists (select 1 from producers p where p.org_id = $1 and p.id = x.id)`,
    [orgId, ids],
  );
  return rows.map((r) => r.id);
}
