import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestOrg } from '../../../testing/harness.js';
import { makeProduct } from '../../catalog/product/tenancy.cases.js';
import { makeMaterial } from './tenancy.cases.js';
import { assertProblem } from '../../../testing/problems.js';

const server = await startTestServer();

const publish = (org: TestOrg, input: Record<string, unknown>) => org.call('inventory.material.setBillOfMaterials', input);
const getBom = (org: TestOrg, productId: string) => org.call('inventory.material.getBillOfMaterials', { productId }, { method: 'GET' });
const explode = (org: TestOrg, productId: string, quantity: unknown) =>
  org.call('inventory.material.explodeMaterialRequirements', { productId, quantity }, { method: 'GET' });

async function stock(org: TestOrg, id: string, deltaQty: string) {
  const res = await org.call('inventory.material.adjustMaterialQuantity', { id, deltaQty, reason: Number(deltaQty) > 0 ? 'receive' : 'recount' });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

async function bomRows(org: TestOrg) {
  return server.owner.query<{ version: number; retired: boolean }>(
    `select version, retired_at is not null as retired from bills_of_materials where org_id = $1 order by version`,
    [org.id],
  );
}

test('setBillOfMaterials publishes version 1 with its lines and emits inventory.material.bom_published', async () => {
  const org = await server.createOrg();
  const [{ id: credentialId }] = await server.owner.query<{ id: string }>(`select id from credentials where org_id = $1`, [org.id]);
  const productId = await makeProduct(org);
  const bag = await makeMaterial(org, { sku: 'BAG', name: 'Bag', kind: 'bag' });
  const valve = await makeMaterial(org, { sku: 'VALVE', name: 'Valve', kind: 'valve' });
  const res = await publish(org, { productId, name: 'Retail 250 g', lines: [{ materialId: bag, quantity: 1, wastePct: '2.5' }, { materialId: valve, quantity: '1' }] });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const bom = res.body;
  assert.match(bom.id, /^bom_[0-9a-z]{26}$/);
  assert.deepEqual(
    { ...bom, id: undefined, publishedAt: undefined },
    {
      id: undefined, productId, version: 1, name: 'Retail 250 g', yieldQty: 1, publishedBy: credentialId, publishedAt: undefined, retiredAt: null,
      lines: [
        { lineNo: 1, materialId: bag, materialSku: 'BAG', materialName: 'Bag', materialKind: 'bag', quantity: '1.000', wastePct: '2.50' },
        { lineNo: 2, materialId: valve, materialSku: 'VALVE', materialName: 'Valve', materialKind: 'valve', quantity: '1.000', wastePct: '0.00' },
      ],
    },
  );
  assert.deepEqual((await getBom(org, productId)).body, { ...bom, previousVersions: [] });
  const events = await server.owner.query<{ data: any }>(`select data from events where org_id = $1 and type = 'inventory.material.bom_published'`, [org.id]);
  assert.deepEqual(events.map((e) => e.data), [{ billOfMaterials: bom, retiredVersion: null }]);
});

test('each publication retires the active version; earlier versions stay readable exactly as published', async () => {
  const org = await server.createOrg();
  const productId = await makeProduct(org);
  const box = await makeMaterial(org, { kind: 'box' });
  const insert = await makeMaterial(org, { kind: 'insert' });
  const v1 = (await publish(org, { productId, name: 'Gift box', lines: [{ materialId: box, quantity: 1 }] })).body;
  const v2res = await publish(org, { productId, name: 'Gift box with card', yieldQty: 6, lines: [{ materialId: box, quantity: 6 }, { materialId: insert, quantity: 6, wastePct: 10 }] });
  assert.equal(v2res.status, 200, JSON.stringify(v2res.body));
  const v2 = v2res.body;
  assert.equal(v2.version, 2);
  assert.equal(v2.yieldQty, 6);
  const afterTwo = (await getBom(org, productId)).body;
  assert.equal(afterTwo.id, v2.id);
  assert.equal(afterTwo.previousVersions.length, 1);
  const retiredV1 = afterTwo.previousVersions[0];
  assert.deepEqual({ ...retiredV1, retiredAt: null }, v1, 'the retired version keeps its name, yield and lines');
  assert.ok(retiredV1.retiredAt >= v1.publishedAt, 'v1 is retired no earlier than it was published');
  assert.ok(retiredV1.retiredAt <= v2.publishedAt, 'v1 is retired no later than v2 was published');

  const v3 = (await publish(org, { productId, name: 'Gift box v3', lines: [{ materialId: insert, quantity: 2 }] })).body;
  assert.equal(v3.version, 3);
  const afterThree = (await getBom(org, productId)).body;
  assert.equal(afterThree.id, v3.id);
  assert.deepEqual(afterThree.previousVersions.map((v: { version: number }) => v.version), [2, 1]);
  assert.equal(afterThree.previousVersions[1].retiredAt, retiredV1.retiredAt, 'a version is retired once; later publications leave it alone');
  assert.deepEqual(await bomRows(org), [{ version: 1, retired: true }, { version: 2, retired: true }, { version: 3, retired: false }]);
  const events = await server.owner.query<{ data: any }>(
    `select data from events where org_id = $1 and type = 'inventory.material.bom_published' order by id`, [org.id]);
  assert.deepEqual(events.map((e) => e.data.retiredVersion), [null, 1, 2]);

  // Versions are numbered per product.
  const otherProduct = await makeProduct(org);
  assert.equal((await publish(org, { productId: otherProduct, name: 'Other', lines: [{ materialId: box, quantity: 1 }] })).body.version, 1);
});

test('published history cannot be rewritten: lines never change, a version only gets retired_at once', async () => {
  const org = await server.createOrg();
  const productId = await makeProduct(org);
  const label = await makeMaterial(org, { kind: 'label' });
  await publish(org, { productId, name: 'v1', lines: [{ materialId: label, quantity: 1 }] });
  await publish(org, { productId, name: 'v2', lines: [{ materialId: label, quantity: 2 }] });
  const attempts = [
    `update bill_of_materials_lines set quantity = 9 where org_id = $1`,
    `delete from bill_of_materials_lines where org_id = $1`,
    `update bills_of_materials set name = 'rewritten' where org_id = $1 and version = 2`,
    `update bills_of_materials set retired_at = now() where org_id = $1 and version = 1`,
    `update bills_of_materials set retired_at = null where org_id = $1 and version = 1`,
    `delete from bills_of_materials where org_id = $1`,
  ];
  for (const sql of attempts) await assert.rejects(server.owner.query(sql, [org.id]), /append-only|history/, sql);
  const current = (await getBom(org, productId)).body;
  assert.equal(current.name, 'v2');
  assert.equal(current.lines[0].quantity, '2.000');
  assert.equal(current.previousVersions[0].lines[0].quantity, '1.000');
});

test('setBillOfMaterials refuses bad lines with 400 or 404 naming the path, and leaves the active version in place', async () => {
  const org = await server.createOrg();
  const other = await server.createOrg();
  const productId = await makeProduct(org);
  const bag = await makeMaterial(org);
  const label = await makeMaterial(org);
  const theirs = await makeMaterial(other);
  const active = (await publish(org, { productId, name: 'Active', lines: [{ materialId: bag, quantity: 1 }] })).body;

  const line = (materialId: string, extra: Record<string, unknown> = {}) => ({ materialId, quantity: 1, ...extra });
  assertProblem(await publish(org, { productId, name: 'Dup', lines: [line(bag), line(label), line(bag)] }), 400, 'invalid_input', 'lines[2].materialId');
  assertProblem(await publish(org, { productId, name: 'Unknown', lines: [line(bag), line(label), line('mat_00000000000000000000000000')] }), 404, 'not_found', 'lines[2].materialId');
  assertProblem(await publish(org, { productId, name: 'Foreign', lines: [line(theirs)] }), 404, 'not_found', 'lines[0].materialId');
  assertProblem(await publish(org, { productId: 'prd_00000000000000000000000000', name: 'No product', lines: [line(bag)] }), 404, 'not_found', 'productId');
  assertProblem(await publish(org, { productId, name: 'Empty', lines: [] }), 400, 'invalid_input', 'lines');
  assertProblem(await publish(org, { productId, name: 'Zero yield', yieldQty: 0, lines: [line(bag)] }), 400, 'invalid_input', 'yieldQty');
  assertProblem(await publish(org, { productId, name: 'Fractional yield', yieldQty: 1.5, lines: [line(bag)] }), 400, 'invalid_input', 'yieldQty');
  assertProblem(await publish(org, { productId, name: 'Zero qty', lines: [line(bag, { quantity: 0 })] }), 400, 'invalid_input', 'lines[0].quantity');
  assertProblem(await publish(org, { productId, name: 'Fine qty', lines: [line(bag, { quantity: '0.0001' })] }), 400, 'invalid_input', 'lines[0].quantity');
  assertProblem(await publish(org, { productId, name: 'Waste', lines: [line(label), line(bag, { wastePct: 100.01 })] }), 400, 'invalid_input', 'lines[1].wastePct');
  assertProblem(await publish(org, { productId, name: 'Waste', lines: [line(bag, { wastePct: -1 })] }), 400, 'invalid_input', 'lines[0].wastePct');
  assertProblem(await publish(org, { productId, name: 'Extra', lines: [line(bag, { unit: 'each' })] }), 400, 'invalid_input', 'lines[0].unit');
  assertProblem(await publish(org, { productId, lines: [line(bag)] }), 400, 'invalid_input', 'name');
  assertProblem(await publish(org, { productId, name: 'Version', version: 7, lines: [line(bag)] }), 400, 'invalid_input', 'version');

  const after = (await getBom(org, productId)).body;
  assert.deepEqual(after, { ...active, previousVersions: [] });
  assert.deepEqual(await bomRows(org), [{ version: 1, retired: false }]);
  // 100 % waste is the bound, and allowed.
  assert.equal((await publish(org, { productId, name: 'All waste', lines: [line(bag, { wastePct: 100 })] })).status, 200);
});

test('getBillOfMaterials answers 404 not_found for an unknown product and 404 no_bill_of_materials when none was published', async () => {
  const org = await server.createOrg();
  const productId = await makeProduct(org);
  assertProblem(await getBom(org, 'prd_00000000000000000000000000'), 404, 'not_found', 'productId');
  assertProblem(await getBom(org, productId), 404, 'no_bill_of_materials', 'productId');
  assertProblem(await explode(org, productId, 1), 404, 'no_bill_of_materials', 'productId');
  assertProblem(await explode(org, 'prd_00000000000000000000000000', 1), 404, 'not_found', 'productId');
});

test('explodeMaterialRequirements: exact requirements rounded up, shortages, reorder points, lead times and what can be made', async () => {
  const org = await server.createOrg();
  const productId = await makeProduct(org);
  const bag = await makeMaterial(org, { sku: 'BAG', name: 'Bag', kind: 'bag', reorderPoint: 5, leadTimeDays: 14 });
  const label = await makeMaterial(org, { sku: 'LBL', name: 'Label', kind: 'label', leadTimeDays: 30 });
  const tape = await makeMaterial(org, { sku: 'TAPE', name: 'Tape (m)', kind: 'tape', reorderPoint: '98.5', leadTimeDays: 7 });
  await stock(org, bag, '12');
  await stock(org, label, '3');
  await stock(org, tape, '100');
  // Three product units per recipe: 3 bags with 2.5 % waste, 1 label, 0.5 m of tape with 10 % waste.
  const bom = (await publish(org, {
    productId, name: 'Case of three', yieldQty: 3,
    lines: [{ materialId: bag, quantity: 3, wastePct: 2.5 }, { materialId: label, quantity: 1 }, { materialId: tape, quantity: '0.5', wastePct: '10' }],
  })).body;

  const res = await explode(org, productId, 10);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(res.body, {
    productId,
    quantity: 10,
    billOfMaterials: { id: bom.id, version: 1, yieldQty: 3 },
    materials: [
      // 10 / 3 × 3 × 1.025 = 10.25
      { materialId: bag, sku: 'BAG', name: 'Bag', kind: 'bag', quantityPerYield: '3.000', wastePct: '2.50', required: '10.250', onHand: '12.000',
        shortBy: '0.000', remainingAfter: '1.750', reorderPoint: '5.000', fallsBelowReorderPoint: true, leadTimeDays: 14 },
      // 10 / 3 = 3.333… rounds up to 3.334: a shortage is never understated.
      { materialId: label, sku: 'LBL', name: 'Label', kind: 'label', quantityPerYield: '1.000', wastePct: '0.00', required: '3.334', onHand: '3.000',
        shortBy: '0.334', remainingAfter: '-0.334', reorderPoint: null, fallsBelowReorderPoint: false, leadTimeDays: 30 },
      // 10 / 3 × 0.5 × 1.1 = 1.8333… → 1.834
      { materialId: tape, sku: 'TAPE', name: 'Tape (m)', kind: 'tape', quantityPerYield: '0.500', wastePct: '10.00', required: '1.834', onHand: '100.000',
        shortBy: '0.000', remainingAfter: '98.166', reorderPoint: '98.500', fallsBelowReorderPoint: true, leadTimeDays: 7 },
    ],
    // Labels limit production to 9 (9 / 3 = 3 labels); bags would allow 11, tape 545.
    summary: { canProduce: false, maxProducibleQuantity: 9, shortMaterialCount: 1, longestLeadTimeDays: 30 },
  });

  const nine = (await explode(org, productId, 9)).body;
  assert.deepEqual(nine.summary, { canProduce: true, maxProducibleQuantity: 9, shortMaterialCount: 0, longestLeadTimeDays: null });
  assert.deepEqual(nine.materials.map((m: any) => [m.required, m.shortBy, m.remainingAfter]), [
    ['9.225', '0.000', '2.775'], ['3.000', '0.000', '0.000'], ['1.650', '0.000', '98.350'],
  ]);

  // Several short materials: the longest lead time among them is what the plan waits for.
  const big = (await explode(org, productId, 100)).body;
  assert.deepEqual(big.summary, { canProduce: false, maxProducibleQuantity: 9, shortMaterialCount: 2, longestLeadTimeDays: 30 });
  assert.deepEqual(big.materials.map((m: any) => m.shortBy), ['90.500', '30.334', '0.000']);

  // Nothing was reserved or moved.
  assert.equal((await org.call('inventory.material.getMaterial', { id: label })).body.onHand, '3.000');
});

test('explodeMaterialRequirements follows the active version and counts a negative balance as nothing to produce from', async () => {
  const org = await server.createOrg();
  const productId = await makeProduct(org);
  const capsule = await makeMaterial(org, { kind: 'capsule' });
  await publish(org, { productId, name: 'v1', lines: [{ materialId: capsule, quantity: 1 }] });
  await publish(org, { productId, name: 'v2', yieldQty: 1, lines: [{ materialId: capsule, quantity: 10 }] });
  await stock(org, capsule, '-2');
  const res = (await explode(org, productId, 1)).body;
  assert.equal(res.billOfMaterials.version, 2);
  assert.deepEqual(
    [res.materials[0].required, res.materials[0].onHand, res.materials[0].shortBy, res.materials[0].remainingAfter],
    ['10.000', '-2.000', '12.000', '-12.000'],
  );
  assert.deepEqual(res.summary, { canProduce: false, maxProducibleQuantity: 0, shortMaterialCount: 1, longestLeadTimeDays: null });

  assertProblem(await explode(org, productId, 0), 400, 'invalid_input', 'quantity');
  assertProblem(await explode(org, productId, 1.5), 400, 'invalid_input', 'quantity');
  assertProblem(await explode(org, productId, '3'), 400, 'invalid_input', 'quantity');
});
