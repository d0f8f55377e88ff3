import { defineOperation } from '../../../rpc/define.js';
import { conflict, notFound } from '../../../rpc/errors.js';
import * as repo from './repository.js';
import { ById, CreateLocation, ListLocations, UpdateLocation } from './schemas.js';

const module = 'core' as const;

export const locationOperations = [
  defineOperation({
    name: 'catalog.location.createLocation',
    summary: 'Create a location: the roastery, a warehouse, cafe, lab, transit or external site. Codes are unique per organization.',
    permission: 'catalog.location.write',
    module,
    get: false,
    input: CreateLocation,
    emits: ['catalog.location.created'],
    async handler(ctx, input) {
      const location = await repo.insertLocation(ctx.tx, ctx.orgId, input);
      await ctx.emit('catalog.location.created', { location });
      return location;
    },
  }),

  defineOperation({
    name: 'catalog.location.getLocation',
    summary: 'A location, archived or not.',
    permission: 'catalog.location.read',
    module,
    get: true,
    input: ById,
    async handler(ctx, { id }) {
      return (await repo.findLocation(ctx.tx, ctx.orgId, id)) ?? throwNotFound(id);
    },
  }),

  defineOperation({
    name: 'catalog.location.listLocations',
    summary: 'Locations, oldest first. Filters: kind, isActive, includeArchived (archived are left out by default), q (name or code).',
    permission: 'catalog.location.read',
    module,
    get: true,
    input: ListLocations,
    async handler(ctx, { filter, page }) {
      return repo.listLocations(ctx.tx, ctx.orgId, filter, page);
    },
  }),

  defineOperation({
    name: 'catalog.location.updateLocation',
    summary: 'Change a location. An archived location is history and refuses changes (409).',
    permission: 'catalog.location.write',
    module,
    get: false,
    input: UpdateLocation,
    emits: ['catalog.location.updated'],
    async handler(ctx, { id, ...changes }) {
      const current = (await repo.findLocation(ctx.tx, ctx.orgId, id, { forUpdate: true })) ?? throwNotFound(id);
      if (current.archivedAt) throw conflict('location_archived', `Location ${id} is archived and cannot be changed.`);
      const location = await repo.updateLocation(ctx.tx, ctx.orgId, id, changes);
      await ctx.emit('catalog.location.updated', { location });
      return location;
    },
  }),

  defineOperation({
    name: 'catalog.location.archiveLocation',
    summary: 'Archive a location softly: it leaves the default list and stays readable; rows are never deleted.',
    permission: 'catalog.location.write',
    module,
    get: false,
    input: ById,
    emits: ['catalog.location.archived'],
    async handler(ctx, { id }) {
      const current = (await repo.findLocation(ctx.tx, ctx.orgId, id, { forUpdate: true })) ?? throwNotFound(id);
      if (current.archivedAt) throw conflict('location_archived', `Location ${id} is already archived.`);
      const location = await repo.archiveLocation(ctx.tx, ctx.orgId, id);
      await ctx.emit('catalog.location.archived', { location });
      return location;
    },
  }),
];

function throwNotFound(id: string): never {
  throw notFound('location', id);
}
