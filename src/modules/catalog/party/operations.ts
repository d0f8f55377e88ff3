import type { Queryable } from '../../../db/client.js';
import { defineOperation } from '../../../rpc/define.js';
import { invalidInput, notFound } from '../../../rpc/errors.js';
import * as repo from './repository.js';
import { ById, CreatePartner, CreateProducer, ListPartners, ListProducers, UpdatePartner, UpdateProducer } from './schemas.js';

const module = 'core' as const;

export const partyOperations = [
  defineOperation({
    name: 'catalog.party.createPartner',
    summary: 'Create a trading partner holding one or more types (supplier, importer, customer, ...). Codes are unique per organization.',
    permission: 'catalog.party.write',
    module,
    get: false,
    input: CreatePartner,
    emits: ['catalog.party.partner_created'],
    async handler(ctx, input) {
      const partner = await repo.insertPartner(ctx.tx, ctx.orgId, input);
      await ctx.emit('catalog.party.partner_created', { partner });
      return partner;
    },
  }),

  defineOperation({
    name: 'catalog.party.getPartner',
    summary: 'A trading partner.',
    permission: 'catalog.party.read',
    module,
    get: true,
    input: ById,
    async handler(ctx, { id }) {
      return (await repo.findPartner(ctx.tx, ctx.orgId, id)) ?? throwNotFound('partner', id);
    },
  }),

  defineOperation({
    name: 'catalog.party.listPartners',
    summary: 'Trading partners, oldest first. Filters: type (partners holding it), isActive, country, q (name or code).',
    permission: 'catalog.party.read',
    module,
    get: true,
    input: ListPartners,
    async handler(ctx, { filter, page }) {
      return repo.listPartners(ctx.tx, ctx.orgId, filter, page);
    },
  }),

  defineOperation({
    name: 'catalog.party.updatePartner',
    summary: 'Change a trading partner; types replaces the whole list, null clears an optional field. The code is fixed.',
    permission: 'catalog.party.write',
    module,
    get: false,
    input: UpdatePartner,
    emits: ['catalog.party.partner_updated'],
    async handler(ctx, { id, ...changes }) {
      (await repo.findPartner(ctx.tx, ctx.orgId, id, { forUpdate: true })) ?? throwNotFound('partner', id);
      const partner = await repo.updatePartner(ctx.tx, ctx.orgId, id, changes);
      await ctx.emit('catalog.party.partner_updated', { partner });
      return partner;
    },
  }),

  defineOperation({
    name: 'catalog.party.createProducer',
    summary:
      'Create a producer (where coffee was grown), optionally linked to a partner of this organization. ' +
      'altitudeMinM may not exceed altitudeMaxM; coordinates are kept to six decimals.',
    permission: 'catalog.party.write',
    module,
    get: false,
    input: CreateProducer,
    emits: ['catalog.party.producer_created'],
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
    summary: 'A producer.',
    permission: 'catalog.party.read',
    module,
    get: true,
    input: ById,
    async handler(ctx, { id }) {
      return (await repo.findProducer(ctx.tx, ctx.orgId, id)) ?? throwNotFound('producer', id);
    },
  }),

  defineOperation({
    name: 'catalog.party.listProducers',
    summary: 'Producers, oldest first. Filters: kind, country, partnerId, isActive, q (name, code or region).',
    permission: 'catalog.party.read',
    module,
    get: true,
    input: ListProducers,
    async handler(ctx, { filter, page }) {
      return repo.listProducers(ctx.tx, ctx.orgId, filter, page);
    },
  }),

  defineOperation({
    name: 'catalog.party.updateProducer',
    summary:
      'Change a producer; null clears an optional field. The altitude range is checked against the stored bound ' +
      'when only one bound changes. The code is fixed.',
    permission: 'catalog.party.write',
    module,
    get: false,
    input: UpdateProducer,
    emits: ['catalog.party.producer_updated'],
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

function throwNotFound(what: 'partner' | 'producer', id: string): never {
  throw notFound(what, id);
}
