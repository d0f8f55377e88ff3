import type { TenancyCase } from '../../../testing/tenancy.js';
import { makeProfile, makeRoaster } from '../roast/testing.js';

export const cases: TenancyCase[] = [
  {
    operation: 'production.profile.getProfile',
    expect: 'not_found',
    async arrange(owner) {
      const { id } = await makeProfile(owner);
      return { input: { id }, secretIds: [id] };
    },
  },
  {
    operation: 'production.profile.listProfiles',
    expect: 'invisible',
    async arrange(owner) {
      const { id } = await makeProfile(owner, { code: 'SAMEPROFILE' });
      return { input: { filter: { q: 'SAMEPROFILE' } }, secretIds: [id] };
    },
  },
  {
    // Another organization's machine cannot carry this organization's profile.
    operation: 'production.profile.createProfile',
    expect: 'not_found',
    async arrange(owner) {
      const { id } = await makeRoaster(owner);
      return { input: { name: 'Borrowed', code: 'BORROWED', machineId: id }, secretIds: [id] };
    },
  },
];
