import type { TenancyCase } from '../../testing/tenancy.js';
import type { TestOrg } from '../../testing/harness.js';

export async function makeOAuthClient(org: TestOrg, role = 'viewer', scopes: string[] = []): Promise<{ clientId: string; clientSecret: string }> {
  const res = await org.call('webhooks.createOAuthClient', { role, scopes });
  if (res.status !== 200) throw new Error(`createOAuthClient: ${res.status} ${JSON.stringify(res.body)}`);
  return { clientId: res.body.clientId, clientSecret: res.body.clientSecret };
}

export const cases: TenancyCase[] = [
  {
    operation: 'webhooks.createOAuthClient',
    expect: 'invisible',
    async arrange(owner) {
      const { clientId } = await makeOAuthClient(owner);
      return { input: { role: 'viewer' }, secretIds: [clientId] };
    },
  },
  {
    operation: 'webhooks.listOAuthClients',
    expect: 'invisible',
    async arrange(owner) {
      const { clientId } = await makeOAuthClient(owner);
      return { input: { filter: { includeRevoked: true } }, secretIds: [clientId] };
    },
  },
  {
    operation: 'webhooks.revokeOAuthClient',
    expect: 'not_found',
    async arrange(owner) {
      const { clientId } = await makeOAuthClient(owner);
      return { input: { id: clientId }, secretIds: [clientId] };
    },
  },
];

let invited = 0;
/** A member of the organization, invited by a fresh email through identity.addMember. */
export async function makeMember(org: TestOrg, role = 'viewer'): Promise<{ userId: string; email: string; loginToken: string | null }> {
  const email = `member${++invited}.${Date.now()}.${Math.random().toString(36).slice(2, 8)}@roastery.example`;
  const res = await org.call('identity.addMember', { email, role });
  if (res.status !== 200) throw new Error(`addMember: ${res.status} ${JSON.stringify(res.body)}`);
  return { userId: res.body.userId, email, loginToken: res.body.loginToken };
}

export async function makeApiKey(org: TestOrg, role = 'viewer', scopes: string[] = []): Promise<{ id: string; apiKey: string }> {
  const res = await org.call('identity.createApiKey', { role, scopes });
  if (res.status !== 200) throw new Error(`createApiKey: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.id, apiKey: res.body.apiKey };
}

cases.push(
  {
    operation: 'identity.createApiKey',
    expect: 'invisible',
    async arrange(owner) {
      const { id } = await makeApiKey(owner);
      return { input: { role: 'viewer' }, secretIds: [id] };
    },
  },
  {
    operation: 'identity.listApiKeys',
    expect: 'invisible',
    async arrange(owner) {
      const { id } = await makeApiKey(owner);
      return { input: { filter: { includeRevoked: true } }, secretIds: [id] };
    },
  },
  {
    operation: 'identity.revokeApiKey',
    expect: 'not_found',
    async arrange(owner) {
      const { id } = await makeApiKey(owner);
      return { input: { id }, secretIds: [id] };
    },
  },
  {
    operation: 'identity.listMembers',
    expect: 'invisible',
    async arrange(owner) {
      const { userId } = await makeMember(owner);
      return { input: {}, secretIds: [userId] };
    },
  },
  {
    operation: 'identity.addMember',
    expect: 'invisible',
    async arrange(owner) {
      const { userId } = await makeMember(owner);
      return { input: { email: `newcomer.${Date.now()}.${Math.random().toString(36).slice(2, 8)}@roastery.example`, role: 'viewer' }, secretIds: [userId] };
    },
  },
  {
    operation: 'identity.setMemberRole',
    expect: 'not_found',
    async arrange(owner) {
      const { userId } = await makeMember(owner);
      return { input: { userId, role: 'admin' }, secretIds: [userId] };
    },
  },
  {
    operation: 'identity.removeMember',
    expect: 'not_found',
    async arrange(owner) {
      const { userId } = await makeMember(owner);
      return { input: { userId }, secretIds: [userId] };
    },
  },
  {
    operation: 'identity.getOrganization',
    expect: 'invisible',
    async arrange(owner) {
      return { input: {}, secretIds: [owner.id] };
    },
  },
  {
    operation: 'identity.renameOrganization',
    expect: 'invisible',
    async arrange(owner) {
      return { input: { name: 'Renamed by the other roastery' }, secretIds: [owner.id] };
    },
  },
  {
    // Another organization's id as the confirmation: 404 like an id that exists nowhere; neither is scheduled.
    operation: 'identity.scheduleOrganizationDeletion',
    expect: 'not_found',
    async arrange(owner) {
      return { input: { confirm: owner.id }, secretIds: [owner.id] };
    },
  },
  {
    // Cancels only the caller's own organization's deletion: the owner's stays scheduled, and is never shown.
    operation: 'identity.cancelOrganizationDeletion',
    expect: 'invisible',
    async arrange(owner) {
      const res = await owner.call('identity.scheduleOrganizationDeletion', { confirm: owner.id });
      if (res.status !== 200) throw new Error(`scheduleOrganizationDeletion: ${res.status} ${JSON.stringify(res.body)}`);
      return { input: {}, secretIds: [owner.id, res.body.deletion.purgeAfter] };
    },
  },
  {
    // Another organization's export: 404 like an export that never existed, its status and link never shown.
    operation: 'identity.getOrganizationExport',
    expect: 'not_found',
    async arrange(owner) {
      const res = await owner.call('identity.exportOrganization', {});
      if (res.status !== 200) throw new Error(`exportOrganization: ${res.status} ${JSON.stringify(res.body)}`);
      return { input: { id: res.body.id }, secretIds: [res.body.id] };
    },
  },
  {
    // Exports only the caller's own organization: the answer names none of the owner's exports.
    operation: 'identity.exportOrganization',
    expect: 'invisible',
    async arrange(owner) {
      const res = await owner.call('identity.exportOrganization', {});
      if (res.status !== 200) throw new Error(`exportOrganization: ${res.status} ${JSON.stringify(res.body)}`);
      return { input: {}, secretIds: [owner.id, res.body.id] };
    },
  },
);
