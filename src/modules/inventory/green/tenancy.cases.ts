import type { TenancyCase } from '../../../testing/tenancy.js';
import type { TestOrg } from '../../../testing/harness.js';
import { makeLocation } from '../../catalog/location/tenancy.cases.js';
import { makeGreenLot } from './testing.js';

/** The owner's lot, probed by another organization with `input(lotId)`: it must answer as for no lot at all. */
const onLot = (operation: string, input: (lotId: string) => Record<string, unknown>): TenancyCase => ({
  operation,
  expect: 'not_found',
  async arrange(owner) {
    const lotId = await makeGreenLot(owner, { weightKg: '50' });
    return { input: input(lotId), secretIds: [lotId] };
  },
});

async function lotAt(owner: TestOrg) {
  const locationId = await makeLocation(owner);
  const lotId = await makeGreenLot(owner, { weightKg: '50', locationId });
  return { lotId, locationId };
}

export const cases: TenancyCase[] = [
  onLot('inventory.green.getGreenLot', (id) => ({ id })),
  onLot('inventory.green.getGreenLotLandedCost', (greenLotId) => ({ greenLotId })),
  onLot('inventory.green.listGreenLotBalances', (greenLotId) => ({ greenLotId })),
  onLot('inventory.green.listGreenLotTransactions', (greenLotId) => ({ greenLotId })),
  onLot('inventory.green.adjustGreenLotQuantity', (id) => ({ id, deltaKg: '-1', reason: 'write_off' })),
  onLot('inventory.green.reserveGreenLot', (id) => ({ id, weightKg: '1' })),
  onLot('inventory.green.releaseGreenLotReservation', (id) => ({ id, weightKg: '1' })),
  onLot('inventory.green.splitGreenLot', (id) => ({ id, weightKg: '1', newLotCode: 'STOLEN-SPLIT' })),
  onLot('inventory.green.setGreenLotCostComponents', (greenLotId) => ({ greenLotId, components: [{ bucket: 'price', amount: '1', currency: 'EUR' }] })),
  {
    operation: 'inventory.green.transferGreenLotToLocation',
    expect: 'not_found',
    async arrange(owner) {
      const { lotId, locationId } = await lotAt(owner);
      const elsewhere = await makeLocation(owner);
      // secretIds holds one id per prefix: the tenancy test masks them all to one ghost id per prefix.
      return { input: { id: lotId, fromLocationId: locationId, toLocationId: elsewhere, weightKg: '1' }, secretIds: [lotId, locationId] };
    },
  },
  {
    operation: 'inventory.green.mergeGreenLots',
    expect: 'not_found',
    async arrange(owner) {
      const targetId = await makeGreenLot(owner);
      const sourceId = await makeGreenLot(owner);
      // One id per prefix in secretIds (the tenancy test masks them to one ghost id per prefix).
      return { input: { targetId, sourceIds: [sourceId] }, secretIds: [targetId] };
    },
  },
  {
    // Another organization's location cannot receive this organization's coffee.
    operation: 'inventory.green.importGreenLot',
    expect: 'not_found',
    async arrange(owner) {
      const locationId = await makeLocation(owner);
      return { input: { name: 'Smuggled', lotCode: 'SMUGGLED-1', weightKg: '1', locationId }, secretIds: [locationId] };
    },
  },
  {
    operation: 'inventory.green.listGreenLots',
    expect: 'invisible',
    async arrange(owner) {
      const { lotId, locationId } = await lotAt(owner);
      return { input: { filter: { locationId, hasStock: true } }, secretIds: [lotId] };
    },
  },
];
