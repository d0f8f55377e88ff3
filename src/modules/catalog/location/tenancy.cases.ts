import type { TenancyCase } from '../../../testing/tenancy.js';
import type { TestOrg } from '../../../testing/harness.js';

export async function makeLocation(org: TestOrg, code = `L${Math.random().toString(36).slice(2, 8)}`): Promise<string> {
  const res = await org.call('catalog.location.createLocation', { name: `Site ${code}`, code, kind: 'warehouse' });
  if (res.status !== 200) throw new Error(`createLocation: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

const byId = (operation: string, extra: Record<string, unknown> = {}): TenancyCase => ({
  operation,
  expect: 'not_found',
  async arrange(owner) {
    const id = await makeLocation(owner);
    return { input: { id, ...extra }, secretIds: [id] };
  },
});

export const cases: TenancyCase[] = [
  byId('catalog.location.getLocation'),
  byId('catalog.location.updateLocation', { name: 'Taken over' }),
  byId('catalog.location.archiveLocation'),
  {
    operation: 'catalog.location.listLocations',
    expect: 'invisible',
    async arrange(owner) {
      const id = await makeLocation(owner, 'SAMECODE');
      return { input: { filter: { q: 'SAMECODE' } }, secretIds: [id] };
    },
  },
  {
    // The same code is free in another organization, and creating it there touches nothing here.
    operation: 'catalog.location.createLocation',
    expect: 'invisible',
    async arrange(owner) {
      const id = await makeLocation(owner, 'DUP');
      return { input: { name: 'Mine', code: 'DUP', kind: 'warehouse' }, secretIds: [id] };
    },
  },
];
