import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type CallResult } from '../src/testing/harness.js';
import { waitingForALock } from '../src/testing/locks.js';
import { makeLocation } from '../src/modules/catalog/location/tenancy.cases.js';
import { assertLedgerInvariants, importLot } from '../src/modules/inventory/green/testing.js';
import { lockLots } from '../src/modules/inventory/green/repository.js';
import { lockRoastedLots } from '../src/modules/inventory/roast/service.js';
import { makeCustomer, roastLot, unique } from '../src/modules/orders/testing.js';
import { makeProfile, roastedLedgerViolations } from '../src/modules/production/roast/testing.js';

/**
 * Many clients mixing sales orders (create → confirm → allocate → fulfil or cancel), roasts that consume
 * green and open roasted lots, and green-ledger writes, all on the same few lots. Order lines name their
 * lots in varying order, so PostgreSQL's foreign-key checks take their KEY SHARE locks in every order
 * while writers hold the lots. Held: no deadlock at all (the lock order in lockLots, row locks that do not
 * conflict with foreign-key checks), so no transaction is run again and none answers 409
 * concurrent_update; every refusal is a stock rule; the ledgers still add up.
 */
test('orders, roasts and green-ledger writes mixed on the same lots never deadlock', async (t) => {
  const server = await startTestServer();
  if (server.kind !== 'postgres') return t.skip('PGlite runs one transaction at a time; contention needs PostgreSQL');
  const org = await server.createOrg();
  const siteA = await makeLocation(org, 'MIX-A');
  const siteB = await makeLocation(org, 'MIX-B');
  const greenLots: string[] = [];
  for (let i = 0; i < 3; i++) greenLots.push((await importLot(org, { weightKg: '400', locationId: siteA })).id);
  const profile = await makeProfile(org);
  const roasted: string[] = [];
  for (let i = 0; i < 4; i++) roasted.push((await roastLot(org, { kg: '40', greenLotId: greenLots[i % 3], profileId: profile.id })).roastedLotId);
  const customer = await makeCustomer(org);

  const results: { op: string; res: CallResult }[] = [];
  const call = async (op: string, input: Record<string, unknown>) => {
    const res = await org.call(op, input);
    results.push({ op, res });
    return res;
  };

  const CLIENTS = 40;
  const ROUNDS = Number(process.env.CONTENTION_ROUNDS ?? 3);
  await Promise.all(
    Array.from({ length: CLIENTS * ROUNDS }, async (_, n) => {
      const client = n % CLIENTS;
      const lot = (k: number) => greenLots[(client + k) % greenLots.length];
      const roastedLot = (k: number) => roasted[(client + k) % roasted.length];
      await new Promise((resolve) => setTimeout(resolve, Math.floor(n / CLIENTS) * 50));
      switch (client % 4) {
        case 0:
        case 1: {
          // An order naming a roasted lot and a green lot, in an order that depends on the client.
          const lines = [
            { roastedLotId: roastedLot(0), quantityKg: '3', unitPrice: '20' },
            { greenLotId: lot(1), profileId: profile.id, quantityKg: '2', unitPrice: '18' },
            { roastedLotId: roastedLot(2), quantityKg: '1.5', unitPrice: '20' },
          ];
          if (client % 2) lines.reverse();
          const created = await call('orders.createOrder', { orderNumber: unique('MIX'), customerId: customer.id, lines });
          if (created.status !== 200) return;
          await call('orders.confirmOrder', { id: created.body.id });
          const allocated = await call('orders.allocateOrder', { id: created.body.id });
          if (allocated.status === 200 && allocated.body.complete && client % 3 === 0) await call('orders.fulfillOrder', { id: created.body.id });
          else if (client % 5 === 0) await call('orders.cancelOrder', { id: created.body.id });
          return;
        }
        case 2:
          // A roast: green lot → batch → a new roasted lot.
          await roastLot(org, { kg: '4', greenLotId: lot(0), profileId: profile.id });
          await call('inventory.green.transferGreenLotToLocation', { id: lot(1), fromLocationId: siteA, toLocationId: siteB, weightKg: '5' });
          return;
        default:
          await call('inventory.green.adjustGreenLotQuantity', { id: lot(0), deltaKg: '-1.25', reason: 'shrinkage', locationId: siteA });
          await call('inventory.green.reserveGreenLot', { id: lot(1), weightKg: '3' });
          await call('inventory.green.transferGreenLotToLocation', { id: lot(2), fromLocationId: siteA, toLocationId: siteB, weightKg: '2' });
          await call('inventory.green.releaseGreenLotReservation', { id: lot(1), weightKg: '3' });
      }
    }),
  );

  const failures = results.filter(({ res }) => res.status >= 500 || res.body?.code === 'concurrent_update');
  assert.deepEqual(failures.map(({ op, res }) => `${op}: ${res.status} ${JSON.stringify(res.body)}`), [], 'no request failed for losing a race');
  assert.equal(server.app.server.racesRetried(), 0, 'no transaction deadlocked or had to be run again');
  const refusals = new Set(results.filter(({ res }) => res.status >= 400).map(({ op, res }) => `${op}: ${res.body.code}`));
  for (const refusal of refusals) {
    assert.ok(/insufficient_stock|insufficient_reservation|invalid_input|invalid_state_transition/.test(refusal), `unexpected refusal ${refusal}`);
  }
  assert.ok(results.filter(({ op, res }) => op === 'orders.allocateOrder' && res.status === 200).length > CLIENTS / 4, 'most allocations went through');
  await assertLedgerInvariants(server.owner, org.id);
  assert.deepEqual(await roastedLedgerViolations(server.owner, org.id), [], 'roasted ledger adds up');
  const [{ over }] = await server.owner.query<{ over: number }>(
    `select count(*)::int as over from roasted_lots r where r.org_id = $1 and r.on_hand_kg <
       (select coalesce(sum(a.quantity_kg), 0) from order_allocations a where a.org_id = $1 and a.roasted_lot_id = r.id and a.released_at is null and a.fulfilled_at is null)`,
    [org.id],
  );
  assert.equal(over, 0, 'no roasted lot is promised beyond its stock');
});

/**
 * The reason the mix above cannot deadlock, shown without racing: while a writer holds lots (green or
 * roasted) under the service's row lock, an order naming them, in the opposite order, is created at once.
 * Its foreign-key checks take KEY SHARE locks on the lots, which FOR NO KEY UPDATE does not conflict
 * with; under FOR UPDATE the order would wait for the writer, and with the writer waiting on it in turn
 * the two would deadlock. A waiting lock shows in pg_locks, so the test reads it instead of timing.
 */
test('an order naming lots that a writer holds is not held up by the writer', async (t) => {
  const server = await startTestServer();
  if (server.kind !== 'postgres') return t.skip('PGlite runs one transaction at a time; lock waits need PostgreSQL');
  const org = await server.createOrg();
  const [first, second] = [(await importLot(org)).id, (await importLot(org)).id].sort();
  const roastedLotId = (await roastLot(org, { kg: '10', greenLotId: first })).roastedLotId;
  const customer = await makeCustomer(org);

  await server.owner.transaction(async (writer) => {
    // A writer holding the lots as every stock movement does, in the service's lock order.
    await lockLots(writer, org.id, [first, second]);
    await lockRoastedLots(writer, org.id, [roastedLotId]);
    const order = org.call('orders.createOrder', {
      orderNumber: unique('HELD'),
      customerId: customer.id,
      lines: [
        { greenLotId: second, quantityKg: '1', unitPrice: '10' },
        { roastedLotId, quantityKg: '1', unitPrice: '10' },
        { greenLotId: first, quantityKg: '1', unitPrice: '10' },
      ],
    });
    const watch = { done: false };
    const settled = await Promise.race([order.then(() => 'answered'), waitingForALock(server.owner, watch).then(() => 'waiting')]);
    watch.done = true;
    assert.equal(settled, 'answered', 'the order waited for the writer holding its lots');
    assert.equal((await order).status, 200, JSON.stringify((await order).body));
  });
});
