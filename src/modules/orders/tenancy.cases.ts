import type { TenancyCase } from '../../testing/tenancy.js';
import type { TestOrg } from '../../testing/harness.js';
import { makeGreenLot } from '../inventory/green/testing.js';
import { confirmedOrder, createOrder, makeCustomer, roastLot } from './testing.js';

async function draftOrder(owner: TestOrg) {
  const customer = await makeCustomer(owner);
  return createOrder(owner, { customerId: customer.id, lines: [{ greenLotId: await makeGreenLot(owner), quantityKg: '1', unitPrice: '10' }] });
}

async function allocatedOrder(owner: TestOrg) {
  const lot = await roastLot(owner, { kg: '2' });
  const order = await confirmedOrder(owner, [{ roastedLotId: lot.roastedLotId, quantityKg: '1' }]);
  const res = await owner.call('orders.allocateOrder', { id: order.id });
  if (res.status !== 200 || !res.body.complete) throw new Error(`allocateOrder: ${res.status} ${JSON.stringify(res.body)}`);
  return order;
}

const byOrderId = (operation: string, arrangeOrder: (owner: TestOrg) => Promise<{ id: string }>): TenancyCase => ({
  operation,
  expect: 'not_found',
  async arrange(owner) {
    const order = await arrangeOrder(owner);
    return { input: { id: order.id }, secretIds: [order.id] };
  },
});

async function shopConnection(owner: TestOrg) {
  const customer = await makeCustomer(owner);
  const res = await owner.call('orders.createShopConnection', { platform: 'shopify', name: 'Shop', code: `WEB${Math.random().toString(36).slice(2, 6)}`, customerId: customer.id, secret: 'shpss_tenancy_secret' });
  if (res.status !== 200) throw new Error(`createShopConnection: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string; customerId: string };
}

export const cases: TenancyCase[] = [
  {
    // Another organization's customer cannot take a shop's orders.
    operation: 'orders.createShopConnection',
    expect: 'not_found',
    async arrange(owner) {
      const customer = await makeCustomer(owner);
      return { input: { platform: 'woocommerce', name: 'Intruder', code: 'INTRUDER', customerId: customer.id, secret: 'wc_secret_123' }, secretIds: [customer.id] };
    },
  },
  {
    operation: 'orders.listShopConnections',
    expect: 'invisible',
    async arrange(owner) {
      const shop = await shopConnection(owner);
      return { input: {}, secretIds: [shop.id, shop.customerId] };
    },
  },
  {
    operation: 'orders.rotateShopSecret',
    expect: 'not_found',
    async arrange(owner) {
      const shop = await shopConnection(owner);
      return { input: { id: shop.id, secret: 'taken-over-secret' }, secretIds: [shop.id] };
    },
  },
  byOrderId('orders.deleteShopConnection', shopConnection),
  {
    // The same code is free in another organization, and creating it there touches nothing here.
    operation: 'orders.createCustomer',
    expect: 'invisible',
    async arrange(owner) {
      const customer = await makeCustomer(owner, { code: 'SAMECUSTOMER' });
      return { input: { name: 'Mine', code: 'SAMECUSTOMER' }, secretIds: [customer.id] };
    },
  },
  {
    operation: 'orders.listCustomers',
    expect: 'invisible',
    async arrange(owner) {
      const customer = await makeCustomer(owner, { name: 'Hidden Café' });
      return { input: { filter: { q: 'Hidden' } }, secretIds: [customer.id] };
    },
  },
  {
    // Another organization's customer and lot cannot be ordered for.
    operation: 'orders.createOrder',
    expect: 'not_found',
    async arrange(owner) {
      const customer = await makeCustomer(owner);
      const greenLotId = await makeGreenLot(owner);
      return {
        input: { orderNumber: 'SO-INTRUDER', customerId: customer.id, lines: [{ greenLotId, quantityKg: '1', unitPrice: '1', currency: 'EUR' }] },
        secretIds: [customer.id, greenLotId],
      };
    },
  },
  {
    operation: 'orders.listOrders',
    expect: 'invisible',
    async arrange(owner) {
      const order = await draftOrder(owner);
      return { input: { filter: { q: order.orderNumber } }, secretIds: [order.id] };
    },
  },
  byOrderId('orders.getOrder', draftOrder),
  byOrderId('orders.confirmOrder', draftOrder),
  byOrderId('orders.cancelOrder', draftOrder),
  byOrderId('orders.allocateOrder', async (owner) => confirmedOrder(owner, [{ greenLotId: await makeGreenLot(owner), quantityKg: '1' }])),
  byOrderId('orders.fulfillOrder', allocatedOrder),
  {
    operation: 'orders.releaseOrderAllocation',
    expect: 'not_found',
    async arrange(owner) {
      const order = await allocatedOrder(owner);
      return { input: { orderLineId: order.lines[0].id }, secretIds: [order.lines[0].id] };
    },
  },
];
