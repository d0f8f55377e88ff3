import { defineOperation } from '../../../rpc/define.js';
import { conflict, throwNotFound } from '../../../rpc/errors.js';
import { pageOut } from '../../../rpc/outputs.js';
import * as repo from './repository.js';
import { ById, CreateLocation, ListLocations, Location, UpdateLocation } from './schemas.js';
import { locationArchived, locationCreated, locationUpdated } from './events.js';

const feature = 'core' as const;

export const locationOperations = [
  defineOperation({
    name: 'catalog.location.createLocation',
    summary: 'Create a location: the roastery, a warehouse, cafe, lab, transit or external site.',
    description: 'Codes are unique per organization (`duplicate`, naming `code`). `roastery` is the roaster’s own site; the specification’s spelling `the service` is accepted for it.',
    permission: 'catalog.location.write',
    feature,
    get: false,
    input: CreateLocation,
    output: Location,
    errors: ['duplicate'],
    emits: [locationCreated],
    async handler(ctx, input) {
      const location = await repo.insertLocation(ctx.tx, ctx.orgId, input);
      await ctx.emit('catalog.location.created', { location });
      return location;
    },
  }),

  defineOperation({
    name: 'catalog.location.getLocation',
    summary: 'A location, archived or not.',
    description: 'Another organization’s location answers 404 exactly like a missing one.',
    permission: 'catalog.location.read',
    feature,
    get: true,
    input: ById,
    output: Location,
    errors: ['not_found'],
    async handler(ctx, { id }) {
      return (await repo.findLocation(ctx.tx, ctx.orgId, id)) ?? throwNotFound('location', id);
    },
  }),

  defineOperation({
    name: 'catalog.location.listLocations',
    summary: 'Locations, oldest first.',
    description: 'Filters: `kind`, `isActive`, `includeArchived` (archived locations are left out by default), `q` (case-insensitive search in name and code).',
    permission: 'catalog.location.read',
    feature,
    get: true,
    input: ListLocations,
    output: pageOut(Location),
    errors: ['invalid_cursor'],
    async handler(ctx, { filter, page }) {
      return repo.listLocations(ctx.tx, ctx.orgId, filter, page);
    },
  }),

  defineOperation({
    name: 'catalog.location.updateLocation',
    summary: 'Change a location.',
    description: 'Only the fields given change; `null` clears `address` or `timezone`. An archived location is history and refuses changes (409 `location_archived`).',
    permission: 'catalog.location.write',
    feature,
    get: false,
    input: UpdateLocation,
    output: Location,
    errors: ['not_found', 'location_archived'],
    emits: [locationUpdated],
    async handler(ctx, { id, ...changes }) {
      const current = (await repo.findLocation(ctx.tx, ctx.orgId, id, { forUpdate: true })) ?? throwNotFound('location', id);
      if (current.archivedAt) throw conflict('location_archived', `Location ${id} is archived and cannot be changed.`);
      const location = await repo.updateLocation(ctx.tx, ctx.orgId, id, changes);
      await ctx.emit('catalog.location.updated', { location });
      return location;
    },
  }),

  defineOperation({
    name: 'catalog.location.archiveLocation',
    summary: 'Archive a location softly: it leaves the default list and stays readable.',
    description: 'Rows are never deleted. Archiving twice is 409 `location_archived`.',
    permission: 'catalog.location.write',
    feature,
    get: false,
    input: ById,
    output: Location,
    errors: ['not_found', 'location_archived'],
    emits: [locationArchived],
    async handler(ctx, { id }) {
      const current = (await repo.findLocation(ctx.tx, ctx.orgId, id, { forUpdate: true })) ?? throwNotFound('location', id);
      if (current.archivedAt) throw conflict('location_archived', `Location ${id} is already archived.`);
      const location = await repo.archiveLocation(ctx.tx, ctx.orgId, id);
      await ctx.emit('catalog.location.archived', { location });
      return location;
    },
  }),
];

