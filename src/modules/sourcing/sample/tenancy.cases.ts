import type { TenancyCase } from '../../../testing/tenancy.js';
import { makeContract } from '../contract/testing.js';
import { makeSample } from './testing.js';

const onSample = (operation: string, input: (id: string) => Record<string, unknown>, path: string[] = []): TenancyCase => ({
  operation,
  expect: 'not_found',
  async arrange(owner) {
    const { id } = await makeSample(owner, {}, path);
    return { input: input(id), secretIds: [id] };
  },
});

export const cases: TenancyCase[] = [
  onSample('sourcing.sample.getSample', (id) => ({ id })),
  onSample('sourcing.sample.updateSampleStatus', (id) => ({ id, status: 'in_transit' })),
  onSample('sourcing.sample.transferSampleToInventory', (id) => ({ id, lotCode: 'STOLEN-SAMPLE', weightKg: '1' }), ['received']),
  {
    // Another organization's contract cannot be linked to a sample.
    operation: 'sourcing.sample.createSample',
    expect: 'not_found',
    async arrange(owner) {
      const { id } = await makeContract(owner);
      return { input: { sampleNumber: 'S-STOLEN', name: 'Stolen', sampleType: 'pre_shipment', contractId: id }, secretIds: [id] };
    },
  },
  {
    operation: 'sourcing.sample.listSamples',
    expect: 'invisible',
    async arrange(owner) {
      const { id } = await makeSample(owner, { sampleNumber: 'S-SAME' });
      return { input: { filter: { q: 'S-SAME' } }, secretIds: [id] };
    },
  },
];
