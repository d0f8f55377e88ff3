import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestOrg } from '../../../testing/harness.js';
import { makeMaterial } from './tenancy.cases.js';
import { assertProblem } from '../../../testing/problems.js';

const server = await startTestServer();

async function eventsOf(org: TestOrg, type: string) {
  return server.owner.query<{ data: any }>(`select data from events where org_id = $1 and type = $2 order by id`, [org.id, type]);
}

async function ledgerOf(org: TestOrg, materialId: string) {
  return server.owner.query<{ reason: string; delta_qty: string; balance_after: string }>(
    `select reason, delta_qty, balance_after from material_transactions where org_id = $1 and material_id = $2 order by id`,
    [org.id, materialId],
  );
}

/** The ledger invariant: the balance column equals the sum of the material's ledger rows. */
async function assertBalanceIsLedgerSum(org: TestOrg, materialId: string) {
  const [row] = await server.owner.query<{ on_hand: string; ledger_sum: string }>(
    `select m.on_hand, coalesce((select sum(delta_qty) from material_transactions t where t.org_id = m.org_id and t.material_id = m.id), 0)::numeric(15, 3) as ledger_sum
     from materials m where m.org_id = $1 and m.id = $2`,
    [org.id, materialId],
  );
  assert.equal(row.on_hand, row.ledger_sum);
  return row.on_hand;
}

const adjust = (org: TestOrg, id: string, deltaQty: string | number, reason: string, extra: Record<string, unknown> = {}) =>
  org.call('inventory.material.adjustMaterialQuantity', { id, deltaQty, reason, ...extra });

async function makePartner(org: TestOrg, code: string) {
  const res = await org.call('catalog.party.createPartner', { name: `Partner ${code}`, code, types: ['supplier'] });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.id as string;
}

async function makeLocation(org: TestOrg, code: string) {
  const res = await org.call('catalog.location.createLocation', { name: `Site ${code}`, code, kind: 'warehouse' });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.id as string;
}

test('createMaterial stores every field, starts at zero on hand, and emits inventory.material.created', async () => {
  const org = await server.createOrg();
  const supplier = await makePartner(org, 'BAGCO');
  const res = await org.call('inventory.material.createMaterial', {
    sku: 'BAG-250-KRAFT', name: 'Kraft bag 250 g with valve', kind: 'bag', unitCost: 0.185, currency: 'EUR',
    reorderPoint: '500', reorderQty: 2000, leadTimeDays: 21, supplierPartnerId: supplier,
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const material = res.body;
  assert.match(material.id, /^mat_[0-9a-z]{26}$/);
  assert.deepEqual(
    { ...material, id: undefined, createdAt: undefined, updatedAt: undefined },
    {
      id: undefined, sku: 'BAG-250-KRAFT', name: 'Kraft bag 250 g with valve', kind: 'bag', unitCost: '0.1850', currency: 'EUR',
      reorderPoint: '500.000', reorderQty: '2000.000', leadTimeDays: 21, supplierPartnerId: supplier, onHand: '0.000',
      belowReorderPoint: true, isActive: true, createdAt: undefined, updatedAt: undefined,
    },
  );
  assert.deepEqual((await org.call('inventory.material.getMaterial', { id: material.id }, { method: 'GET' })).body, material);
  const events = await eventsOf(org, 'inventory.material.created');
  assert.equal(events.length, 1);
  assert.deepEqual(events[0].data.material, material);
  assert.deepEqual(await ledgerOf(org, material.id), []);

  const bare = await org.call('inventory.material.createMaterial', { sku: 'TAPE-1', name: 'Packing tape (metres)', kind: 'tape' });
  assert.equal(bare.status, 200);
  assert.equal(bare.body.reorderPoint, null);
  assert.equal(bare.body.belowReorderPoint, false, 'without a reorder point nothing is below it');
  assert.equal(bare.body.supplierPartnerId, null);
});

test('createMaterial refuses a supplier that is not a partner of this organization (404 naming it), and writes nothing', async () => {
  const org = await server.createOrg();
  const other = await server.createOrg();
  const foreignPartner = await makePartner(other, 'THEIRS');
  for (const supplierPartnerId of [foreignPartner, 'prt_00000000000000000000000000']) {
    const res = await org.call('inventory.material.createMaterial', { sku: 'VALVE', name: 'Degassing valve', kind: 'valve', supplierPartnerId });
    assertProblem(res, 404, 'not_found', 'supplierPartnerId');
  }
  assert.equal((await org.call('inventory.material.listMaterials', {})).body.items.length, 0);
  assert.equal((await eventsOf(org, 'inventory.material.created')).length, 0);
});

test('createMaterial validates its input (400 naming the field) and keeps sku unique per organization (409)', async () => {
  const org = await server.createOrg();
  const base = { sku: 'LBL-1', name: 'Front label', kind: 'label' };
  assertProblem(await org.call('inventory.material.createMaterial', { ...base, kind: 'pallet' }), 400, 'invalid_input', 'kind');
  assertProblem(await org.call('inventory.material.createMaterial', { ...base, unitCost: '0.02' }), 400, 'invalid_input', 'currency');
  assertProblem(await org.call('inventory.material.createMaterial', { ...base, unitCost: '-1', currency: 'EUR' }), 400, 'invalid_input', 'unitCost');
  assertProblem(await org.call('inventory.material.createMaterial', { ...base, leadTimeDays: 1.5 }), 400, 'invalid_input', 'leadTimeDays');
  assertProblem(await org.call('inventory.material.createMaterial', { ...base, leadTimeDays: -1 }), 400, 'invalid_input', 'leadTimeDays');
  assertProblem(await org.call('inventory.material.createMaterial', { ...base, reorderQty: 0 }), 400, 'invalid_input', 'reorderQty');
  assertProblem(await org.call('inventory.material.createMaterial', { ...base, reorderPoint: '-5' }), 400, 'invalid_input', 'reorderPoint');
  assertProblem(await org.call('inventory.material.createMaterial', { ...base, reorderPoint: '1.0001' }), 400, 'invalid_input', 'reorderPoint');
  assertProblem(await org.call('inventory.material.createMaterial', { ...base, onHand: 100 }), 400, 'invalid_input', 'onHand');
  assertProblem(await org.call('inventory.material.createMaterial', { ...base, supplierPartnerId: 'nope' }), 400, 'invalid_input', 'supplierPartnerId');
  assert.equal((await org.call('inventory.material.listMaterials', {})).body.items.length, 0);

  assert.equal((await org.call('inventory.material.createMaterial', base)).status, 200);
  assertProblem(await org.call('inventory.material.createMaterial', { ...base, name: 'Other' }), 409, 'duplicate', 'sku');
  assert.equal((await org.call('inventory.material.listMaterials', {})).body.items.length, 1);
});

test('adjustMaterialQuantity appends a ledger row naming reason, location, credential, comment and resulting balance', async () => {
  const org = await server.createOrg();
  const [{ id: credentialId }] = await server.owner.query<{ id: string }>(`select id from credentials where org_id = $1`, [org.id]);
  const warehouse = await makeLocation(org, 'WH');
  const id = await makeMaterial(org, { reorderPoint: 50 });
  const res = await adjust(org, id, '120.5', 'receive', { locationId: warehouse, comment: 'PO 4711' });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const { material, transaction } = res.body;
  assert.equal(material.onHand, '120.500');
  assert.equal(material.belowReorderPoint, false);
  assert.match(transaction.id, /^mtx_[0-9a-z]{26}$/);
  assert.deepEqual(
    { ...transaction, id: undefined, createdAt: undefined },
    {
      id: undefined, materialId: id, reason: 'receive', deltaQty: '120.500', balanceAfter: '120.500', locationId: warehouse,
      credentialId, comment: 'PO 4711', createdAt: undefined,
    },
  );
  const events = await eventsOf(org, 'inventory.material.quantity_adjusted');
  assert.equal(events.length, 1);
  assert.deepEqual(events[0].data, res.body);

  // A JSON number works as well as a string; the ledger keeps the running balance.
  const shrink = await adjust(org, id, -70.5, 'shrinkage');
  assert.equal(shrink.status, 200, JSON.stringify(shrink.body));
  assert.equal(shrink.body.transaction.deltaQty, '-70.500');
  assert.equal(shrink.body.material.onHand, '50.000');
  assert.equal(shrink.body.material.belowReorderPoint, false, 'at the reorder point is not below it');
  const below = await adjust(org, id, '-0.001', 'adjust');
  assert.equal(below.body.material.belowReorderPoint, true);
  assert.deepEqual(await ledgerOf(org, id), [
    { reason: 'receive', delta_qty: '120.500', balance_after: '120.500' },
    { reason: 'shrinkage', delta_qty: '-70.500', balance_after: '50.000' },
    { reason: 'adjust', delta_qty: '-0.001', balance_after: '49.999' },
  ]);
  assert.equal(await assertBalanceIsLedgerSum(org, id), '49.999');
  assert.equal((await org.call('inventory.material.getMaterial', { id })).body.onHand, '49.999');
});

test('deltaQty is signed and non-zero: receive positive, shrinkage and write_off negative, otherwise 400 with nothing written', async () => {
  const org = await server.createOrg();
  const id = await makeMaterial(org);
  assert.equal((await adjust(org, id, 10, 'receive')).status, 200);
  const refusals: [string | number, string][] = [
    ['-1', 'receive'], ['1', 'shrinkage'], [2, 'write_off'], ['0', 'adjust'], ['0.000', 'recount'], [0, 'return'], ['-0', 'adjust'],
    ['1.0005', 'adjust'], ['ten', 'adjust'], ['1e3', 'adjust'],
  ];
  for (const [deltaQty, reason] of refusals) {
    assertProblem(await adjust(org, id, deltaQty, reason), 400, 'invalid_input', 'deltaQty');
  }
  assertProblem(await adjust(org, id, 1, 'sample_draw'), 400, 'invalid_input', 'reason');
  assertProblem(await adjust(org, id, 1, 'adjust', { comment: 'x'.repeat(2001) }), 400, 'invalid_input', 'comment');
  assertProblem(await org.call('inventory.material.adjustMaterialQuantity', { id, reason: 'adjust' }), 400, 'invalid_input', 'deltaQty');
  assert.equal((await ledgerOf(org, id)).length, 1);
  assert.equal(await assertBalanceIsLedgerSum(org, id), '10.000');
  // Reasons without a fixed direction take either sign.
  assert.equal((await adjust(org, id, '-1', 'return')).status, 200);
  assert.equal((await adjust(org, id, '2', 'return')).status, 200);
  assert.equal((await adjust(org, id, '-3', 'write_off')).status, 200);
  assert.equal(await assertBalanceIsLedgerSum(org, id), '8.000');
});

test('only recount may take the balance below zero; any other decrease that would is 409 insufficient_stock and writes nothing', async () => {
  const org = await server.createOrg();
  const id = await makeMaterial(org);
  await adjust(org, id, 10, 'receive');
  for (const [delta, reason] of [['-10.001', 'adjust'], ['-11', 'shrinkage'], ['-11', 'write_off'], ['-11', 'return']] as const) {
    const res = await adjust(org, id, delta, reason);
    assertProblem(res, 409, 'insufficient_stock');
    assert.equal(res.body.onHand, '10.000');
  }
  assert.equal((await ledgerOf(org, id)).length, 1);
  assert.equal((await eventsOf(org, 'inventory.material.quantity_adjusted')).length, 1);
  assert.equal((await org.call('inventory.material.getMaterial', { id })).body.onHand, '10.000');

  assert.equal((await adjust(org, id, '-10', 'shrinkage')).body.material.onHand, '0.000', 'exactly to zero is allowed');
  const recount = await adjust(org, id, '-4', 'recount', { comment: 'counted after consumption was not booked' });
  assert.equal(recount.status, 200);
  assert.equal(recount.body.material.onHand, '-4.000');
  assertProblem(await adjust(org, id, '-1', 'adjust'), 409, 'insufficient_stock');
  // An increase is always allowed, even when it leaves the balance still negative.
  assert.equal((await adjust(org, id, '3', 'receive')).body.material.onHand, '-1.000');
  assert.equal((await adjust(org, id, '1', 'adjust')).body.material.onHand, '0.000');
  assert.equal(await assertBalanceIsLedgerSum(org, id), '0.000');
});

test('locationId must be an unarchived location of this organization (404 naming it, 409 when archived)', async () => {
  const org = await server.createOrg();
  const other = await server.createOrg();
  const id = await makeMaterial(org);
  const foreign = await makeLocation(other, 'THEIRS');
  assertProblem(await adjust(org, id, 5, 'receive', { locationId: foreign }), 404, 'not_found', 'locationId');
  assertProblem(await adjust(org, id, 5, 'receive', { locationId: 'loc_00000000000000000000000000' }), 404, 'not_found', 'locationId');
  const archived = await makeLocation(org, 'OLD');
  assert.equal((await org.call('catalog.location.archiveLocation', { id: archived })).status, 200);
  assertProblem(await adjust(org, id, 5, 'receive', { locationId: archived }), 409, 'location_archived');
  assert.equal((await ledgerOf(org, id)).length, 0);
  assert.equal((await org.call('inventory.material.getMaterial', { id })).body.onHand, '0.000');
});

test('adjustMaterialQuantity and getMaterial answer 404 for a material not in this organization', async () => {
  const org = await server.createOrg();
  const other = await server.createOrg();
  const theirs = await makeMaterial(other);
  assertProblem(await adjust(org, theirs, 5, 'receive'), 404, 'not_found', 'id');
  assertProblem(await org.call('inventory.material.getMaterial', { id: theirs }), 404, 'not_found', 'id');
  assert.equal((await ledgerOf(other, theirs)).length, 0);
});

test('the ledger is append-only: its rows can be neither changed nor deleted, whoever connects', async () => {
  const org = await server.createOrg();
  const id = await makeMaterial(org);
  await adjust(org, id, 5, 'receive');
  await assert.rejects(server.owner.query(`update material_transactions set delta_qty = 500 where org_id = $1`, [org.id]), /append-only/);
  await assert.rejects(server.owner.query(`delete from material_transactions where org_id = $1`, [org.id]), /append-only/);
  assert.equal(await assertBalanceIsLedgerSum(org, id), '5.000');
});

test('listMaterials filters by kind, supplier, belowReorderPoint, isActive and q, pages stably, and refuses unknown filters', async () => {
  const org = await server.createOrg();
  const supplier = await makePartner(org, 'SUP');
  const bag = await makeMaterial(org, { sku: 'BAG-1KG', name: 'Bag 1 kg', kind: 'bag', reorderPoint: 10, supplierPartnerId: supplier });
  const label = await makeMaterial(org, { sku: 'LBL-1KG', name: 'Label 1 kg', kind: 'label', reorderPoint: 10 });
  const tin = await makeMaterial(org, { sku: 'TIN-250', name: 'Gift tin', kind: 'tin', supplierPartnerId: supplier });
  await adjust(org, label, 10, 'receive');
  const ids = async (input: unknown) => {
    const res = await org.call('inventory.material.listMaterials', input, { method: 'GET' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.items.map((m: { id: string }) => m.id);
  };
  assert.deepEqual(await ids({}), [bag, label, tin]);
  assert.deepEqual(await ids({ filter: { kind: 'label' } }), [label]);
  assert.deepEqual(await ids({ filter: { supplierPartnerId: supplier } }), [bag, tin]);
  assert.deepEqual(await ids({ filter: { belowReorderPoint: true } }), [bag]);
  assert.deepEqual(await ids({ filter: { belowReorderPoint: false } }), [label, tin]);
  assert.deepEqual(await ids({ filter: { belowReorderPoint: true, supplierPartnerId: supplier } }), [bag]);
  assert.deepEqual(await ids({ filter: { q: '1 KG' } }), [bag, label]);
  assert.deepEqual(await ids({ filter: { q: 'tin-' } }), [tin]);
  assert.deepEqual(await ids({ filter: { isActive: true } }), [bag, label, tin]);
  assert.deepEqual(await ids({ filter: { isActive: false } }), []);

  const first = (await org.call('inventory.material.listMaterials', { page: { limit: 2 } })).body;
  assert.deepEqual(first.items.map((m: { id: string }) => m.id), [bag, label]);
  assert.equal(first.items[1].onHand, '10.000');
  const rest = (await org.call('inventory.material.listMaterials', { page: { limit: 2, cursor: first.nextCursor } })).body;
  assert.deepEqual(rest.items.map((m: { id: string }) => m.id), [tin]);
  assert.equal(rest.nextCursor, null);

  assertProblem(await org.call('inventory.material.listMaterials', { filter: { sku: 'BAG-1KG' } }), 400, 'invalid_input', 'filter.sku');
  assertProblem(await org.call('inventory.material.listMaterials', { filter: { kind: 'pallet' } }), 400, 'invalid_input', 'filter.kind');
  assertProblem(await org.call('inventory.material.listMaterials', { filter: { belowReorderPoint: 'yes' } }), 400, 'invalid_input', 'filter.belowReorderPoint');
});
