import { defineOperation } from '../../../rpc/define.js';
import { notFound } from '../../../rpc/errors.js';
import { findMachine } from '../../catalog/machine/repository.js';
import * as repo from './repository.js';
import { ById, CreateProfile, ListProfiles } from './schemas.js';

const module = 'roasting' as const;

export const profileOperations = [
  defineOperation({
    name: 'production.profile.createProfile',
    summary:
      'Create a roast profile: targets for charge weight, drop temperature (°C), total time (s) and development time ratio (%), ' +
      'each optional. machineId binds the profile to one machine of the organization. Codes are unique per organization.',
    permission: 'production.profile.write',
    module,
    get: false,
    input: CreateProfile,
    emits: ['production.profile.created'],
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
    permission: 'production.profile.read',
    module,
    get: true,
    input: ById,
    async handler(ctx, { id }) {
      return (await repo.findProfile(ctx.tx, ctx.orgId, id)) ?? throwNotFound(id);
    },
  }),

  defineOperation({
    name: 'production.profile.listProfiles',
    summary: 'Roast profiles, oldest first. Filters: machineId, q (name or code).',
    permission: 'production.profile.read',
    module,
    get: true,
    input: ListProfiles,
    async handler(ctx, { filter, page }) {
      return repo.listProfiles(ctx.tx, ctx.orgId, filter, page);
    },
  }),
];

function throwNotFound(id: string): never {
  throw notFound('profile', id);
}
