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
