import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type CallResult, type TestOrg } from '../../testing/harness.js';
import { waitingForALock } from '../../testing/locks.js';
import { lockRoastedLots } from '../inventory/roast/service.js';
import { makeGreenLot } from '../inventory/green/testing.js';
import { makeProfile, roastedLedgerViolations } from '../production/roast/testing.js';
import { isoDate } from '../../db/sql.js';
import { confirmedOrder, createOrder, makeCustomer, ordersState, refusedUnchanged, roastLot } from './testing.js';

const server = await startTestServer();

const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000);

async function eventsOf(org: TestOrg, type: string) {
  return server.owner.query<{ data: any }>(`select data from events where org_id = $1 and type = $2 order by id`, [org.id, type]);
}

const claimsOf = (order: any) => order.lines.map((l: any) => l.allocations.map((a: any) => [a.lotCode, a.quantityKg, a.state]));

/**
 * Two roasts of one green coffee: `older` roasted 10 days ago keeps the default 90 days; `fresher`, roasted 5
 * days ago on a profile whose roasts keep 20 days, is best before the older one.
 */
async function twoRoasts(org: TestOrg) {
  const greenLotId = await makeGreenLot(org);
  const shortLived = await makeProfile(org, { shelfLifeDays: 20 });
  const older = await roastLot(org, { kg: '10', greenLotId, roastedAt: daysAgo(10) });
  const fresher = await roastLot(org, { kg: '10', greenLotId, roastedAt: daysAgo(5), profileId: shortLived.id });
  for (const [lot, days] of [[older, 90], [fresher, 20]] as const) {
    const stock = (await org.call('inventory.roast.getRoastedLot', { id: lot.roastedLotId })).body;
    assert.equal(stock.shelfLifeDays, days);
    assert.equal(stock.bestBefore, new Date(Date.parse(stock.roastedAt.slice(0, 10)) + days * 86_400_000).toISOString().slice(0, 10));
  }
  return { greenLotId, older, fresher };
}

test('fefo spends the earliest best-before first; fifo the earliest roasted', async () => {
  const org = await server.createOrg();
  const { greenLotId, older, fresher } = await twoRoasts(org);

  const fefo = await confirmedOrder(org, [{ greenLotId, quantityKg: '12' }]);
  const res = await org.call('orders.allocateOrder', { id: fefo.id });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.complete, true);
  assert.equal(res.body.strategy, 'fefo');
  assert.deepEqual(res.body.shortfalls, []);
  assert.equal(res.body.order.state, 'allocated');
  // The fresher lot expires first (5 days ago + 20 < 10 days ago + 90), so fefo takes it whole.
  assert.deepEqual(claimsOf(res.body.order), [[[fresher.lotCode, '10.000', 'active'], [older.lotCode, '2.000', 'active']]]);
  assert.deepEqual(res.body.claims.map((c: any) => [c.roastedLotId, c.quantityKg]), [[fresher.roastedLotId, '10.000'], [older.roastedLotId, '2.000']]);
  assert.equal(res.body.order.lines[0].allocatedKg, '12.000');
  assert.equal(res.body.order.lines[0].unallocatedKg, '0.000');
  assert.equal((await eventsOf(org, 'orders.order.allocated')).length, 1);

  // The same stock once more, by age: cancel the first order, which releases its claims.
  assert.equal((await org.call('orders.cancelOrder', { id: fefo.id })).status, 200);
  const fifo = await confirmedOrder(org, [{ greenLotId, quantityKg: '12' }]);
  const byAge = await org.call('orders.allocateOrder', { id: fifo.id, strategy: 'fifo' });
  assert.equal(byAge.status, 200, JSON.stringify(byAge.body));
  assert.deepEqual(claimsOf(byAge.body.order), [[[older.lotCode, '10.000', 'active'], [fresher.lotCode, '2.000', 'active']]]);
});

test('expired stock is not promised: fefo skips lots past best-before and names them in the shortfall; includeExpired takes them', async () => {
  const org = await server.createOrg();
  const greenLotId = await makeGreenLot(org);
  // Roasted 100 days ago with the default 90 days: best before 10 days ago. The fresh lot was roasted yesterday.
  const stale = await roastLot(org, { kg: '6', greenLotId, roastedAt: daysAgo(100) });
  const fresh = await roastLot(org, { kg: '4', greenLotId, roastedAt: daysAgo(1) });
  const lot = async (id: string) => (await org.call('inventory.roast.getRoastedLot', { id })).body;
  assert.deepEqual([(await lot(stale.roastedLotId)).expired, (await lot(fresh.roastedLotId)).expired], [true, false]);
  const listed = await org.call('inventory.roast.listRoastedLots', { filter: { greenLotId } });
  assert.deepEqual(listed.body.items.map((l: any) => [l.id, l.expired]), [[fresh.roastedLotId, false], [stale.roastedLotId, true]], 'the list marks expired lots');
  const onlyExpired = await org.call('inventory.roast.listRoastedLots', { filter: { greenLotId, expired: true } });
  assert.deepEqual(onlyExpired.body.items.map((l: any) => l.id), [stale.roastedLotId]);
  const notExpired = await org.call('inventory.roast.listRoastedLots', { filter: { greenLotId, expired: false } });
  assert.deepEqual(notExpired.body.items.map((l: any) => l.id), [fresh.roastedLotId]);

  const order = await confirmedOrder(org, [{ greenLotId, quantityKg: '8' }]);
  const res = await org.call('orders.allocateOrder', { id: order.id });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.complete, false);
  assert.deepEqual(res.body.claims.map((c: any) => [c.roastedLotId, c.quantityKg]), [[fresh.roastedLotId, '4.000']], 'only the fresh lot is promised');
  const staleLot = await lot(stale.roastedLotId);
  assert.deepEqual(res.body.shortfalls, [
    {
      orderLineId: order.lines[0].id, lineNumber: 1, quantityKg: '8.000', allocatedKg: '4.000', shortfallKg: '4.000', reason: 'expired',
      expiredLots: [{ roastedLotId: stale.roastedLotId, lotCode: stale.lotCode, bestBefore: staleLot.bestBefore, availableKg: '6.000' }],
    },
  ]);
  // With no stock at all of another coffee, the shortfall is plain.
  const other = await confirmedOrder(org, [{ greenLotId: await makeGreenLot(org), quantityKg: '1' }]);
  const none = await org.call('orders.allocateOrder', { id: other.id });
  assert.deepEqual(none.body.shortfalls.map((s: any) => [s.reason, s.expiredLots]), [['insufficient_stock', []]]);

  const topUp = await org.call('orders.allocateOrder', { id: order.id, includeExpired: true });
  assert.equal(topUp.status, 200, JSON.stringify(topUp.body));
  assert.equal(topUp.body.complete, true);
  assert.deepEqual(topUp.body.claims.map((c: any) => [c.roastedLotId, c.quantityKg]), [[stale.roastedLotId, '4.000']], 'asked to, it promises expired stock');
  assert.deepEqual(claimsOf(topUp.body.order), [[[fresh.lotCode, '4.000', 'active'], [stale.lotCode, '4.000', 'active']]]);
});

test('claims move no stock, and kilograms promised to one order are not available to the next', async () => {
  const org = await server.createOrg();
  const lot = await roastLot(org, { kg: '20' });
  const first = await confirmedOrder(org, [{ roastedLotId: lot.roastedLotId, quantityKg: '15' }]);
  assert.equal((await org.call('orders.allocateOrder', { id: first.id })).body.complete, true);
  const stock = await org.call('inventory.roast.getRoastedLot', { id: lot.roastedLotId });
  assert.equal(stock.body.onHandKg, '20.000');
  assert.equal(stock.body.transactions.length, 1);

  const second = await confirmedOrder(org, [{ roastedLotId: lot.roastedLotId, quantityKg: '8' }]);
  const res = await org.call('orders.allocateOrder', { id: second.id });
  assert.equal(res.status, 200);
  assert.equal(res.body.complete, false);
  assert.equal(res.body.order.state, 'partially_allocated');
  assert.deepEqual(res.body.shortfalls, [
    { orderLineId: second.lines[0].id, lineNumber: 1, quantityKg: '8.000', allocatedKg: '5.000', shortfallKg: '3.000', reason: 'insufficient_stock', expiredLots: [] },
  ]);
  assert.equal((await eventsOf(org, 'orders.order.partially_allocated')).length, 1);
});

test('a partial allocation reports the shortfall per line, keeps its claims, and a later allocation tops it up', async () => {
  const org = await server.createOrg();
  const greenLotId = await makeGreenLot(org);
  await roastLot(org, { kg: '6', greenLotId });
  const pinned = await roastLot(org, { kg: '4' });
  const order = await confirmedOrder(org, [
    { greenLotId, quantityKg: '10' },
    { roastedLotId: pinned.roastedLotId, quantityKg: '3' },
  ]);
  const short = await org.call('orders.allocateOrder', { id: order.id });
  assert.equal(short.status, 200);
  assert.equal(short.body.complete, false);
  assert.deepEqual(short.body.shortfalls.map((s: any) => [s.lineNumber, s.allocatedKg, s.shortfallKg]), [[1, '6.000', '4.000']]);
  assert.deepEqual(short.body.order.lines.map((l: any) => [l.allocatedKg, l.unallocatedKg]), [['6.000', '4.000'], ['3.000', '0.000']]);

  // Nothing new to claim: the answer is the same shortfall and nothing is written.
  const again = await answeredUnchanged(org, () => org.call('orders.allocateOrder', { id: order.id }));
  assert.equal(again.body.complete, false);
  assert.deepEqual(again.body.claims, []);

  const more = await roastLot(org, { kg: '5', greenLotId });
  const topUp = await org.call('orders.allocateOrder', { id: order.id, strategy: 'fifo' });
  assert.equal(topUp.body.complete, true, JSON.stringify(topUp.body));
  assert.deepEqual(topUp.body.claims.map((c: any) => [c.roastedLotId, c.quantityKg]), [[more.roastedLotId, '4.000']]);
  assert.equal(topUp.body.order.state, 'allocated');
  // An allocated order answers unchanged.
  const done = await org.call('orders.allocateOrder', { id: order.id });
  assert.equal(done.body.complete, true);
  assert.deepEqual(done.body.claims, []);
});

test('a pinned line draws only from its lot; a profile narrows a green-lot line to roasts with that profile', async () => {
  const org = await server.createOrg();
  const greenLotId = await makeGreenLot(org);
  const espresso = await makeProfile(org);
  const plain = await roastLot(org, { kg: '10', greenLotId, roastedAt: daysAgo(3) });
  const profiled = await roastLot(org, { kg: '10', greenLotId, profileId: espresso.id, roastedAt: daysAgo(2) });
  const order = await confirmedOrder(org, [
    { greenLotId, profileId: espresso.id, quantityKg: '4' },
    { roastedLotId: plain.roastedLotId, quantityKg: '12' },
  ]);
  const res = await org.call('orders.allocateOrder', { id: order.id });
  assert.deepEqual(claimsOf(res.body.order), [[[profiled.lotCode, '4.000', 'active']], [[plain.lotCode, '10.000', 'active']]]);
  assert.deepEqual(res.body.shortfalls.map((s: any) => [s.lineNumber, s.shortfallKg]), [[2, '2.000']]);
});

test('releaseOrderAllocation returns a line’s claim to available stock', async () => {
  const org = await server.createOrg();
  const lot = await roastLot(org, { kg: '10' });
  const order = await confirmedOrder(org, [
    { roastedLotId: lot.roastedLotId, quantityKg: '4' },
    { roastedLotId: lot.roastedLotId, quantityKg: '6' },
  ]);
  assert.equal((await org.call('orders.allocateOrder', { id: order.id })).body.order.state, 'allocated');
  const rival = await confirmedOrder(org, [{ roastedLotId: lot.roastedLotId, quantityKg: '5' }]);
  assert.equal((await org.call('orders.allocateOrder', { id: rival.id })).body.claims.length, 0);

  const res = await org.call('orders.releaseOrderAllocation', { orderLineId: order.lines[1].id });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.releasedKg, '6.000');
  assert.equal(res.body.order.state, 'partially_allocated');
  assert.deepEqual(res.body.order.lines.map((l: any) => l.allocatedKg), ['4.000', '0.000']);
  assert.equal((await eventsOf(org, 'orders.order.allocation_released')).length, 1);
  await refusedUnchanged(server.owner, org, () => org.call('orders.releaseOrderAllocation', { orderLineId: order.lines[1].id }), 409, 'not_allocated', 'orderLineId');

  const now = await org.call('orders.allocateOrder', { id: rival.id });
  assert.equal(now.body.complete, true);
  assert.equal((await org.call('orders.releaseOrderAllocation', { orderLineId: order.lines[0].id })).body.order.state, 'confirmed');
});

test('canceling an allocated order releases its claims', async () => {
  const org = await server.createOrg();
  const lot = await roastLot(org, { kg: '5' });
  const order = await confirmedOrder(org, [{ roastedLotId: lot.roastedLotId, quantityKg: '5' }]);
  await org.call('orders.allocateOrder', { id: order.id });
  const res = await org.call('orders.cancelOrder', { id: order.id });
  assert.equal(res.status, 200);
  assert.equal(res.body.order.state, 'canceled');
  assert.deepEqual(res.body.released.map((c: any) => c.quantityKg), ['5.000']);
  const next = await confirmedOrder(org, [{ roastedLotId: lot.roastedLotId, quantityKg: '5' }]);
  assert.equal((await org.call('orders.allocateOrder', { id: next.id })).body.complete, true);
});

test('fulfillOrder books the weight out through the roasted lot’s ledger and records lineage to the order lines', async () => {
  const org = await server.createOrg();
  const { greenLotId, older, fresher } = await twoRoasts(org);
  const order = await confirmedOrder(org, [{ greenLotId, quantityKg: '12' }, { roastedLotId: older.roastedLotId, quantityKg: '1.5' }]);
  await refusedUnchanged(server.owner, org, () => org.call('orders.fulfillOrder', { id: order.id }), 409, 'invalid_state_transition');
  assert.equal((await org.call('orders.allocateOrder', { id: order.id })).body.complete, true);

  const res = await org.call('orders.fulfillOrder', { id: order.id });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const { order: shipped, fulfillment, transactions, lineage } = res.body;
  assert.match(fulfillment.id, /^ful_/);
  assert.equal(shipped.state, 'fulfilled');
  assert.match(shipped.fulfilledAt, /Z$/);
  assert.deepEqual(shipped.lines.map((l: any) => [l.allocatedKg, l.fulfilledKg, l.unallocatedKg]), [['0.000', '12.000', '0.000'], ['0.000', '1.500', '0.000']]);
  assert.ok(shipped.lines.every((l: any) => l.allocations.every((a: any) => a.state === 'fulfilled' && a.fulfillmentId === fulfillment.id)), 'every allocation of the shipped order is fulfilled by this fulfilment');
  // One ledger row per line and lot, in line order, then lot id.
  const firstLine = [
    [fresher.roastedLotId, 'fulfilment', '-10.000', `order ${order.orderNumber} line 1`],
    [older.roastedLotId, 'fulfilment', '-2.000', `order ${order.orderNumber} line 1`],
  ].sort((a, b) => (a[0] < b[0] ? -1 : 1));
  assert.deepEqual(transactions.map((t: any) => [t.roastedLotId, t.kind, t.deltaKg, t.comment]), [
    ...firstLine,
    [older.roastedLotId, 'fulfilment', '-1.500', `order ${order.orderNumber} line 2`],
  ]);
  assert.deepEqual(
    lineage.map((e: any) => [e.fromKind, e.fromId, e.toKind, e.toId, e.weightKg, e.groupId]).sort(),
    [
      ['roasted_lot', fresher.roastedLotId, 'order_line', order.lines[0].id, '10.000', fulfillment.id],
      ['roasted_lot', older.roastedLotId, 'order_line', order.lines[0].id, '2.000', fulfillment.id],
      ['roasted_lot', older.roastedLotId, 'order_line', order.lines[1].id, '1.500', fulfillment.id],
    ].sort(),
  );
  assert.equal((await org.call('inventory.roast.getRoastedLot', { id: older.roastedLotId })).body.onHandKg, '6.500');
  assert.equal((await org.call('inventory.roast.getRoastedLot', { id: fresher.roastedLotId })).body.onHandKg, '0.000');
  assert.deepEqual(await roastedLedgerViolations(server.owner, org.id), []);
  assert.equal((await eventsOf(org, 'orders.order.fulfilled')).length, 1);

  for (const [operation, input] of [
    ['orders.fulfillOrder', { id: order.id }],
    ['orders.cancelOrder', { id: order.id }],
    ['orders.releaseOrderAllocation', { orderLineId: order.lines[0].id }],
    ['orders.allocateOrder', { id: order.id }],
  ] as const) {
    await refusedUnchanged(server.owner, org, () => org.call(operation, input), 409, 'invalid_state_transition');
  }
});

test('a lot written down after it was claimed refuses the shipment and changes nothing', async () => {
  const org = await server.createOrg();
  const lot = await roastLot(org, { kg: '10' });
  const order = await confirmedOrder(org, [{ roastedLotId: lot.roastedLotId, quantityKg: '8' }]);
  await org.call('orders.allocateOrder', { id: order.id });
  const writeOff = await org.call('inventory.roast.adjustRoastedLotQuantity', { id: lot.roastedLotId, deltaKg: '-3', reason: 'write_off' });
  assert.equal(writeOff.status, 200, JSON.stringify(writeOff.body));
  const res = await refusedUnchanged(server.owner, org, () => org.call('orders.fulfillOrder', { id: order.id }), 409, 'insufficient_stock');
  assert.equal(res.body.onHandKg, '7.000');
  assert.equal(res.body.claimedKg, '8.000');
});

test('orders allocated at the same moment never promise the same kilograms twice', async () => {
  const org = await server.createOrg();
  const greenLotId = await makeGreenLot(org);
  await roastLot(org, { kg: '25', greenLotId });
  await roastLot(org, { kg: '20', greenLotId });
  const customer = await makeCustomer(org);
  const orders = [];
  for (let i = 0; i < 8; i++) orders.push(await confirmedOrder(org, [{ greenLotId, quantityKg: '7' }], { customerId: customer.id }));
  const answers = await Promise.all(orders.map((o, i) => org.call('orders.allocateOrder', { id: o.id, strategy: i % 2 ? 'fifo' : 'fefo' })));
  assert.deepEqual(answers.map((a) => a.status), Array(8).fill(200), JSON.stringify(answers.map((a) => a.body)));
  const [claimed] = await server.owner.query<{ total: string; per_lot_over: number }>(
    `select (select sum(quantity_kg)::numeric(14, 3)::text from order_allocations where org_id = $1 and released_at is null) as total,
            (select count(*)::int from roasted_lots r where r.org_id = $1 and r.on_hand_kg <
               (select coalesce(sum(a.quantity_kg), 0) from order_allocations a where a.org_id = $1 and a.roasted_lot_id = r.id and a.released_at is null)) as per_lot_over`,
    [org.id],
  );
  // 45 kg of stock for 56 kg of orders: every kilogram is promised once, none twice.
  assert.equal(claimed.total, '45.000');
  assert.equal(claimed.per_lot_over, 0);
  assert.equal(answers.filter((a) => a.body.complete).length, 6);
  const shortfalls = answers.flatMap((a) => a.body.shortfalls.map((s: any) => s.shortfallKg));
  assert.deepEqual(shortfalls.sort(), ['4.000', '7.000']);
});

/**
 * Two roasts of one coffee, the older first in either strategy's order, and a transaction holding the older
 * one's lock (as any writer of its stock would) while `during` runs.
 */
async function whileOlderLotHeld(org: TestOrg, during: (lots: { greenLotId: string; older: string; newer: string }) => Promise<void>) {
  const greenLotId = await makeGreenLot(org);
  const older = (await roastLot(org, { kg: '10', greenLotId, roastedAt: daysAgo(10) })).roastedLotId;
  const newer = (await roastLot(org, { kg: '10', greenLotId, roastedAt: daysAgo(5) })).roastedLotId;
  await server.owner.transaction(async (writer) => {
    await lockRoastedLots(writer, org.id, [older]);
    await during({ greenLotId, older, newer });
  });
  return { greenLotId, older, newer };
}

const lotsClaimed = (answer: any) => answer.claims.map((c: any) => [c.roastedLotId, c.quantityKg]);

test('an allocation passes over a lot another transaction holds for the next in the strategy’s order, without waiting', async (t) => {
  if (server.kind !== 'postgres') return t.skip('PGlite runs one transaction at a time; lock waits need PostgreSQL');
  const org = await server.createOrg();
  const { greenLotId, older } = await whileOlderLotHeld(org, async ({ greenLotId, newer }) => {
    const order = await confirmedOrder(org, [{ greenLotId, quantityKg: '3' }]);
    const allocation = org.call('orders.allocateOrder', { id: order.id });
    const watch = { done: false };
    const settled = await Promise.race([allocation.then(() => 'answered'), waitingForALock(server.owner, watch).then(() => 'waiting')]);
    watch.done = true;
    assert.equal(settled, 'answered', 'the allocation waited for the lot another transaction holds');
    const res = await allocation;
    assert.equal(res.body.complete, true, JSON.stringify(res.body));
    assert.deepEqual(lotsClaimed(res.body), [[newer, '3.000']]);
  });
  // Alone, an allocation follows the strategy's order exactly.
  const next = await confirmedOrder(org, [{ greenLotId, quantityKg: '3' }]);
  assert.deepEqual(lotsClaimed((await org.call('orders.allocateOrder', { id: next.id })).body), [[older, '3.000']]);
});

test('an allocation that needs a lot another transaction holds waits for it rather than report a shortfall', async (t) => {
  if (server.kind !== 'postgres') return t.skip('PGlite runs one transaction at a time; lock waits need PostgreSQL');
  const org = await server.createOrg();
  let allocation: Promise<CallResult> | undefined;
  const { older, newer } = await whileOlderLotHeld(org, async ({ greenLotId }) => {
    const order = await confirmedOrder(org, [{ greenLotId, quantityKg: '15' }]);
    allocation = org.call('orders.allocateOrder', { id: order.id });
    const watch = { done: false };
    const settled = await Promise.race([allocation.then(() => 'answered'), waitingForALock(server.owner, watch).then(() => 'waiting')]);
    watch.done = true;
    assert.equal(settled, 'waiting', 'the allocation answered while a lot it needs was held');
  });
  const res = await allocation!;
  assert.equal(res.body.complete, true, JSON.stringify(res.body));
  // Waiting, it takes the lots in the strategy's order with figures read after every lock is held.
  assert.deepEqual(lotsClaimed(res.body), [[older, '10.000'], [newer, '5.000']]);
});

test('roast_demand holds the lines of confirmed, unshipped orders with what is claimed for them', async () => {
  const org = await server.createOrg();
  const greenLotId = await makeGreenLot(org, { state: 'decaf_green' });
  const profile = await makeProfile(org);
  const lot = await roastLot(org, { kg: '4', greenLotId, profileId: profile.id });
  const customer = await makeCustomer(org);
  const draft = await createOrder(org, { customerId: customer.id, lines: [{ greenLotId, quantityKg: '50', unitPrice: '1' }] });
  const dated = await confirmedOrder(org, [{ greenLotId, profileId: profile.id, quantityKg: '10' }], { customerId: customer.id, requestedShipAt: '2030-05-02T18:00:00Z' });
  const undated = await confirmedOrder(org, [{ roastedLotId: lot.roastedLotId, quantityKg: '1' }], { customerId: customer.id });
  const canceled = await confirmedOrder(org, [{ greenLotId, quantityKg: '9' }], { customerId: customer.id });
  await org.call('orders.cancelOrder', { id: canceled.id });
  await org.call('orders.allocateOrder', { id: dated.id });

  const demand = async () =>
    server.app.databases.service.transaction(
      (tx) => tx.query<any>(`select * from roast_demand where org_id = $1 order by ordered_kg desc`, [org.id]),
      { orgId: org.id },
    );
  const rows = await demand();
  const [{ loss }] = await server.owner.query<{ loss: string }>(`select weight_loss_pct::text as loss from roasted_lots where id = $1`, [lot.roastedLotId]);
  const today = new Date().toISOString().slice(0, 10);
  assert.deepEqual(
    rows.map((r) => [r.order_line_id, isoDate(r.due_date), r.profile_id, r.green_lot_id, r.is_decaf, r.ordered_kg, r.allocated_kg, r.expected_loss_pct]),
    [
      [dated.lines[0].id, '2030-05-02', profile.id, greenLotId, true, '10.000', '4.000', loss],
      [undated.lines[0].id, today, profile.id, greenLotId, true, '1.000', '0.000', loss],
    ],
  );
  assert.ok(!rows.some((r) => r.order_line_id === draft.lines[0].id), 'a draft order is no roast demand');
  await org.call('orders.releaseOrderAllocation', { orderLineId: dated.lines[0].id });
  assert.equal((await demand())[0].allocated_kg, '0.000');
});

/** An allocation that finds nothing new answers 200 and writes nothing. */
async function answeredUnchanged(org: TestOrg, call: () => Promise<any>) {
  const before = await ordersState(server.owner, org.id);
  const res = await call();
  assert.equal(res.status, 200);
  assert.deepEqual(await ordersState(server.owner, org.id), before);
  return res;
}
