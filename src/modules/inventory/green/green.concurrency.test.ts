import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type CallResult } from '../../../testing/harness.js';
import { makeLocation } from '../../catalog/location/tenancy.cases.js';
import { grams, kgString } from '../../../lib/grams.js';
import { assertLedgerInvariants, importLot } from './testing.js';

test('many clients adjusting, reserving, transferring, splitting and merging the same lots keep every kilogram', async (t) => {
  const server = await startTestServer();
  if (server.kind !== 'postgres') return t.skip('PGlite runs one transaction at a time; concurrency needs PostgreSQL');
  const org = await server.createOrg();
  const siteA = await makeLocation(org, 'CONC-A');
  const siteB = await makeLocation(org, 'CONC-B');
  const lots = [];
  for (let i = 0; i < 4; i++) lots.push((await importLot(org, { weightKg: '100', locationId: siteA })).id);
  const [l0, l1, l2, l3] = lots;

  // Deterministic mix, so a failure reproduces: every kind of write, aimed at the same four lots, several
  // of them bound to be refused once others have taken the stock.
  const requests: { op: string; input: Record<string, unknown>; adjustsBy?: string }[] = [];
  for (let i = 0; i < 72; i++) {
    const lot = lots[i % 4];
    switch (i % 9) {
      case 0:
        requests.push({ op: 'adjustGreenLotQuantity', input: { id: lot, deltaKg: '-7.5', reason: 'write_off', locationId: siteA }, adjustsBy: '-7.5' });
        break;
      case 1:
        requests.push({ op: 'adjustGreenLotQuantity', input: { id: lot, deltaKg: '2.25', reason: 'return', locationId: siteB }, adjustsBy: '2.25' });
        break;
      case 2:
        requests.push({ op: 'reserveGreenLot', input: { id: lot, weightKg: '15' } });
        break;
      case 3:
        requests.push({ op: 'releaseGreenLotReservation', input: { id: lot, weightKg: '10' } });
        break;
      case 4:
        requests.push({ op: 'transferGreenLotToLocation', input: { id: lot, fromLocationId: siteA, toLocationId: siteB, weightKg: '12' } });
        break;
      case 5:
        requests.push({ op: 'transferGreenLotToLocation', input: { id: lot, fromLocationId: siteB, toLocationId: siteA, weightKg: '4' } });
        break;
      case 6:
        requests.push({ op: 'splitGreenLot', input: { id: lot, weightKg: '9', newLotCode: `CONC-SPLIT-${i}` } });
        break;
      case 7:
        // Merges in both directions between the same pairs: lock ordering must keep them from deadlocking.
        requests.push({ op: 'mergeGreenLots', input: i % 2 ? { targetId: l0, sourceIds: [l1] } : { targetId: l1, sourceIds: [l0, l2] } });
        break;
      default:
        requests.push({ op: 'mergeGreenLots', input: i % 2 ? { targetId: l3, sourceIds: [l2] } : { targetId: l2, sourceIds: [l3] } });
    }
  }

  const results: CallResult[] = await Promise.all(requests.map((r) => org.call(`inventory.green.${r.op}`, r.input)));

  const unexpected = results.filter((r) => r.status !== 200 && r.status !== 409);
  assert.deepEqual(unexpected.map((r) => r.body), [], 'every request either succeeds or is refused by a stock rule');
  const refusals = new Set(results.filter((r) => r.status === 409).map((r) => r.body.code));
  assert.ok(!refusals.has('concurrent_update'), 'no deadlock or serialization failure');
  for (const code of refusals) {
    assert.ok(
      ['insufficient_stock', 'insufficient_reservation', 'lot_reserved', 'lot_empty', 'stock_spread_across_locations'].includes(code),
      `unexpected refusal ${code}`,
    );
  }
  assert.ok(results.filter((r) => r.status === 200).length >= 20, 'enough of the writes went through to prove something');

  // Every materialised figure equals the sum of its ledger rows, and no row went below zero or below reserved.
  await assertLedgerInvariants(server.owner, org.id);

  const rows = await server.owner.query<{ on_hand_kg: string; reserved_kg: string; id: string }>(
    `select id, on_hand_kg, reserved_kg from green_lots where org_id = $1`,
    [org.id],
  );
  for (const lot of rows) {
    assert.ok(grams(lot.on_hand_kg) >= 0n, `${lot.id} went negative`);
    assert.ok(grams(lot.reserved_kg) <= grams(lot.on_hand_kg), `${lot.id} reserves more than it holds`);
  }
  const [negative] = await server.owner.query<{ n: number }>(`select count(*)::int as n from green_lot_balances where org_id = $1 and on_hand_kg < 0`, [org.id]);
  assert.equal(negative.n, 0);

  // Splits, merges and transfers move coffee; only the adjustments that went through change the total.
  const adjusted = requests.reduce((sum, r, i) => (r.adjustsBy && results[i].status === 200 ? sum + grams(r.adjustsBy) : sum), 0n);
  const total = rows.reduce((sum, r) => sum + grams(r.on_hand_kg), 0n);
  assert.equal(kgString(total), kgString(400_000n + adjusted));

  // Each committed request wrote one event; refused ones wrote none.
  const [events] = await server.owner.query<{ n: number }>(
    `select count(*)::int as n from events where org_id = $1 and type <> 'catalog.location.created' and type <> 'inventory.green.lot_imported'`,
    [org.id],
  );
  assert.equal(events.n, results.filter((r) => r.status === 200).length);
});
