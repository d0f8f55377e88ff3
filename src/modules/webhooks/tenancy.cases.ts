import type { TenancyCase } from '../../testing/tenancy.js';
import type { TestOrg } from '../../testing/harness.js';
import { makeLocation } from '../catalog/location/tenancy.cases.js';

/** An https URL that never resolves (.invalid), so no delivery ever leaves the test. */
export const UNRESOLVABLE_URL = 'https://hooks.example.invalid/firstcrack';

export async function makeEndpoint(org: TestOrg, input: Record<string, unknown> = {}): Promise<{ id: string; secret: string }> {
  const res = await org.call('webhooks.createEndpoint', { url: UNRESOLVABLE_URL, ...input });
  if (res.status !== 200) throw new Error(`createEndpoint: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.id, secret: res.body.secret };
}

/** An endpoint with one delivery (a location created after it). */
async function makeDelivery(org: TestOrg): Promise<{ endpointId: string; deliveryId: string }> {
  const { id } = await makeEndpoint(org, { eventTypes: ['catalog.location.*'] });
  await makeLocation(org);
  const res = await org.call('webhooks.listDeliveries', { filter: { endpointId: id } });
  if (res.status !== 200 || res.body.items.length === 0) throw new Error(`listDeliveries: ${res.status} ${JSON.stringify(res.body)}`);
  return { endpointId: id, deliveryId: res.body.items[0].id };
}

const byEndpoint = (operation: string, extra: Record<string, unknown> = {}): TenancyCase => ({
  operation,
  expect: 'not_found',
  async arrange(owner) {
    const { id } = await makeEndpoint(owner);
    return { input: { id, ...extra }, secretIds: [id] };
  },
});

export const cases: TenancyCase[] = [
  byEndpoint('webhooks.getEndpoint'),
  byEndpoint('webhooks.updateEndpoint', { description: 'Taken over', status: 'disabled' }),
  byEndpoint('webhooks.deleteEndpoint'),
  byEndpoint('webhooks.rotateSecret', { overlapMinutes: 0 }),
  {
    operation: 'webhooks.createEndpoint',
    expect: 'invisible',
    async arrange(owner) {
      const { id } = await makeEndpoint(owner);
      return { input: { url: UNRESOLVABLE_URL }, secretIds: [id] };
    },
  },
  {
    operation: 'webhooks.listEndpoints',
    expect: 'invisible',
    async arrange(owner) {
      const { id } = await makeEndpoint(owner);
      return { input: {}, secretIds: [id] };
    },
  },
  {
    operation: 'webhooks.listDeliveries',
    expect: 'invisible',
    async arrange(owner) {
      const { endpointId, deliveryId } = await makeDelivery(owner);
      return { input: { filter: { endpointId } }, secretIds: [deliveryId, endpointId] };
    },
  },
  {
    operation: 'webhooks.redeliver',
    expect: 'not_found',
    async arrange(owner) {
      const { deliveryId } = await makeDelivery(owner);
      return { input: { id: deliveryId }, secretIds: [deliveryId] };
    },
  },
  {
    operation: 'webhooks.listEvents',
    expect: 'invisible',
    async arrange(owner) {
      const location = await makeLocation(owner);
      return { input: { filter: { types: ['catalog.location.*'] } }, secretIds: [location] };
    },
  },
  {
    // The catalog is the same for everyone: nothing of the owner's is in it.
    operation: 'webhooks.listEventTypes',
    expect: 'invisible',
    async arrange(owner) {
      const location = await makeLocation(owner);
      return { input: {}, secretIds: [location] };
    },
  },
];
