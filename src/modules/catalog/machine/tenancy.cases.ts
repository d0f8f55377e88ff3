import type { TenancyCase } from '../../../testing/tenancy.js';
import type { TestOrg } from '../../../testing/harness.js';
import { makeLocation } from '../location/tenancy.cases.js';

export async function makeMachine(org: TestOrg, code = `M${Math.random().toString(36).slice(2, 8)}`): Promise<string> {
  const res = await org.call('catalog.machine.registerMachine', { name: `Roaster ${code}`, code, machineType: 'drum', capacityKg: 15 });
  if (res.status !== 200) throw new Error(`registerMachine: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

const byId = (operation: string, field: 'id' | 'machineId', extra: Record<string, unknown> = {}): TenancyCase => ({
  operation,
  expect: 'not_found',
  async arrange(owner) {
    const id = await makeMachine(owner);
    return { input: { [field]: id, ...extra }, secretIds: [id] };
  },
});

export const cases: TenancyCase[] = [
  byId('catalog.machine.getMachine', 'id'),
  byId('catalog.machine.updateMachine', 'id', { name: 'Taken over', isActive: false }),
  byId('catalog.machine.issueMachineBridgeToken', 'machineId'),
  {
    operation: 'catalog.machine.listMachines',
    expect: 'invisible',
    async arrange(owner) {
      const id = await makeMachine(owner, 'SAMEMACHINE');
      return { input: { filter: { q: 'SAMEMACHINE' } }, secretIds: [id] };
    },
  },
  {
    // Another organization's location cannot take this organization's machine: it answers as if it did not exist.
    operation: 'catalog.machine.registerMachine',
    expect: 'not_found',
    async arrange(owner) {
      const locationId = await makeLocation(owner);
      return { input: { name: 'Borrowed', code: 'BORROWED', locationId }, secretIds: [locationId] };
    },
  },
];
