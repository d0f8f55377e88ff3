import type { TenancyCase } from '../../testing/tenancy.js';
import { makeLocation } from '../catalog/location/tenancy.cases.js';
import { GREEN_HEADER, appliedGreenImport, greenRows, toCsv } from './testing.js';

export const cases: TenancyCase[] = [
  {
    operation: 'inventory.green.getGreenLotImport',
    expect: 'not_found',
    async arrange(owner) {
      const id = await appliedGreenImport(owner);
      return { input: { id }, secretIds: [id] };
    },
  },
  {
    // Another organization's location is unknown here: its rows are refused like a missing location's, and the answer names no lot of the owner's.
    operation: 'inventory.green.checkGreenLotImport',
    expect: 'invisible',
    async arrange(owner) {
      const locationId = await makeLocation(owner);
      return { input: { format: 'csv', content: toCsv(GREEN_HEADER, greenRows(1, { prefix: 'TEN', locationId })) }, secretIds: [] };
    },
  },
  {
    operation: 'inventory.green.applyGreenLotImport',
    expect: 'invisible',
    async arrange(owner) {
      const id = await appliedGreenImport(owner);
      return { input: { format: 'csv', content: toCsv(GREEN_HEADER, greenRows(1, { prefix: 'TEN2' })) }, secretIds: [id] };
    },
  },
];
