import type { TenancyCase } from '../../testing/tenancy.js';
import { makeLocation } from '../catalog/location/tenancy.cases.js';
import { GREEN_HEADER, appliedGreenImport, appliedPartnerImport, greenRows, toCsv } from './testing.js';

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
  {
    operation: 'catalog.party.getPartnerImport',
    expect: 'not_found',
    async arrange(owner) {
      const id = await appliedPartnerImport(owner);
      return { input: { id }, secretIds: [id] };
    },
  },
  {
    // A code another organization uses is free here: nothing of theirs is named.
    operation: 'catalog.party.checkPartnerImport',
    expect: 'invisible',
    async arrange(owner) {
      const id = await appliedPartnerImport(owner);
      return { input: { format: 'csv', content: 'Code,Name,Types\nTEN-P,Tenancy partner,supplier\n' }, secretIds: [id] };
    },
  },
  {
    operation: 'catalog.party.applyPartnerImport',
    expect: 'invisible',
    async arrange(owner) {
      const id = await appliedPartnerImport(owner);
      return { input: { format: 'csv', content: 'Code,Name,Types\nTEN-Q,Tenancy partner,supplier\n' }, secretIds: [id] };
    },
  },
];
