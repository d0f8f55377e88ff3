import type { Queryable } from '../../../db/client.js';
import { defineOperation } from '../../../rpc/define.js';
import { invalidInput, notFound, throwNotFound } from '../../../rpc/errors.js';
import * as repo from './repository.js';
import { createPartner } from './service.js';
import { pageOut } from '../../../rpc/outputs.js';
import { ById, CreatePartner, CreatePlot, CreateProducer, ListPartners, ListPlots, ListProducers, Partner, Plot, Producer, UpdatePartner, UpdateProducer } from './schemas.js';
import { POINT_MAX_HA, checkPlotGeometry } from './geometry.js';
import { partnerCreated, partnerUpdated, producerCreated, producerUpdated } from './events.js';

const feature = 'core' as const;

export const partyOperations = [
  defineOperation({
    name: 'catalog.party.createPartner',
    summary: 'Create a trading partner holding one or more types (supplier, importer, customer, ...).',
    description: 'A partner holds at least one type, each at most once. Codes are unique per organization (409 `duplicate`, naming `code`).',
    permission: 'catalog.party.write',
    feature,
    get: false,
    input: CreatePartner,
    output: Partner,
    errors: ['duplicate'],
    emits: [partnerCreated],
    async handler(ctx, input) {
      const partner = await createPartner(ctx.tx, ctx.orgId, input);
      await ctx.emit('catalog.party.partner_created', { partner });
      return partner;
    },
  }),

  defineOperation({
    name: 'catalog.party.getPartner',
    summary: 'A trading partner, active or not.',
    description: 'Another organization’s partner answers 404 exactly like a missing one.',
    permission: 'catalog.party.read',
    feature,
    get: true,
    input: ById,
    output: Partner,
    errors: ['not_found'],
    async handler(ctx, { id }) {
      return (await repo.findPartner(ctx.tx, ctx.orgId, id)) ?? throwNotFound('partner', id);
    },
  }),

  defineOperation({
    name: 'catalog.party.listPartners',
    summary: 'Trading partners, oldest first.',
    description: 'Filters: `type` (partners holding it, among others), `isActive`, `country`, `q` (case-insensitive search in name and code).',
    permission: 'catalog.party.read',
    feature,
    get: true,
    input: ListPartners,
    output: pageOut(Partner),
    errors: ['invalid_cursor'],
    async handler(ctx, { filter, page }) {
      return repo.listPartners(ctx.tx, ctx.orgId, filter, page);
    },
  }),

  defineOperation({
    name: 'catalog.party.updatePartner',
    summary: 'Change a trading partner.',
    description: 'Only the fields given change; `types` replaces the whole list; `null` clears an optional field. The code is fixed.',
    permission: 'catalog.party.write',
    feature,
    get: false,
    input: UpdatePartner,
    output: Partner,
    errors: ['not_found'],
    emits: [partnerUpdated],
    async handler(ctx, { id, ...changes }) {
      (await repo.findPartner(ctx.tx, ctx.orgId, id, { forUpdate: true })) ?? throwNotFound('partner', id);
      const partner = await repo.updatePartner(ctx.tx, ctx.orgId, id, changes);
      await ctx.emit('catalog.party.partner_updated', { partner });
      return partner;
    },
  }),

  defineOperation({
    name: 'catalog.party.createProducer',
    summary: 'Create a producer: where coffee was grown.',
    description:
      'May be linked to a partner of this organization (`partnerId`, 404 when it is not one). altitudeMinM may not exceed ' +
      'altitudeMaxM (400 naming the field); coordinates are kept to six decimals. Codes are unique per organization (409 `duplicate`, naming `code`).',
    permission: 'catalog.party.write',
    feature,
    get: false,
    input: CreateProducer,
    output: Producer,
    errors: ['not_found', 'duplicate'],
    emits: [producerCreated],
    async handler(ctx, input) {
      if (input.partnerId) await requirePartner(ctx.tx, ctx.orgId, input.partnerId);
      requireAltitudeRange(input.altitudeMinM, input.altitudeMaxM, 'altitudeMinM');
      const producer = await repo.insertProducer(ctx.tx, ctx.orgId, input);
      await ctx.emit('catalog.party.producer_created', { producer });
      return producer;
    },
  }),

  defineOperation({
    name: 'catalog.party.getProducer',
    summary: 'A producer, active or not.',
    description: 'Another organization’s producer answers 404 exactly like a missing one.',
    permission: 'catalog.party.read',
    feature,
    get: true,
    input: ById,
    output: Producer,
    errors: ['not_found'],
    async handler(ctx, { id }) {
      return (await repo.findProducer(ctx.tx, ctx.orgId, id)) ?? throwNotFound('producer', id);
    },
  }),

  defineOperation({
    name: 'catalog.party.listProducers',
    summary: 'Producers, oldest first.',
    description: 'Filters: `kind`, `country`, `partnerId`, `isActive`, `q` (case-insensitive search in name, code and region).',
    permission: 'catalog.party.read',
    feature,
    get: true,
    input: ListProducers,
    output: pageOut(Producer),
    errors: ['invalid_cursor'],
    async handler(ctx, { filter, page }) {
      return repo.listProducers(ctx.tx, ctx.orgId, filter, page);
    },
  }),

  defineOperation({
    name: 'catalog.party.updateProducer',
    summary: 'Change a producer.',
    description:
      'Only the fields given change; `null` clears an optional field, an empty list clears a list. A new `partnerId` must name a partner ' +
      'of this organization (404). The altitude range is checked against the stored bound when only one bound changes (400 naming ' +
      'the bound this request moved). The code is fixed.',
    permission: 'catalog.party.write',
    feature,
    get: false,
    input: UpdateProducer,
    output: Producer,
    errors: ['not_found'],
    emits: [producerUpdated],
    async handler(ctx, { id, ...changes }) {
      const current = (await repo.findProducer(ctx.tx, ctx.orgId, id, { forUpdate: true })) ?? throwNotFound('producer', id);
      if (changes.partnerId) await requirePartner(ctx.tx, ctx.orgId, changes.partnerId);
      requireAltitudeRange(
        changes.altitudeMinM === undefined ? current.altitudeMinM : changes.altitudeMinM,
        changes.altitudeMaxM === undefined ? current.altitudeMaxM : changes.altitudeMaxM,
        // Blame the bound this request moved; when it moved both, the lower one.
        changes.altitudeMinM === undefined ? 'altitudeMaxM' : 'altitudeMinM',
      );
      const producer = await repo.updateProducer(ctx.tx, ctx.orgId, id, changes);
      await ctx.emit('catalog.party.producer_updated', { producer });
      return producer;
    },
  }),
  defineOperation({
    name: 'catalog.party.createPlot',
    extension: true,
    summary: 'Record a plot of a producer: where its coffee grows, as GeoJSON, for proof of origin (EU Deforestation Regulation).',
    description:
      'The geometry is RFC 7946 GeoJSON in WGS 84, each position [longitude, latitude]: a `Point` for a plot of up to ' +
      `${POINT_MAX_HA} ha, a \`Polygon\` of one ring for any plot. Each rule is a 400 naming the plot, the rule and the position: ` +
      '`coordinate_range` (longitude −180…180, latitude −90…90), `precision` (no coordinate with six decimals: rounded), ' +
      '`point_area` (a Point for more than 4 ha), `single_ring` (holes are not read by the EU system), `ring_positions` (fewer ' +
      'than 4), `ring_closed` (last position must repeat the first), `self_intersection`, `zero_area`. The polygon’s area is ' +
      'computed (turf) and answered as `computedAreaHa`; a stated `areaHa` more than 10 % from it is kept with an ' +
      '`area_mismatch` warning. `producerId` must be a producer of this organization (404); names are unique per producer (409 `duplicate`).',
    permission: 'catalog.party.write',
    feature,
    get: false,
    input: CreatePlot,
    output: Plot,
    errors: ['not_found', 'duplicate'],
    async handler(ctx, input) {
      (await repo.findProducer(ctx.tx, ctx.orgId, input.producerId)) ?? throwNotFound('producer', input.producerId, 'producerId');
      if (input.productionFrom && input.productionTo && input.productionFrom > input.productionTo) {
        throw invalidInput([{ path: 'productionTo', message: `must be on or after productionFrom (${input.productionFrom})` }]);
      }
      const { computedAreaHa } = checkPlotGeometry(input.name, input.geometry, input.areaHa);
      return repo.insertPlot(ctx.tx, ctx.orgId, input, computedAreaHa);
    },
  }),

  defineOperation({
    name: 'catalog.party.getPlot',
    extension: true,
    summary: 'A plot, with its geometry, stated and computed area and warnings.',
    description: 'Another organization’s plot answers 404 exactly like a missing one.',
    permission: 'catalog.party.read',
    feature,
    get: true,
    input: ById,
    output: Plot,
    errors: ['not_found'],
    async handler(ctx, { id }) {
      return (await repo.findPlot(ctx.tx, ctx.orgId, id)) ?? throwNotFound('plot', id);
    },
  }),

  defineOperation({
    name: 'catalog.party.listPlots',
    extension: true,
    summary: 'Plots, oldest first.',
    description: 'Filter: `producerId`.',
    permission: 'catalog.party.read',
    feature,
    get: true,
    input: ListPlots,
    output: pageOut(Plot),
    errors: ['invalid_cursor'],
    async handler(ctx, { filter, page }) {
      return repo.listPlots(ctx.tx, ctx.orgId, filter, page);
    },
  }),
];

async function requirePartner(tx: Queryable, orgId: string, partnerId: string): Promise<void> {
  // Partners are never deleted, so existence checked here still holds at commit.
  if (!(await repo.findPartner(tx, orgId, partnerId))) throw notFound('partner', partnerId, 'partnerId');
}

/** The producers_altitude_range check, answered as a 400 naming the field instead of a bare constraint name. */
function requireAltitudeRange(min: number | null | undefined, max: number | null | undefined, blame: 'altitudeMinM' | 'altitudeMaxM'): void {
  if (min == null || max == null || min <= max) return;
  const message = blame === 'altitudeMinM' ? `must be at most altitudeMaxM (${max})` : `must be at least altitudeMinM (${min})`;
  throw invalidInput([{ path: blame, message }], 'altitudeMinM may not exceed altitudeMaxM.');
}

