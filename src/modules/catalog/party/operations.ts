import type { Queryable } from '../../../db/client.js';
import { defineOperation } from '../../../rpc/define.js';
import { invalidInput, notFound, throwNotFound } from '../../../rpc/errors.js';
import * as repo from './repository.js';
import { createPartner } from './service.js';
import { pageOut } from '../../../rpc/outputs.js';
import { ById, CreatePartner, CreateProducer, ListPartners, ListProducers, Partner, Producer, UpdatePartner, UpdateProducer } from './schemas.js';
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

