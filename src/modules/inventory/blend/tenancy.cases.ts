import type { TenancyCase } from '../../../testing/tenancy.js';
import type { TestOrg } from '../../../testing/harness.js';
import { makeGreenLot } from '../green/testing.js';

export async function makeBlend(owner: TestOrg, code = `B${Math.random().toString(36).slice(2, 8)}`): Promise<{ blendId: string; lotIds: string[] }> {
  const lotIds = [await makeGreenLot(owner), await makeGreenLot(owner)];
  const res = await owner.call('inventory.blend.createBlend', {
    name: `Blend ${code}`,
    code,
    blendType: 'pre_roast',
    components: [
      { greenLotId: lotIds[0], ratioPct: '60' },
      { greenLotId: lotIds[1], ratioPct: '40' },
    ],
  });
  if (res.status !== 200) throw new Error(`createBlend: ${res.status} ${JSON.stringify(res.body)}`);
  return { blendId: res.body.id, lotIds };
}

export const cases: TenancyCase[] = [
  {
    operation: 'inventory.blend.getBlend',
    expect: 'not_found',
    async arrange(owner) {
      const { blendId, lotIds } = await makeBlend(owner);
      return { input: { id: blendId }, secretIds: [blendId, ...lotIds] };
    },
  },
  {
    operation: 'inventory.blend.validateBlendAvailability',
    expect: 'not_found',
    async arrange(owner) {
      const { blendId, lotIds } = await makeBlend(owner);
      return { input: { blendId, requestedKg: '10' }, secretIds: [blendId, ...lotIds] };
    },
  },
  {
    // A recipe cannot be built from another organization's coffee.
    operation: 'inventory.blend.createBlend',
    expect: 'not_found',
    async arrange(owner) {
      const lotId = await makeGreenLot(owner);
      return { input: { name: 'Borrowed', code: 'BORROWED', blendType: 'post_roast', components: [{ greenLotId: lotId, ratioPct: 100 }] }, secretIds: [lotId] };
    },
  },
  {
    operation: 'inventory.blend.listBlends',
    expect: 'invisible',
    async arrange(owner) {
      const { blendId, lotIds } = await makeBlend(owner, 'SAMEBLEND');
      return { input: { filter: { q: 'SAMEBLEND' } }, secretIds: [blendId, ...lotIds] };
    },
  },
];
