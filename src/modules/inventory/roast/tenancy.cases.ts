import { readFileSync } from 'node:fs';
import type { TenancyCase } from '../../../testing/tenancy.js';
import type { TestOrg } from '../../../testing/harness.js';
import { makeGreenLot } from '../green/testing.js';
import { unique } from '../../production/roast/testing.js';

/** A roasted lot of the owner's, made by importing a logger file charged to a green lot. */
async function makeRoastedLot(owner: TestOrg, batchNumber = unique('R')): Promise<string> {
  const greenLotId = await makeGreenLot(owner, { weightKg: '10' });
  const content = readFileSync(new URL('../../../../../shared/fixtures/roast-logs/profile2.json', import.meta.url), 'utf8');
  const res = await owner.call('production.roast.importLoggerRoast', { content, batchNumber, greenLotId });
  if (res.status !== 200) throw new Error(`importLoggerRoast: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.roastedLot.id;
}

export const cases: TenancyCase[] = [
  {
    operation: 'inventory.roast.getRoastedLot',
    expect: 'not_found',
    async arrange(owner) {
      const id = await makeRoastedLot(owner);
      return { input: { id }, secretIds: [id] };
    },
  },
  {
    operation: 'inventory.roast.adjustRoastedLotQuantity',
    expect: 'not_found',
    async arrange(owner) {
      const id = await makeRoastedLot(owner);
      return { input: { id, deltaKg: '-0.5', reason: 'write_off' }, secretIds: [id] };
    },
  },
  {
    operation: 'inventory.roast.listRoastedLots',
    expect: 'invisible',
    async arrange(owner) {
      const id = await makeRoastedLot(owner, 'SAMEROAST');
      return { input: { filter: { q: 'SAMEROAST' } }, secretIds: [id] };
    },
  },
];
