import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestOrg, type TestServer } from '../../../testing/harness.js';
import { makeLocation } from '../../catalog/location/tenancy.cases.js';
import { assertLedgerInvariants, assertRefusedUnchanged, greenState, importLot } from './testing.js';
import { assertProblem } from '../../../testing/problems.js';

const server: TestServer = await startTestServer();
const org: TestOrg = await server.createOrg();
const siteA = await makeLocation(org, 'SITE-A');
const siteB = await makeLocation(org, 'SITE-B');
const partnerId = 'prt_testpartner1';
const producerId = 'pro_testproducer1';
await server.owner.query(`insert into partners (org_id, id, code, name, types) values ($1, $2, 'IMP', 'Importer', '{importer}')`, [org.id, partnerId]);
await server.owner.query(`insert into producers (org_id, id, code, name, kind) values ($1, $2, 'FARM', 'Finca', 'farm')`, [org.id, producerId]);

const call = (operation: string, input: unknown, options?: Parameters<TestOrg['call']>[2]) => org.call(`inventory.green.${operation}`, input, options);
const refused = (operation: string, input: unknown, status: number, code: string, path?: string) =>
  assertRefusedUnchanged(server.owner, org, () => call(operation, input), status, code, path);

async function events(type: string): Promise<any[]> {
  const rows = await server.owner.query<{ data: any }>(`select data from events where org_id = $1 and type = $2 order by id`, [org.id, type]);
  return rows.map((r) => r.data);
}

async function getLot(id: string) {
  const res = await call('getGreenLot', { id });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

const balancesOf = (lot: { balances: { locationId: string | null; onHandKg: string }[] }) =>
  Object.fromEntries(lot.balances.map((b) => [b.locationId ?? 'unassigned', b.onHandKg]));

test('importGreenLot creates the lot empty and books its weight as a receive row, with provenance and a producer edge', async () => {
  const res = await call('importGreenLot', {
    name: 'Yirgacheffe Konga',
    lotCode: 'ETH-2024-001',
    weightKg: 1200.5,
    supplierRef: 'PO-77',
    producerId,
    partnerId,
    state: 'green',
    varieties: ['Heirloom'],
    processMethod: 'washed',
    harvestYear: 2024,
    certifications: ['organic'],
    bagCount: 20,
    bagWeightKg: '60.025',
    unitCost: '7.2500',
    currency: 'USD',
    minWeightKg: '100',
    locationId: siteA,
    notes: 'arrived dry',
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const { lot, transactions } = res.body;
  assert.match(lot.id, /^gl_/);
  assert.equal(lot.onHandKg, '1200.500');
  assert.equal(lot.reservedKg, '0.000');
  assert.equal(lot.availableKg, '1200.500');
  assert.equal(lot.openingKg, '1200.500');
  assert.equal(lot.quarantined, false);
  // unitCost is the price per kilogram of the opening weight: 7.25 × 1200.5 = 8703.625 → 8703.6250.
  assert.deepEqual(
    { currency: lot.landedCost.currency, price: lot.landedCost.buckets.price, total: lot.landedCost.total, perKg: lot.landedCost.perKg },
    { currency: 'USD', price: '8703.6250', total: '8703.6250', perKg: '7.2500' },
  );
  assert.deepEqual(balancesOf(lot), { [siteA]: '1200.500' });
  assert.deepEqual(
    { producerId: lot.producerId, partnerId: lot.partnerId, varieties: lot.varieties, harvestYear: lot.harvestYear, unitCost: lot.unitCost, bagWeightKg: lot.bagWeightKg },
    { producerId, partnerId, varieties: ['Heirloom'], harvestYear: 2024, unitCost: '7.2500', bagWeightKg: '60.025' },
  );
  assert.equal(transactions.length, 1);
  assert.match(transactions[0].id, /^glt_/);
  assert.deepEqual(
    { kind: transactions[0].kind, deltaKg: transactions[0].deltaKg, locationId: transactions[0].locationId, seq: transactions[0].seq },
    { kind: 'receive', deltaKg: '1200.500', locationId: siteA, seq: 1 },
  );
  const [credential] = await server.owner.query<{ id: string }>(`select id from credentials where org_id = $1`, [org.id]);
  assert.equal(transactions[0].credentialId, credential.id);

  const edges = await server.owner.query(
    `select from_kind, from_id, to_kind, to_id, weight_kg from lineage_edges where org_id = $1 and to_id = $2`,
    [org.id, lot.id],
  );
  assert.deepEqual(edges, [{ from_kind: 'producer', from_id: producerId, to_kind: 'green_lot', to_id: lot.id, weight_kg: '1200.500' }]);
  const imported = await events('inventory.green.lot_imported');
  assert.equal(imported.at(-1).lot.id, lot.id);
  await assertLedgerInvariants(server.owner, org.id);
});

test('importGreenLot without a location holds the weight on the unassigned balance', async () => {
  const lot = await importLot(org, { weightKg: '5' });
  assert.deepEqual(balancesOf(lot), { unassigned: '5.000' });
  const balances = await call('listGreenLotBalances', { greenLotId: lot.id });
  assert.deepEqual(balances.body.items.map((b: any) => [b.locationId, b.onHandKg]), [[null, '5.000']]);
});

test('importGreenLot refusals name the field and write nothing', async () => {
  const valid = { name: 'X', lotCode: 'REFUSE-1', weightKg: '10' };
  await refused('importGreenLot', { ...valid, weightKg: 0 }, 400, 'invalid_input', 'weightKg');
  await refused('importGreenLot', { ...valid, weightKg: '-3' }, 400, 'invalid_input', 'weightKg');
  await refused('importGreenLot', { ...valid, weightKg: '1.0005' }, 400, 'invalid_input', 'weightKg');
  await refused('importGreenLot', { ...valid, state: 'roasted' }, 400, 'invalid_input', 'state');
  await refused('importGreenLot', { ...valid, unitCost: '5' }, 400, 'invalid_input', 'currency');
  await refused('importGreenLot', { ...valid, harvestYear: 2024.5 }, 400, 'invalid_input', 'harvestYear');
  await refused('importGreenLot', { ...valid, colour: 'green' }, 400, 'invalid_input', 'colour');
  await refused('importGreenLot', { ...valid, locationId: 'loc_nothere' }, 404, 'not_found', 'locationId');
  await refused('importGreenLot', { ...valid, producerId: 'pro_nothere' }, 404, 'not_found', 'producerId');
  await refused('importGreenLot', { ...valid, partnerId: 'prt_nothere' }, 404, 'not_found', 'partnerId');
  const taken = await importLot(org, { lotCode: 'TAKEN-1' });
  await refused('importGreenLot', { ...valid, lotCode: taken.lotCode }, 409, 'duplicate', 'lotCode');

  const archived = await makeLocation(org, 'ARCHIVED-1');
  assert.equal((await org.call('catalog.location.archiveLocation', { id: archived })).status, 200);
  await refused('importGreenLot', { ...valid, locationId: archived }, 409, 'location_archived', 'locationId');

  // The same lot code is free in another organization.
  const other = await server.createOrg();
  assert.equal((await other.call('inventory.green.importGreenLot', { ...valid, lotCode: 'TAKEN-1' })).status, 200);
});

test('getGreenLot shows totals, balances, quarantine and landed cost; answers GET; 404 for an unknown id', async () => {
  const lot = await importLot(org, { weightKg: '40', locationId: siteA });
  await server.owner.query(`update green_lots set quarantined = true, quarantine_reason = 'moisture 13.5%' where org_id = $1 and id = $2`, [org.id, lot.id]);
  const res = await org.call('inventory.green.getGreenLot', { id: lot.id }, { method: 'GET' });
  assert.equal(res.status, 200);
  assert.equal(res.body.quarantined, true);
  assert.equal(res.body.quarantineReason, 'moisture 13.5%');
  assert.deepEqual(res.body.costComponents, []);
  assert.deepEqual(balancesOf(res.body), { [siteA]: '40.000' });
  assertProblem(await call('getGreenLot', { id: 'gl_nothere' }), 404, 'not_found', 'id');
  assertProblem(await call('getGreenLot', {}), 400, 'invalid_input', 'id');
});

test('adjustGreenLotQuantity appends a row naming reason, location, credential and comment', async () => {
  const lot = await importLot(org, { weightKg: '50', locationId: siteA });
  const res = await call('adjustGreenLotQuantity', { id: lot.id, deltaKg: '-1.25', reason: 'sample_draw', locationId: siteA, comment: 'QC sample' });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.lot.onHandKg, '48.750');
  assert.deepEqual(balancesOf(res.body.lot), { [siteA]: '48.750' });
  const [row] = res.body.transactions;
  assert.deepEqual(
    { kind: row.kind, deltaKg: row.deltaKg, locationId: row.locationId, comment: row.comment, seq: row.seq },
    { kind: 'sample_draw', deltaKg: '-1.250', locationId: siteA, comment: 'QC sample', seq: 2 },
  );
  // Without a location, the lot's only holding is used; a positive return is allowed.
  const back = await call('adjustGreenLotQuantity', { id: lot.id, deltaKg: 0.25, reason: 'return' });
  assert.equal(back.status, 200);
  assert.equal(back.body.transactions[0].locationId, siteA);
  assert.equal(back.body.lot.onHandKg, '49.000');
  const adjusted = await events('inventory.green.lot_adjusted');
  assert.equal(adjusted.at(-1).transactions[0].id, back.body.transactions[0].id);
  await assertLedgerInvariants(server.owner, org.id);
});

test('adjustGreenLotQuantity refuses to go below zero except by recount, and writes nothing when refusing', async () => {
  const lot = await importLot(org, { weightKg: '10', locationId: siteA });
  const input = { id: lot.id, locationId: siteA };
  const res = await refused('adjustGreenLotQuantity', { ...input, deltaKg: '-10.001', reason: 'write_off' }, 409, 'insufficient_stock', 'deltaKg');
  assert.equal(res.body.onHandKg, '10.000');
  // Another location does not hold this lot at all.
  await refused('adjustGreenLotQuantity', { ...input, locationId: siteB, deltaKg: '-1', reason: 'adjust' }, 409, 'insufficient_stock');
  for (const reason of ['adjust', 'shrinkage', 'sample_draw', 'return']) {
    await refused('adjustGreenLotQuantity', { ...input, deltaKg: '-11', reason }, 409, 'insufficient_stock');
  }
  // Exactly to zero is fine; a recount may go below it and is the only way there.
  assert.equal((await call('adjustGreenLotQuantity', { ...input, deltaKg: '-10', reason: 'shrinkage' })).status, 200);
  const recount = await call('adjustGreenLotQuantity', { ...input, deltaKg: '-2.5', reason: 'recount', comment: 'counted short' });
  assert.equal(recount.status, 200);
  assert.equal(recount.body.lot.onHandKg, '-2.500');
  assert.deepEqual(balancesOf(recount.body.lot), { [siteA]: '-2.500' });
  // Once negative, nothing but a recount (or an increase) may move it further down.
  await refused('adjustGreenLotQuantity', { ...input, deltaKg: '-0.001', reason: 'adjust' }, 409, 'insufficient_stock');
  assert.equal((await call('adjustGreenLotQuantity', { ...input, deltaKg: '3', reason: 'adjust' })).body.lot.onHandKg, '0.500');
  await assertLedgerInvariants(server.owner, org.id);
});

test('adjustGreenLotQuantity refuses to consume reserved coffee, except by recount', async () => {
  const lot = await importLot(org, { weightKg: '100', locationId: siteA });
  assert.equal((await call('reserveGreenLot', { id: lot.id, weightKg: '60' })).status, 200);
  const res = await refused('adjustGreenLotQuantity', { id: lot.id, deltaKg: '-40.001', reason: 'write_off' }, 409, 'insufficient_stock');
  assert.match(res.body.detail, /60\.000 kg reserved/);
  assert.equal((await call('adjustGreenLotQuantity', { id: lot.id, deltaKg: '-40', reason: 'write_off' })).body.lot.availableKg, '0.000');
  const recount = await call('adjustGreenLotQuantity', { id: lot.id, deltaKg: '-5', reason: 'recount' });
  assert.equal(recount.status, 200);
  assert.equal(recount.body.lot.availableKg, '-5.000');
});

test('adjustGreenLotQuantity input rules: non-zero delta, reason list, signs, and an ambiguous location', async () => {
  const lot = await importLot(org, { weightKg: '20', locationId: siteA });
  await refused('adjustGreenLotQuantity', { id: lot.id, deltaKg: '0', reason: 'adjust' }, 400, 'invalid_input', 'deltaKg');
  await refused('adjustGreenLotQuantity', { id: lot.id, deltaKg: '-0.000', reason: 'adjust' }, 400, 'invalid_input', 'deltaKg');
  await refused('adjustGreenLotQuantity', { id: lot.id, deltaKg: '1', reason: 'receive' }, 400, 'invalid_input', 'reason');
  await refused('adjustGreenLotQuantity', { id: lot.id, deltaKg: 'ten', reason: 'adjust' }, 400, 'invalid_input', 'deltaKg');
  for (const reason of ['shrinkage', 'write_off', 'sample_draw']) {
    await refused('adjustGreenLotQuantity', { id: lot.id, deltaKg: '1', reason }, 400, 'invalid_input', 'deltaKg');
  }
  await refused('adjustGreenLotQuantity', { id: 'gl_nothere', deltaKg: '1', reason: 'adjust' }, 404, 'not_found', 'id');
  await refused('adjustGreenLotQuantity', { id: lot.id, deltaKg: '1', reason: 'adjust', locationId: 'loc_nothere' }, 404, 'not_found', 'locationId');
  assert.equal((await call('transferGreenLotToLocation', { id: lot.id, fromLocationId: siteA, toLocationId: siteB, weightKg: '5' })).status, 200);
  await refused('adjustGreenLotQuantity', { id: lot.id, deltaKg: '-1', reason: 'adjust' }, 400, 'invalid_input', 'locationId');
  // null names the unassigned balance explicitly.
  const unassigned = await call('adjustGreenLotQuantity', { id: lot.id, deltaKg: '2', reason: 'adjust', locationId: null });
  assert.equal(unassigned.status, 200);
  assert.deepEqual(balancesOf(unassigned.body.lot), { unassigned: '2.000', [siteA]: '15.000', [siteB]: '5.000' });
});

test('transferGreenLotToLocation writes two rows sharing a group id and keeps the lot total', async () => {
  const lot = await importLot(org, { weightKg: '30', locationId: siteA });
  const res = await call('transferGreenLotToLocation', { id: lot.id, fromLocationId: siteA, toLocationId: siteB, weightKg: '12.5', comment: 'to warehouse' });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const [out, into] = res.body.transactions;
  assert.match(res.body.groupId, /^grp_/);
  assert.deepEqual([out.kind, out.locationId, out.deltaKg, out.groupId], ['transfer_out', siteA, '-12.500', res.body.groupId]);
  assert.deepEqual([into.kind, into.locationId, into.deltaKg, into.groupId], ['transfer_in', siteB, '12.500', res.body.groupId]);
  assert.equal(res.body.lot.onHandKg, '30.000');
  assert.deepEqual(balancesOf(res.body.lot), { [siteA]: '17.500', [siteB]: '12.500' });
  assert.equal((await events('inventory.green.lot_transferred')).at(-1).groupId, res.body.groupId);

  // Unassigned stock is placed with fromLocationId null.
  const loose = await importLot(org, { weightKg: '3' });
  const placed = await call('transferGreenLotToLocation', { id: loose.id, fromLocationId: null, toLocationId: siteB, weightKg: '3' });
  assert.deepEqual(balancesOf(placed.body.lot), { [siteB]: '3.000' });
  await assertLedgerInvariants(server.owner, org.id);
});

test('transferGreenLotToLocation refusals', async () => {
  const lot = await importLot(org, { weightKg: '10', locationId: siteA });
  const input = { id: lot.id, fromLocationId: siteA, toLocationId: siteB, weightKg: '10.001' };
  const res = await refused('transferGreenLotToLocation', input, 409, 'insufficient_stock', 'weightKg');
  assert.equal(res.body.onHandKg, '10.000');
  await refused('transferGreenLotToLocation', { ...input, fromLocationId: siteB, toLocationId: siteA, weightKg: '1' }, 409, 'insufficient_stock');
  await refused('transferGreenLotToLocation', { ...input, toLocationId: siteA, weightKg: '1' }, 400, 'invalid_input', 'toLocationId');
  await refused('transferGreenLotToLocation', { ...input, weightKg: '0' }, 400, 'invalid_input', 'weightKg');
  await refused('transferGreenLotToLocation', { id: lot.id, toLocationId: siteB, weightKg: '1' }, 400, 'invalid_input', 'fromLocationId');
  await refused('transferGreenLotToLocation', { ...input, toLocationId: 'loc_nothere', weightKg: '1' }, 404, 'not_found', 'toLocationId');
  await refused('transferGreenLotToLocation', { ...input, fromLocationId: 'loc_nothere', weightKg: '1' }, 404, 'not_found', 'fromLocationId');
  await refused('transferGreenLotToLocation', { ...input, id: 'gl_nothere', weightKg: '1' }, 404, 'not_found', 'id');
  const archived = await makeLocation(org, 'ARCHIVED-2');
  await org.call('catalog.location.archiveLocation', { id: archived });
  await refused('transferGreenLotToLocation', { ...input, toLocationId: archived, weightKg: '1' }, 409, 'location_archived', 'toLocationId');
});

test('reserveGreenLot and releaseGreenLotReservation move reserved weight through the ledger', async () => {
  const lot = await importLot(org, { weightKg: '25', locationId: siteA });
  const reserved = await call('reserveGreenLot', { id: lot.id, weightKg: '20', comment: 'order 88' });
  assert.equal(reserved.status, 200, JSON.stringify(reserved.body));
  assert.deepEqual([reserved.body.lot.onHandKg, reserved.body.lot.reservedKg, reserved.body.lot.availableKg], ['25.000', '20.000', '5.000']);
  assert.deepEqual(
    [reserved.body.transactions[0].kind, reserved.body.transactions[0].reservedDeltaKg, reserved.body.transactions[0].deltaKg, reserved.body.transactions[0].locationId],
    ['reserve', '20.000', '0.000', null],
  );
  const tooMuch = await refused('reserveGreenLot', { id: lot.id, weightKg: '5.001' }, 409, 'insufficient_stock', 'weightKg');
  assert.equal(tooMuch.body.availableKg, '5.000');
  await refused('releaseGreenLotReservation', { id: lot.id, weightKg: '20.001' }, 409, 'insufficient_reservation', 'weightKg');
  const released = await call('releaseGreenLotReservation', { id: lot.id, weightKg: '15' });
  assert.equal(released.status, 200);
  assert.deepEqual([released.body.lot.reservedKg, released.body.lot.availableKg], ['5.000', '20.000']);
  assert.equal(released.body.transactions[0].reservedDeltaKg, '-15.000');
  assert.equal((await events('inventory.green.lot_reserved')).at(-1).transactions[0].id, reserved.body.transactions[0].id);
  assert.equal((await events('inventory.green.reservation_released')).at(-1).transactions[0].id, released.body.transactions[0].id);
  // Balances do not move with reservations.
  assert.deepEqual(balancesOf(released.body.lot), { [siteA]: '25.000' });
  await refused('reserveGreenLot', { id: 'gl_nothere', weightKg: '1' }, 404, 'not_found', 'id');
  await refused('releaseGreenLotReservation', { id: lot.id, weightKg: '0' }, 400, 'invalid_input', 'weightKg');
  await assertLedgerInvariants(server.owner, org.id);
});

test('a quarantined lot cannot be reserved, but its reservations can be released', async () => {
  const lot = await importLot(org, { weightKg: '25', locationId: siteA });
  await call('reserveGreenLot', { id: lot.id, weightKg: '5' });
  await server.owner.query(`update green_lots set quarantined = true, quarantine_reason = 'grading failed' where org_id = $1 and id = $2`, [org.id, lot.id]);
  await refused('reserveGreenLot', { id: lot.id, weightKg: '1' }, 409, 'lot_quarantined', 'id');
  assert.equal((await call('releaseGreenLotReservation', { id: lot.id, weightKg: '5' })).status, 200);
});

test('splitGreenLot creates a child with provenance, moves the weight by ledger rows and records lineage', async () => {
  const parent = await importLot(org, {
    weightKg: '100',
    locationId: siteA,
    producerId,
    partnerId,
    state: 'parchment',
    varieties: ['SL28', 'SL34'],
    processMethod: 'natural',
    harvestYear: 2023,
    certifications: ['fairtrade'],
    unitCost: '6.5',
    currency: 'EUR',
  });
  await call('transferGreenLotToLocation', { id: parent.id, fromLocationId: siteA, toLocationId: siteB, weightKg: '30' });
  const res = await call('splitGreenLot', { id: parent.id, weightKg: '45.5', newLotCode: 'SPLIT-CHILD-1', comment: 'for espresso' });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const { parent: p, child, groupId, transactions, lineage } = res.body;
  assert.equal(p.onHandKg, '54.500');
  assert.deepEqual(balancesOf(p), { [siteA]: '24.500', [siteB]: '30.000' });
  assert.equal(child.onHandKg, '45.500');
  assert.equal(child.openingKg, '45.500');
  assert.deepEqual(balancesOf(child), { [siteA]: '45.500' });
  assert.equal(child.lotCode, 'SPLIT-CHILD-1');
  assert.equal(child.name, `${parent.name} (SPLIT-CHILD-1)`);
  assert.deepEqual(
    [child.producerId, child.partnerId, child.state, child.varieties, child.processMethod, child.harvestYear, child.certifications, child.unitCost, child.currency],
    [producerId, partnerId, 'parchment', ['SL28', 'SL34'], 'natural', 2023, ['fairtrade'], '6.5000', 'EUR'],
  );
  assert.deepEqual(
    transactions.map((t: any) => [t.greenLotId, t.kind, t.locationId, t.deltaKg, t.groupId]),
    [
      [parent.id, 'split_out', siteA, '-45.500', groupId],
      [child.id, 'split_in', siteA, '45.500', groupId],
    ],
  );
  assert.deepEqual(
    lineage.map((e: any) => [e.fromKind, e.fromId, e.toKind, e.toId, e.weightKg, e.groupId]),
    [['green_lot', parent.id, 'green_lot', child.id, '45.500', groupId]],
  );
  assert.equal((await events('inventory.green.lot_split')).at(-1).child.id, child.id);
  const named = await call('splitGreenLot', { id: parent.id, weightKg: '1', newLotCode: 'SPLIT-CHILD-2', newName: 'Espresso base' });
  assert.equal(named.body.child.name, 'Espresso base');
  await assertLedgerInvariants(server.owner, org.id);
});

test('a unit cost given at import is the lot’s price component, counted by the landed cost and replaced like any other', async () => {
  const res = await call('importGreenLot', { name: 'Costed', lotCode: 'COSTED-1', weightKg: '69.3', unitCost: '7.85', currency: 'EUR' });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const cost = await call('getGreenLotLandedCost', { greenLotId: res.body.lot.id });
  assert.equal(cost.status, 200, JSON.stringify(cost.body));
  assert.deepEqual(
    { version: cost.body.version, currency: cost.body.currency, buckets: cost.body.buckets, total: cost.body.total, perKg: cost.body.perKg, weightBasisKg: cost.body.weightBasisKg },
    {
      version: 1,
      currency: 'EUR',
      // 7.85 × 69.3 = 544.005
      buckets: { price: '544.0050', freight: '0.0000', duty: '0.0000', carry: '0.0000', other: '0.0000' },
      total: '544.0050',
      perKg: '7.8500',
      weightBasisKg: '69.300',
    },
  );
  assert.deepEqual(
    cost.body.components.map((c: any) => [c.bucket, c.amount, c.currency, c.basis, c.description]),
    [['price', '7.8500', 'EUR', 'per_kg', 'unit cost at import']],
  );
  // Freight added later replaces the set as a new version; the import price is kept only if restated.
  const more = await call('setGreenLotCostComponents', {
    greenLotId: res.body.lot.id,
    components: [...cost.body.components.map(({ bucket, amount, currency, basis }: any) => ({ bucket, amount, currency, basis })), { bucket: 'freight', amount: '30.60', currency: 'EUR' }],
  });
  assert.equal(more.status, 200, JSON.stringify(more.body));
  assert.deepEqual([more.body.version, more.body.total, more.body.perKg], [2, '574.6050', '8.2916']);
  // Without a unit cost there is no landed cost (not a zero one).
  const bare = await call('importGreenLot', { name: 'Bare', lotCode: 'COSTED-2', weightKg: '10' });
  assert.equal(bare.body.lot.landedCost, null);
});

test('splitGreenLot refusals: duplicate code, reserved or spread-out weight, quarantine', async () => {
  const lot = await importLot(org, { weightKg: '100', locationId: siteA });
  const input = { id: lot.id, weightKg: '10', newLotCode: 'SPLIT-R' };
  await refused('splitGreenLot', { ...input, newLotCode: lot.lotCode }, 409, 'duplicate', 'newLotCode');
  await refused('splitGreenLot', { ...input, weightKg: '100.001' }, 409, 'insufficient_stock', 'weightKg');
  await call('reserveGreenLot', { id: lot.id, weightKg: '50' });
  await refused('splitGreenLot', { ...input, weightKg: '50.001' }, 409, 'insufficient_stock', 'weightKg');
  await call('releaseGreenLotReservation', { id: lot.id, weightKg: '50' });
  await call('transferGreenLotToLocation', { id: lot.id, fromLocationId: siteA, toLocationId: siteB, weightKg: '50' });
  // 100 kg are available, but no single location holds 60.
  await refused('splitGreenLot', { ...input, weightKg: '60' }, 409, 'stock_spread_across_locations', 'weightKg');
  await refused('splitGreenLot', { ...input, weightKg: '0' }, 400, 'invalid_input', 'weightKg');
  await refused('splitGreenLot', { ...input, newLotCode: 'bad code!' }, 400, 'invalid_input', 'newLotCode');
  await refused('splitGreenLot', { ...input, id: 'gl_nothere' }, 404, 'not_found', 'id');
  await server.owner.query(`update green_lots set quarantined = true where org_id = $1 and id = $2`, [org.id, lot.id]);
  await refused('splitGreenLot', input, 409, 'lot_quarantined', 'id');
});

test('mergeGreenLots drains each source location by location, with one lineage edge per source', async () => {
  const target = await importLot(org, { weightKg: '10', locationId: siteA });
  const one = await importLot(org, { weightKg: '20', locationId: siteA });
  const two = await importLot(org, { weightKg: '7' });
  await call('transferGreenLotToLocation', { id: one.id, fromLocationId: siteA, toLocationId: siteB, weightKg: '5' });
  const res = await call('mergeGreenLots', { targetId: target.id, sourceIds: [one.id, two.id], comment: 'consolidate' });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const { target: t, sources, groupId, transactions, lineage } = res.body;
  assert.equal(t.onHandKg, '37.000');
  assert.deepEqual(balancesOf(t), { unassigned: '7.000', [siteA]: '25.000', [siteB]: '5.000' });
  assert.deepEqual(sources.map((s: any) => [s.id, s.onHandKg, s.balances.length]), [[one.id, '0.000', 0], [two.id, '0.000', 0]]);
  assert.ok(transactions.every((r: any) => r.groupId === groupId), 'every transaction of the merge carries its groupId');
  assert.deepEqual(
    transactions.map((r: any) => [r.greenLotId, r.kind, r.locationId, r.deltaKg]).sort(),
    [
      [one.id, 'merge_out', siteA, '-15.000'],
      [one.id, 'merge_out', siteB, '-5.000'],
      [target.id, 'merge_in', siteA, '15.000'],
      [target.id, 'merge_in', siteB, '5.000'],
      [two.id, 'merge_out', null, '-7.000'],
      [target.id, 'merge_in', null, '7.000'],
    ].sort(),
  );
  assert.deepEqual(
    lineage.map((e: any) => [e.fromId, e.toId, e.weightKg]),
    [[one.id, target.id, '20.000'], [two.id, target.id, '7.000']],
  );
  assert.equal((await events('inventory.green.lots_merged')).at(-1).groupId, groupId);
  await assertLedgerInvariants(server.owner, org.id);
});

test('mergeGreenLots refusals', async () => {
  const target = await importLot(org, { weightKg: '10', locationId: siteA });
  const source = await importLot(org, { weightKg: '10', locationId: siteA });
  const input = { targetId: target.id, sourceIds: [source.id] };
  await refused('mergeGreenLots', { ...input, sourceIds: [target.id] }, 400, 'invalid_input', 'sourceIds[0]');
  await refused('mergeGreenLots', { ...input, sourceIds: [source.id, source.id] }, 400, 'invalid_input', 'sourceIds[1]');
  await refused('mergeGreenLots', { ...input, sourceIds: [] }, 400, 'invalid_input', 'sourceIds');
  await refused('mergeGreenLots', { ...input, sourceIds: [source.id, 'gl_nothere'] }, 404, 'not_found', 'sourceIds[1]');
  await refused('mergeGreenLots', { ...input, targetId: 'gl_nothere' }, 404, 'not_found', 'targetId');

  await call('reserveGreenLot', { id: source.id, weightKg: '1' });
  await refused('mergeGreenLots', input, 409, 'lot_reserved', 'sourceIds[0]');
  await call('releaseGreenLotReservation', { id: source.id, weightKg: '1' });

  const negative = await importLot(org, { weightKg: '10', locationId: siteA });
  await call('transferGreenLotToLocation', { id: negative.id, fromLocationId: siteA, toLocationId: siteB, weightKg: '4' });
  await call('adjustGreenLotQuantity', { id: negative.id, locationId: siteA, deltaKg: '-7', reason: 'recount' });
  await refused('mergeGreenLots', { ...input, sourceIds: [source.id, negative.id] }, 409, 'negative_balance', 'sourceIds[1]');

  const empty = await importLot(org, { weightKg: '1', locationId: siteA });
  await call('adjustGreenLotQuantity', { id: empty.id, deltaKg: '-1', reason: 'write_off' });
  await refused('mergeGreenLots', { ...input, sourceIds: [empty.id] }, 409, 'lot_empty', 'sourceIds[0]');

  const parchment = await importLot(org, { weightKg: '5', locationId: siteA, state: 'parchment' });
  await refused('mergeGreenLots', { ...input, sourceIds: [parchment.id] }, 409, 'state_mismatch', 'sourceIds[0]');

  await server.owner.query(`update green_lots set quarantined = true where org_id = $1 and id = $2`, [org.id, source.id]);
  await refused('mergeGreenLots', input, 409, 'lot_quarantined', 'sourceIds[0]');
  await server.owner.query(`update green_lots set quarantined = (id = $2) where org_id = $1 and id in ($2, $3)`, [org.id, target.id, source.id]);
  await refused('mergeGreenLots', input, 409, 'lot_quarantined', 'targetId');
});

test('setGreenLotCostComponents replaces the components and rolls them up exactly', async () => {
  const lot = await importLot(org, { weightKg: '300', locationId: siteA });
  const res = await call('setGreenLotCostComponents', {
    greenLotId: lot.id,
    components: [
      { bucket: 'price', amount: '1000.00', currency: 'USD', basis: 'total', description: 'contract price' },
      { bucket: 'price', amount: '0.1234', currency: 'USD', basis: 'per_kg', description: 'differential' },
      { bucket: 'freight', amount: 215.5, currency: 'USD' },
      { bucket: 'duty', amount: '0', currency: 'USD' },
      { bucket: 'carry', amount: '0.0105', currency: 'USD', basis: 'per_kg' },
    ],
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  // price: 1000 + 0.1234 × 300 = 1037.02; carry: 0.0105 × 300 = 3.15; total 1255.67; per kg 1255.67 / 300 = 4.18556… → 4.1856.
  assert.deepEqual(res.body.buckets, { price: '1037.0200', freight: '215.5000', duty: '0.0000', carry: '3.1500', other: '0.0000' });
  assert.deepEqual([res.body.currency, res.body.total, res.body.perKg, res.body.weightBasisKg, res.body.version], ['USD', '1255.6700', '4.1856', '300.000', 1]);
  assert.equal(res.body.components.length, 5);
  assert.equal(res.body.components[0].description, 'contract price');
  assert.equal((await events('inventory.green.cost_components_set')).at(-1).greenLotId, lot.id);

  const landed = await org.call('inventory.green.getGreenLotLandedCost', { greenLotId: lot.id }, { method: 'GET' });
  assert.equal(landed.status, 200);
  assert.deepEqual([landed.body.total, landed.body.perKg, landed.body.components.length], ['1255.6700', '4.1856', 5]);
  assert.equal((await getLot(lot.id)).landedCost.perKg, '4.1856');

  // Replacing keeps the earlier version as history; only the current one is answered.
  const replaced = await call('setGreenLotCostComponents', { greenLotId: lot.id, components: [{ bucket: 'other', amount: '0.00005', currency: 'EUR' }] });
  assertProblem(replaced, 400, 'invalid_input', 'components[0].amount');
  const second = await call('setGreenLotCostComponents', { greenLotId: lot.id, components: [{ bucket: 'other', amount: '0.0150', currency: 'EUR' }] });
  // 0.015 / 300 = 0.00005 → rounds half-up to 0.0001.
  assert.deepEqual([second.body.version, second.body.currency, second.body.total, second.body.perKg], [2, 'EUR', '0.0150', '0.0001']);
  assert.equal(second.body.components.length, 1);
  const [{ n }] = await server.owner.query<{ n: number }>(`select count(*)::int as n from green_lot_cost_components where org_id = $1 and lot_id = $2`, [org.id, lot.id]);
  assert.equal(n, 6);

  const cleared = await call('setGreenLotCostComponents', { greenLotId: lot.id, components: [] });
  assert.deepEqual([cleared.body.version, cleared.body.currency, cleared.body.total, cleared.body.perKg], [3, null, '0.0000', null]);
});

test('setGreenLotCostComponents refusals; getGreenLotLandedCost of a lot without components', async () => {
  const lot = await importLot(org, { weightKg: '10', locationId: siteA });
  const usd = { bucket: 'price', amount: '10', currency: 'USD' };
  await refused('setGreenLotCostComponents', { greenLotId: lot.id, components: [usd, { ...usd, currency: 'EUR' }] }, 400, 'invalid_input', 'components[1].currency');
  await refused('setGreenLotCostComponents', { greenLotId: lot.id, components: [{ ...usd, bucket: 'insurance' }] }, 400, 'invalid_input', 'components[0].bucket');
  await refused('setGreenLotCostComponents', { greenLotId: lot.id, components: [{ ...usd, amount: '-1' }] }, 400, 'invalid_input', 'components[0].amount');
  await refused('setGreenLotCostComponents', { greenLotId: lot.id, components: [{ ...usd, basis: 'per_bag' }] }, 400, 'invalid_input', 'components[0].basis');
  await refused('setGreenLotCostComponents', { greenLotId: lot.id }, 400, 'invalid_input', 'components');
  await refused('setGreenLotCostComponents', { greenLotId: 'gl_nothere', components: [usd] }, 404, 'not_found', 'greenLotId');
  const none = await call('getGreenLotLandedCost', { greenLotId: lot.id });
  assert.deepEqual(
    [none.body.version, none.body.currency, none.body.total, none.body.perKg, none.body.weightBasisKg, none.body.components],
    [0, null, '0.0000', null, '10.000', []],
  );
  assertProblem(await call('getGreenLotLandedCost', { greenLotId: 'gl_nothere' }), 404, 'not_found', 'greenLotId');
});

test('a split child inherits the landed cost per kilogram of its parent', async () => {
  const parent = await importLot(org, { weightKg: '300', locationId: siteA });
  await call('setGreenLotCostComponents', {
    greenLotId: parent.id,
    components: [
      { bucket: 'price', amount: '1000', currency: 'USD' },
      { bucket: 'freight', amount: '0.5', currency: 'USD', basis: 'per_kg' },
    ],
  });
  const res = await call('splitGreenLot', { id: parent.id, weightKg: '30', newLotCode: 'COST-CHILD' });
  const landed = await call('getGreenLotLandedCost', { greenLotId: res.body.child.id });
  // 1000 / 300 = 3.3333 per kg; × 30 kg = 99.999 → 99.9990; freight 0.5 × 30 = 15.
  assert.deepEqual(landed.body.buckets, { price: '99.9990', freight: '15.0000', duty: '0.0000', carry: '0.0000', other: '0.0000' });
  assert.deepEqual([landed.body.total, landed.body.perKg, landed.body.weightBasisKg], ['114.9990', '3.8333', '30.000']);
  assert.ok(landed.body.components.every((c: any) => c.basis === 'per_kg'), 'the child carries every cost component per kg');
  // The parent's own cost is untouched.
  assert.equal((await call('getGreenLotLandedCost', { greenLotId: parent.id })).body.perKg, '3.8333');
});

test('listGreenLots filters, searches and pages', async () => {
  const other = await server.createOrg();
  const place = await makeLocation(other, 'HERE');
  const elsewhere = await makeLocation(other, 'THERE');
  await server.owner.query(`insert into producers (org_id, id, code, name, kind) values ($1, 'pro_listfarm', 'F', 'F', 'farm')`, [other.id]);
  await server.owner.query(`insert into partners (org_id, id, code, name, types) values ($1, 'prt_listpartner', 'P', 'P', '{supplier}')`, [other.id]);
  const a = await importLot(other, { lotCode: 'KEN-AA-01', name: 'Kenya AA', weightKg: '10', locationId: place, producerId: 'pro_listfarm', minWeightKg: '20' });
  const b = await importLot(other, { lotCode: 'COL-01', name: 'Huila 50%', weightKg: '10', locationId: elsewhere, state: 'parchment', partnerId: 'prt_listpartner' });
  const c = await importLot(other, { lotCode: 'BRA-01', name: 'Cerrado', weightKg: '10', locationId: place });
  await other.call('inventory.green.adjustGreenLotQuantity', { id: c.id, deltaKg: '-10', reason: 'write_off' });
  await server.owner.query(`update green_lots set quarantined = true where org_id = $1 and id = $2`, [other.id, b.id]);

  const list = async (filter: Record<string, unknown>) => {
    const res = await other.call('inventory.green.listGreenLots', { filter });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.items.map((l: any) => l.id);
  };
  assert.deepEqual(await list({}), [a.id, b.id, c.id]);
  assert.deepEqual(await list({ state: 'parchment' }), [b.id]);
  assert.deepEqual(await list({ locationId: place }), [a.id]);
  assert.deepEqual(await list({ producerId: 'pro_listfarm' }), [a.id]);
  assert.deepEqual(await list({ partnerId: 'prt_listpartner' }), [b.id]);
  assert.deepEqual(await list({ quarantined: true }), [b.id]);
  assert.deepEqual(await list({ quarantined: false }), [a.id, c.id]);
  assert.deepEqual(await list({ hasStock: true }), [a.id, b.id]);
  assert.deepEqual(await list({ hasStock: false }), [c.id]);
  assert.deepEqual(await list({ belowMinimum: true }), [a.id]);
  assert.deepEqual(await list({ q: 'ken-aa' }), [a.id]);
  assert.deepEqual(await list({ q: 'cerr' }), [c.id]);
  assert.deepEqual(await list({ q: '50%' }), [b.id]);
  assert.deepEqual(await list({ q: '%' }), [b.id]);
  assertProblem(await other.call('inventory.green.listGreenLots', { filter: { colour: 'green' } }), 400, 'invalid_input', 'filter.colour');
  assertProblem(await other.call('inventory.green.listGreenLots', { filter: { hasStock: 'yes' } }), 400, 'invalid_input', 'filter.hasStock');

  // Paging through the lots held at one location.
  const d = await importLot(other, { lotCode: 'ETH-02', name: 'Guji', weightKg: '4', locationId: place });
  const held = await other.call('inventory.green.listGreenLots', { filter: { locationId: place }, page: { limit: 1 } });
  assert.deepEqual(held.body.items.map((l: any) => l.id), [a.id]);
  const heldRest = await other.call('inventory.green.listGreenLots', { filter: { locationId: place }, page: { limit: 1, cursor: held.body.nextCursor } });
  assert.deepEqual([heldRest.body.items.map((l: any) => l.id), heldRest.body.nextCursor], [[d.id], null]);

  const first = await other.call('inventory.green.listGreenLots', { page: { limit: 2 } }, { method: 'GET' });
  assert.deepEqual(first.body.items.map((l: any) => l.id), [a.id, b.id]);
  assert.equal(first.body.items[0].landedCost, null);
  const rest = await other.call('inventory.green.listGreenLots', { page: { limit: 2, cursor: first.body.nextCursor } });
  assert.deepEqual(rest.body.items.map((l: any) => l.id), [c.id, d.id]);
  assert.equal(rest.body.nextCursor, null);
});

test('listGreenLotTransactions pages through the ledger oldest first', async () => {
  const lot = await importLot(org, { weightKg: '10', locationId: siteA });
  for (let i = 1; i <= 4; i++) await call('adjustGreenLotQuantity', { id: lot.id, deltaKg: `-${i}`, reason: 'adjust', comment: `step ${i}` });
  const first = await call('listGreenLotTransactions', { greenLotId: lot.id, page: { limit: 3 } });
  assert.equal(first.status, 200);
  assert.deepEqual(first.body.items.map((r: any) => [r.seq, r.kind, r.deltaKg]), [[1, 'receive', '10.000'], [2, 'adjust', '-1.000'], [3, 'adjust', '-2.000']]);
  const rest = await org.call('inventory.green.listGreenLotTransactions', { greenLotId: lot.id, page: { limit: 3, cursor: first.body.nextCursor } }, { method: 'GET' });
  assert.deepEqual(rest.body.items.map((r: any) => [r.seq, r.comment]), [[4, 'step 3'], [5, 'step 4']]);
  assert.equal(rest.body.nextCursor, null);
  assertProblem(await call('listGreenLotTransactions', { greenLotId: lot.id, page: { cursor: 'garbage' } }), 400, 'invalid_cursor', 'page.cursor');
  assertProblem(await call('listGreenLotTransactions', { greenLotId: 'gl_nothere' }), 404, 'not_found', 'greenLotId');
  assertProblem(await call('listGreenLotBalances', { greenLotId: 'gl_nothere' }), 404, 'not_found', 'greenLotId');
});

test('a retried request with the same Idempotency-Key books nothing twice (adjust and split)', async () => {
  const lot = await importLot(org, { weightKg: '50', locationId: siteA });
  const adjust = { id: lot.id, deltaKg: '-2', reason: 'sample_draw' };
  const first = await call('adjustGreenLotQuantity', adjust, { idempotencyKey: `adjust-${lot.id}` });
  const again = await call('adjustGreenLotQuantity', adjust, { idempotencyKey: `adjust-${lot.id}` });
  assert.equal(again.status, 200);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.equal(again.body.transactions[0].id, first.body.transactions[0].id);
  assertProblem(await call('adjustGreenLotQuantity', { ...adjust, deltaKg: '-3' }, { idempotencyKey: `adjust-${lot.id}` }), 422, 'idempotency_key_reused');

  const split = { id: lot.id, weightKg: '10', newLotCode: `IDEM-${lot.id}` };
  const splitFirst = await call('splitGreenLot', split, { idempotencyKey: `split-${lot.id}` });
  const before = await greenState(server.owner, org.id);
  const splitAgain = await call('splitGreenLot', split, { idempotencyKey: `split-${lot.id}` });
  assert.equal(splitAgain.status, 200);
  assert.equal(splitAgain.body.child.id, splitFirst.body.child.id);
  assert.deepEqual(await greenState(server.owner, org.id), before);

  const lotNow = await getLot(lot.id);
  assert.equal(lotNow.onHandKg, '38.000');
  const rows = await call('listGreenLotTransactions', { greenLotId: lot.id });
  assert.deepEqual(rows.body.items.map((r: any) => r.kind), ['receive', 'sample_draw', 'split_out']);
  await assertLedgerInvariants(server.owner, org.id);
});

test('ledgers, lineage and cost history are append-only for the service role (server mode)', async (t) => {
  if (server.kind !== 'postgres') return t.skip('table privileges are enforced by the PostgreSQL server');
  await importLot(org, { weightKg: '1', producerId });
  const service = server.app.databases.service;
  for (const sql of [
    `update green_lot_ledger set delta_kg = 0`,
    `delete from green_lot_ledger`,
    `update lineage_edges set weight_kg = 0`,
    `delete from green_lot_cost_components`,
  ]) {
    await assert.rejects(service.transaction((tx) => tx.query(sql), { orgId: org.id }), /permission denied/, sql);
  }
});
