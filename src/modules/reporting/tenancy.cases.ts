import type { TenancyCase } from '../../testing/tenancy.js';
import type { TestOrg } from '../../testing/harness.js';
import { makeLocation } from '../catalog/location/tenancy.cases.js';
import { generated } from './testing.js';

async function readyReport(owner: TestOrg): Promise<string> {
  const report = await generated(owner, { kind: 'inventory_valuation', title: 'Owner valuation' });
  return report.id;
}

export const cases: TenancyCase[] = [
  {
    operation: 'reporting.getReport',
    expect: 'not_found',
    async arrange(owner) {
      const id = await readyReport(owner);
      return { input: { id }, secretIds: [id] };
    },
  },
  {
    operation: 'reporting.getDownloadUrl',
    expect: 'not_found',
    async arrange(owner) {
      const id = await readyReport(owner);
      return { input: { id }, secretIds: [id] };
    },
  },
  {
    operation: 'reporting.listReports',
    expect: 'invisible',
    async arrange(owner) {
      const id = await readyReport(owner);
      return { input: { filter: { kind: 'inventory_valuation' } }, secretIds: [id] };
    },
  },
  {
    // Another organization's location is unknown here: the valuation of it is refused like a missing one.
    operation: 'reporting.generateReport',
    expect: 'not_found',
    async arrange(owner) {
      const locationId = await makeLocation(owner);
      return { input: { kind: 'inventory_valuation', parameters: { locationIds: [locationId] } }, secretIds: [locationId] };
    },
  },
];
