import { defineOperation } from '../../../rpc/define.js';
import { notFound, throwNotFound } from '../../../rpc/errors.js';
import { findMachine } from '../../catalog/machine/service.js';
import * as repo from './repository.js';
import { ById, CreateProfile, ListProfiles, Profile } from './schemas.js';
import { profileCreated } from './events.js';
import { pageOut } from '../../../rpc/outputs.js';

const feature = 'roasting' as const;

export const profileOperations = [
  defineOperation({
    name: 'production.profile.createProfile',
    summary: 'Create a roast profile: targets for charge weight, drop temperature, total time and development time ratio.',
    description:
      'Every target is optional: charge weight (kg), drop temperature (°C), total time (s) and development time ratio (%). ' +
      '`machineId` binds the profile to one machine of the organization (404 naming `machineId` otherwise); `startRoastBatch` then refuses it on another machine. ' +
      'Codes are unique per organization (409 `duplicate`). `shelfLifeDays` (an extension) sets how long its roasts keep; unset, 90 days.',
    permission: 'production.profile.write',
    feature,
    get: false,
    input: CreateProfile,
    output: Profile,
    errors: ['not_found', 'duplicate'],
    emits: [profileCreated],
    async handler(ctx, input) {
      if (input.machineId !== undefined && !(await findMachine(ctx.tx, ctx.orgId, input.machineId))) {
        throw notFound('machine', input.machineId, 'machineId');
      }
      const profile = await repo.insertProfile(ctx.tx, ctx.orgId, input);
      await ctx.emit('production.profile.created', { profile });
      return profile;
    },
  }),

  defineOperation({
    name: 'production.profile.getProfile',
    summary: 'A roast profile and its targets.',
    description: 'Another organization’s profile answers 404 exactly like a missing one.',
    permission: 'production.profile.read',
    feature,
    get: true,
    input: ById,
    output: Profile,
    errors: ['not_found'],
    async handler(ctx, { id }) {
      return (await repo.findProfile(ctx.tx, ctx.orgId, id)) ?? throwNotFound('profile', id);
    },
  }),

  defineOperation({
    name: 'production.profile.listProfiles',
    summary: 'Roast profiles, oldest first.',
    description: 'Filters: `machineId`, `q` (case-insensitive search in name and code).',
    permission: 'production.profile.read',
    feature,
    get: true,
    input: ListProfiles,
    output: pageOut(Profile),
    errors: ['invalid_cursor'],
    async handler(ctx, { filter, page }) {
      return repo.listProfiles(ctx.tx, ctx.orgId, filter, page);
    },
  }),
];

