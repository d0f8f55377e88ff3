import type { TenancyCase } from '../../../testing/tenancy.js';
import type { TestOrg } from '../../../testing/harness.js';
import { makeLocation } from '../../catalog/location/tenancy.cases.js';

async function makeSchedule(owner: TestOrg): Promise<string> {
  const res = await owner.call('production.schedule.generateProductionSchedule', { name: 'Owner’s Monday', scheduledDate: '2030-01-07' });
  if (res.status !== 200) throw new Error(`generateProductionSchedule: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

export const cases: TenancyCase[] = [
  {
    operation: 'production.schedule.getProductionSchedule',
    expect: 'not_found',
    async arrange(owner) {
      const id = await makeSchedule(owner);
      return { input: { id }, secretIds: [id] };
    },
  },
  {
    operation: 'production.schedule.releaseScheduleToProduction',
    expect: 'not_found',
    async arrange(owner) {
      const id = await makeSchedule(owner);
      return { input: { id }, secretIds: [id] };
    },
  },
  {
    // Planning at another organization's location is planning nowhere.
    operation: 'production.schedule.generateProductionSchedule',
    expect: 'not_found',
    async arrange(owner) {
      const locationId = await makeLocation(owner);
      return { input: { name: 'Borrowed site', scheduledDate: '2030-01-07', locationId }, secretIds: [locationId] };
    },
  },
  {
    operation: 'production.schedule.listDemandAggregate',
    expect: 'invisible',
    async arrange(owner) {
      const id = await makeSchedule(owner);
      return { input: {}, secretIds: [id] };
    },
  },
];
