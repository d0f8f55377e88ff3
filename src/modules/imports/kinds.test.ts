import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../config.js';
import { startTestServer, type TestOrg, type TestServer } from '../../testing/harness.js';
import { makePartner, makeProducer } from '../sourcing/contract/testing.js';
import { makeProfile } from '../production/roast/testing.js';
import { makeBlend } from '../inventory/blend/tenancy.cases.js';
import { eventually, startReceiver } from '../webhooks/testing.js';
import { applyAndSettle, toCsv, toXlsxBase64 } from './testing.js';

// The kinds beyond green lots and partners (customers, products, materials, contracts with lines): each file
// small, so the whole file stays fast; the 10,000-row paths are imports.test.ts's.
const server: TestServer = await startTestServer({ config: { webhooks: { ...loadConfig().webhooks, allowPrivateUrls: true } } });
const org: TestOrg = await server.createOrg('enterprise', 'Import Kinds');
const other: TestOrg = await server.createOrg('enterprise', 'Other Kinds');
const receiver = await startReceiver();
after(() => receiver.close());

const count = async (table: string, orgId: string) => (await server.owner.query<{ n: number }>(`select count(*)::int as n from ${table} where org_id = $1`, [orgId]))[0].n;
const eventsOf = async (orgId: string, type: string) =>
  server.owner.query<{ data: any }>(`select data from events where org_id = $1 and type = $2 order by seq`, [orgId, type]);
const check = async (namespace: string, noun: string, content: string, format: 'csv' | 'xlsx' = 'csv') => {
  const res = await org.call(`${namespace}.check${noun}Import`, { format, content });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
};
/** A verdict's problems as `cell:code` (or `field:code` without a column), sorted. */
const problemCells = (verdict: any) => verdict.problems.map((p: any) => `${p.cell ?? p.field}:${p.code}`).sort().join(' ');
/** The message the API answers for `path` when the create operation is called with `input`. */
async function apiMessage(operation: string, input: unknown, path: string): Promise<string> {
  const res = await org.call(operation, input);
  assert.ok(res.status >= 400, JSON.stringify(res.body));
  const error = res.body.errors.find((e: any) => e.path === path);
  assert.ok(error, `${operation} names ${path}: ${JSON.stringify(res.body)}`);
  return error.message;
}

/** Refused with the problems at `rows`, nothing of `table` written, the refusal's problems named by row. */
async function assertRefusedWhole(namespace: string, noun: string, content: string, table: string, rows: number[]) {
  const before = await count(table, org.id);
  const eventsBefore = (await server.owner.query<{ n: number }>(`select count(*)::int as n from events where org_id = $1`, [org.id]))[0].n;
  const done = await applyAndSettle(org, namespace, noun, content);
  assert.equal(done.status, 'refused', JSON.stringify(done));
  assert.deepEqual([...new Set(done.problems.map((p: any) => p.row))], rows);
  assert.equal(await count(table, org.id), before, 'nothing written');
  const eventsAfter = (await server.owner.query<{ n: number }>(`select count(*)::int as n from events where org_id = $1`, [org.id]))[0].n;
  assert.equal(eventsAfter, eventsBefore, 'no event written');
}

describe('customers', () => {
  const header = ['Customer No', 'Company', 'Segment', 'Currency', 'Payment terms', 'E-mail', 'Street', 'City', 'ZIP', 'Country'];
  const rows = [
    ['CUS-1', 'Café am Hafen', 'cafe', 'EUR', '30', 'orders@hafen.example', 'Hafenstraße 1', 'Hamburg', '20457', 'DE'],
    ['CUS-2', 'Nordic Retail', 'retail', 'SEK', '', '', '', '', '', ''],
  ];

  test('dry run: the mapping (address columns into shippingAddress), verdicts by row and cell with createCustomer’s messages', async () => {
    const bad = toCsv(header, [...rows, ['CUS-3', 'Broken', 'bakery', 'EUR', '400', 'nope', '', 'Berlin', '', 'Germany'], ['CUS-1', 'Repeat', '', '', '', '', '', '', '', '']]);
    const body = await check('orders', 'Customer', bad);
    assert.deepEqual(body.mapping.map((m: any) => m.field), [
      'code', 'name', 'customerType', 'currency', 'paymentTermsDays', 'contactEmail',
      'shippingAddress.line1', 'shippingAddress.city', 'shippingAddress.postalCode', 'shippingAddress.country',
    ]);
    assert.deepEqual(body.rows.map((r: any) => [r.row, r.valid, problemCells(r)]), [
      [2, true, ''],
      [3, true, ''],
      [4, false, 'C4:invalid_input E4:invalid_input F4:invalid_input J4:invalid_input'],
      [5, false, 'A5:duplicate'],
    ]);
    assert.equal(body.wouldCreate, 0);
    const country = body.rows[2].problems.find((p: any) => p.field === 'shippingAddress.country');
    assert.equal(country.column, 'Country');
    assert.equal(
      country.message,
      await apiMessage('orders.createCustomer', { code: 'X', name: 'x', shippingAddress: { country: 'Germany' } }, 'shippingAddress.country'),
    );
    await assertRefusedWhole('orders', 'Customer', bad, 'customers', [4, 5]);
  });

  test('applied: every row created with its address, customer.created emitted for each; the same file again writes nothing', async () => {
    const content = toCsv(header, rows);
    const done = await applyAndSettle(org, 'orders', 'Customer', content);
    assert.equal(done.status, 'applied', JSON.stringify(done));
    assert.equal(done.created, 2);
    const list = await org.call('orders.listCustomers', { filter: { q: 'CUS-' } });
    const hafen = list.body.items.find((c: any) => c.code === 'CUS-1');
    assert.deepEqual(hafen.shippingAddress, { line1: 'Hafenstraße 1', city: 'Hamburg', postalCode: '20457', country: 'DE' });
    assert.equal(hafen.paymentTermsDays, 30);
    const events = await eventsOf(org.id, 'orders.customer.created');
    assert.deepEqual(events.map((e) => e.data.customer.code), ['CUS-1', 'CUS-2']);
    assert.equal(events[0].data.customer.id, hafen.id);

    const again = await applyAndSettle(org, 'orders', 'Customer', content);
    assert.equal(again.id, done.id);
    assert.equal(await count('customers', org.id), 2);
    assert.equal((await eventsOf(org.id, 'orders.customer.created')).length, 2);
    // A dry run now refuses the codes taken, with the API's duplicate message.
    const recheck = await check('orders', 'Customer', content);
    assert.deepEqual(recheck.rows.map(problemCells), ['A2:duplicate', 'A3:duplicate']);
    assert.equal(recheck.rows[0].problems[0].message, await apiMessage('orders.createCustomer', { code: 'CUS-1', name: 'x' }, 'code'));
  });

  test('a workbook of the same columns applies alike', async () => {
    const done = await applyAndSettle(org, 'orders', 'Customer', await toXlsxBase64(header, [['CUS-X1', 'Workbook Café', 'cafe', 'EUR', '14', '', '', '', '', 'AT']]), { format: 'xlsx' });
    assert.equal(done.status, 'applied', JSON.stringify(done));
    const list = await org.call('orders.listCustomers', { filter: { q: 'CUS-X1' } });
    assert.equal(list.body.items[0].paymentTermsDays, 14);
    assert.equal(list.body.items[0].shippingAddress.country, 'AT');
  });
});

describe('products', () => {
  let profileId: string;
  let blendId: string;
  let theirProfile: string;
  let theirBlend: string;
  const header = ['SKU', 'Product name', 'Format', 'Net weight', 'Price', 'Currency', 'EAN', 'Roast profile', 'Blend', 'Roast level'];

  before(async () => {
    profileId = (await makeProfile(org)).id;
    blendId = (await makeBlend(org)).blendId;
    theirProfile = (await makeProfile(other)).id;
    theirBlend = (await makeBlend(other)).blendId;
  });

  test('dry run: what each product is made of checked; another organization’s profile or blend is a row problem (404); all or nothing', async () => {
    const bad = toCsv(header, [
      ['HB-250', 'House blend 250 g', 'whole_bean', '0.250', '9.50', 'EUR', '4006381333931', '', blendId, ''],
      ['ESP-1K', 'Espresso 1 kg', 'whole_bean', '1.000', '', '', '', profileId, '', 'dark'],
      ['THEIRS-1', 'Their profile', 'whole_bean', '', '', '', '', theirProfile, '', ''],
      ['THEIRS-2', 'Their blend', 'whole_bean', '', '', '', '', '', theirBlend, 'light'],
      ['BOTH', 'Both', 'whole_bean', '', '9', '', '', profileId, blendId, ''],
      ['EAN-AGAIN', 'Same barcode', 'whole_bean', '', '', '', '4006381333931', '', '', ''],
    ]);
    const body = await check('catalog.product', 'Product', bad);
    assert.deepEqual(body.rows.map((r: any) => [r.row, r.valid, problemCells(r)]), [
      [2, true, ''],
      [3, true, ''],
      [4, false, 'H4:not_found'],
      [5, false, 'I5:not_found'],
      [6, false, 'F6:invalid_input I6:invalid_input'],
      [7, false, 'G7:duplicate'],
    ]);
    assert.equal(body.rows[2].problems[0].message, await apiMessage('catalog.product.createProduct', { sku: 'T1', name: 't', format: 'whole_bean', profileId: theirProfile }, 'profileId'));
    assert.equal(body.rows[3].problems[0].message, await apiMessage('catalog.product.createProduct', { sku: 'T2', name: 't', format: 'whole_bean', blendId: theirBlend }, 'blendId'));
    await assertRefusedWhole('catalog.product', 'Product', bad, 'products', [4, 5, 6, 7]);
  });

  test('applied: made of, roast level (a blend’s own when absent), net weight and SKU; product.created for each; idempotent on a caller key', async () => {
    const content = toCsv(header, [
      ['HB-250', 'House blend 250 g', 'whole_bean', '0.250', '9.50', 'EUR', '4006381333931', '', blendId, ''],
      ['ESP-1K', 'Espresso 1 kg', 'whole_bean', '1.000', '', '', '', profileId, '', 'dark'],
    ]);
    const done = await applyAndSettle(org, 'catalog.product', 'Product', content, { key: 'catalog-2026' });
    assert.equal(done.status, 'applied', JSON.stringify(done));
    const list = await org.call('catalog.product.listProducts', { filter: {} });
    const bySku = new Map(list.body.items.map((p: any) => [p.sku, p]));
    const espresso: any = bySku.get('ESP-1K');
    assert.deepEqual([espresso.profileId, espresso.roastLevel, espresso.netWeightKg], [profileId, 'dark', '1.000']);
    const house: any = bySku.get('HB-250');
    assert.equal(house.blendId, blendId);
    assert.equal(house.barcode, '4006381333931');
    const blend = await org.call('inventory.blend.getBlend', { id: blendId });
    assert.equal(house.roastLevel, blend.body.roastLevel ?? null);
    assert.deepEqual((await eventsOf(org.id, 'catalog.product.created')).map((e) => e.data.product.sku), ['HB-250', 'ESP-1K']);

    const again = await applyAndSettle(org, 'catalog.product', 'Product', toCsv(header, [['OTHER', 'Other', 'whole_bean', '', '', '', '', '', '', '']]), { key: 'catalog-2026' });
    assert.equal(again.id, done.id);
    assert.equal(await count('products', org.id), 2);
  });

  test('a workbook applies alike', async () => {
    const done = await applyAndSettle(org, 'catalog.product', 'Product', await toXlsxBase64(header, [['XL-1', 'Workbook bag', 'ground_filter', '0.500', '', '', '', profileId, '', 'light']]), { format: 'xlsx' });
    assert.equal(done.status, 'applied', JSON.stringify(done));
    const got = (await org.call('catalog.product.listProducts', { filter: { q: 'XL-1' } })).body.items[0];
    assert.deepEqual([got.format, got.netWeightKg, got.profileId, got.roastLevel], ['ground_filter', '0.500', profileId, 'light']);
  });
});

describe('materials', () => {
  const header = ['Item code', 'Description', 'Type', 'Unit cost', 'Currency', 'Reorder point', 'Lead time', 'Supplier'];

  test('dry run: createMaterial’s messages by cell; another organization’s supplier is a row problem (404); all or nothing; then applied with material.created', async () => {
    const supplier = await makePartner(org, { types: ['supplier'] });
    const theirs = await makePartner(other, { types: ['supplier'] });
    const bad = toCsv(header, [
      ['BAG-250', 'Valve bag 250 g', 'bag', '0.18', 'EUR', '500', '21', supplier],
      ['LBL-1', 'Front label', 'sticker', '0.02', '', '', 'soon', ''],
      ['BOX-1', 'Shipping box', 'box', '', '', '', '', theirs],
    ]);
    const body = await check('inventory.material', 'Material', bad);
    assert.deepEqual(body.rows.map((r: any) => [r.row, r.valid, problemCells(r)]), [
      [2, true, ''],
      [3, false, 'C3:invalid_input G3:invalid_input'],
      [4, false, 'H4:not_found'],
    ]);
    assert.equal(body.rows[2].problems[0].message, await apiMessage('inventory.material.createMaterial', { sku: 'X', name: 'x', kind: 'box', supplierPartnerId: theirs }, 'supplierPartnerId'));
    assert.equal(
      body.rows[1].problems.find((p: any) => p.field === 'kind').message,
      await apiMessage('inventory.material.createMaterial', { sku: 'X', name: 'x', kind: 'sticker' }, 'kind'),
    );
    await assertRefusedWhole('inventory.material', 'Material', bad, 'materials', [3, 4]);

    const good = toCsv(header, [['BAG-250', 'Valve bag 250 g', 'bag', '0.18', 'EUR', '500', '21', supplier], ['LBL-1', 'Front label', 'label', '0.02', 'EUR', '', '', '']]);
    const done = await applyAndSettle(org, 'inventory.material', 'Material', good);
    assert.equal(done.status, 'applied', JSON.stringify(done));
    const bag = (await org.call('inventory.material.listMaterials', { filter: { q: 'BAG-250' } })).body.items[0];
    assert.deepEqual([bag.supplierPartnerId, bag.unitCost, bag.leadTimeDays, bag.onHand], [supplier, '0.1800', 21, '0.000']);
    assert.deepEqual((await eventsOf(org.id, 'inventory.material.created')).map((e) => e.data.material.sku), ['BAG-250', 'LBL-1']);
    assert.equal((await applyAndSettle(org, 'inventory.material', 'Material', good)).id, done.id, 'the same file answers the applied import');
    assert.equal(await count('materials', org.id), 2);

    const xlsx = await applyAndSettle(org, 'inventory.material', 'Material', await toXlsxBase64(header, [['TIN-1', 'Gift tin', 'tin', '1.2', 'EUR', '', '', '']]), { format: 'xlsx' });
    assert.equal(xlsx.status, 'applied', JSON.stringify(xlsx));
    assert.equal(await count('materials', org.id), 3);
    assert.equal(await count('materials', other.id), 0);
  });
});

describe('contracts with lines (one row per line, grouped by contract number)', () => {
  const header = ['Contract No', 'Partner', 'Currency', 'Incoterm', 'Contract date', 'Producer', 'Origin', 'Quality', 'Weight (kg)', 'Price per kg', 'Bags'];
  let partnerId: string;
  let producerId: string;

  before(async () => {
    partnerId = await makePartner(org);
    producerId = await makeProducer(org);
  });

  test('dry run: line problems at their row, contract problems at the contract’s first row, disagreeing repeats at their cell; another organization’s partner refused', async () => {
    const theirPartner = await makePartner(other);
    const theirProducer = await makeProducer(other);
    const bad = toCsv(header, [
      ['GC-1', partnerId, 'USD', 'FOB', '2026-11-01', producerId, 'Ethiopia, Guji', 'G1 washed', '600', '5.50', '10'],
      ['GC-1', partnerId, 'USD', 'FOB', '2026-11-01', '', 'Colombia, Huila', 'Excelso', '400', '6.25', ''],
      ['GC-2', theirPartner, 'USD', '', '', '', 'Kenya', 'AA', '300', '7', ''],
      ['GC-3', partnerId, 'USD', 'FOB', '', '', 'Peru', 'SHB', 'lots', '5', ''],
      ['GC-3', partnerId, 'EUR', 'FOB', '', theirProducer, 'Peru', 'SHB', '200', '5', ''],
      ['GC-4', partnerId, 'USD', '', '', '', '', 'No origin', '100', '', ''],
    ]);
    const body = await check('sourcing.contract', 'Contract', bad);
    assert.deepEqual(body.mapping.map((m: any) => m.field), [
      'contractNumber', 'partnerId', 'currency', 'incoterm', 'contractDate', 'lines.producerId', 'lines.origin', 'lines.quality', 'lines.weightKg', 'lines.pricePerKg', 'lines.bagCount',
    ]);
    assert.deepEqual(body.rows.map((r: any) => [r.row, r.valid, problemCells(r)]), [
      [2, true, ''],
      [3, true, ''],
      [4, false, 'B4:not_found'],
      [5, false, 'I5:invalid_input'],
      [6, false, 'C6:invalid_input'],
      [7, false, 'G7:invalid_input J7:invalid_input'],
    ]);
    assert.deepEqual([body.rows[0].creates, body.rows[1].creates], ['GC-1 line 1', 'GC-1 line 2']);
    assert.equal(body.rowsValid, 2);
    assert.equal(body.wouldCreate, 0);
    assert.equal(body.rows[2].problems[0].message, await apiMessage('sourcing.contract.createContract', { contractNumber: 'T', partnerId: theirPartner, lines: [{ origin: 'x', weightKg: '1', pricePerKg: '1' }] }, 'partnerId'));
    assert.equal(
      body.rows[3].problems[0].message,
      await apiMessage('sourcing.contract.createContract', { contractNumber: 'T', partnerId, lines: [{ origin: 'x', weightKg: 'lots', pricePerKg: '1' }] }, 'lines[0].weightKg'),
    );
    assert.match(body.rows[4].problems[0].message, /differs from row 5 of GC-3 \(USD\)/);
    assert.equal(body.rows[5].problems.find((p: any) => p.field === 'lines.origin').message, 'a line needs a producerId or an origin');

    // A producer of another organization on a line: its row, once the contract's columns agree.
    const theirsOnLine = await check('sourcing.contract', 'Contract', toCsv(header, [
      ['GC-5', partnerId, 'USD', '', '', '', 'Peru', 'SHB', '100', '5', ''],
      ['GC-5', partnerId, 'USD', '', '', theirProducer, 'Peru', 'SHB', '200', '5', ''],
    ]));
    assert.deepEqual(theirsOnLine.rows.map((r: any) => [r.row, problemCells(r)]), [[2, ''], [3, 'F3:not_found']]);
    assert.equal(theirsOnLine.rows[0].valid, false, 'a contract is written whole: its other rows are not valid alone');

    await assertRefusedWhole('sourcing.contract', 'Contract', bad, 'green_contracts', [4, 5, 6, 7]);
  });

  test('applied: one contract per number with its lines in row order, contract.created for each, delivered to a subscribed webhook; idempotent; a workbook alike', async () => {
    const endpoint = await org.call('webhooks.createEndpoint', { url: `${receiver.url}/ok/contracts`, eventTypes: ['sourcing.contract.created'] });
    assert.equal(endpoint.status, 200, JSON.stringify(endpoint.body));
    // The contract's columns given on its first row only, its rows apart: still one contract.
    const content = toCsv(header, [
      ['GC-10', partnerId, 'USD', 'FOB', '2026-11-01', producerId, 'Ethiopia, Guji', 'G1 washed', '600', '5.50', '10'],
      ['GC-11', partnerId, '', 'CIF', '', '', 'Brazil, Cerrado', 'NY2 17/18', '1200', '3.10', ''],
      ['GC-10', '', '', '', '', '', 'Colombia, Huila', 'Excelso', '400', '6.25', ''],
    ]);
    const dry = await check('sourcing.contract', 'Contract', content);
    assert.deepEqual([dry.rowsValid, dry.wouldCreate], [3, 2], 'three rows, two contracts');
    assert.deepEqual(dry.rows.map((r: any) => r.creates), ['GC-10 line 1', 'GC-11 line 1', 'GC-10 line 2']);
    const done = await applyAndSettle(org, 'sourcing.contract', 'Contract', content);
    assert.equal(done.status, 'applied', JSON.stringify(done));
    assert.equal(done.created, 2);
    const list = await org.call('sourcing.contract.listContracts', { filter: { q: 'GC-1' } });
    const gc10 = list.body.items.find((c: any) => c.contractNumber === 'GC-10');
    const full = (await org.call('sourcing.contract.getContract', { id: gc10.id })).body;
    assert.deepEqual(full.lines.map((l: any) => [l.origin, l.weightKg, l.pricePerKg, l.producerId, l.fixationStatus]), [
      ['Ethiopia, Guji', '600.000', '5.5000', producerId, 'fixed'],
      ['Colombia, Huila', '400.000', '6.2500', null, 'fixed'],
    ]);
    assert.deepEqual([full.status, full.currency, full.incoterm, full.contractDate], ['draft', 'USD', 'FOB', '2026-11-01']);
    const events = await eventsOf(org.id, 'sourcing.contract.created');
    assert.deepEqual(events.map((e) => [e.data.contract.contractNumber, e.data.contract.lines.length]), [['GC-10', 2], ['GC-11', 1]]);
    await receiver.waitFor((r) => r.filter((x) => x.path === '/ok/contracts').length >= 2, 'the imported contracts delivered');
    const delivered = receiver.on('/ok/contracts').map((r) => JSON.parse(r.body));
    assert.deepEqual(delivered.map((d) => [d.type, d.data.contract.contractNumber]).sort(), [['sourcing.contract.created', 'GC-10'], ['sourcing.contract.created', 'GC-11']]);

    assert.equal((await applyAndSettle(org, 'sourcing.contract', 'Contract', content)).id, done.id);
    assert.equal(await count('green_contracts', org.id), 2);
    assert.equal(await count('green_contract_lines', org.id), 3);

    const xlsx = await applyAndSettle(org, 'sourcing.contract', 'Contract', await toXlsxBase64(header, [
      ['GC-20', partnerId, 'USD', '', '', '', 'Kenya', 'AA', '300', '7', '5'],
      ['GC-20', partnerId, 'USD', '', '', '', 'Kenya', 'AB', '200', '6.5', ''],
    ]), { format: 'xlsx' });
    assert.equal(xlsx.status, 'applied', JSON.stringify(xlsx));
    assert.equal(await count('green_contract_lines', org.id), 5);
    assert.equal(await count('green_contracts', other.id), 0);
    await eventually(async () => receiver.on('/ok/contracts').length >= 3, 'the workbook’s contract delivered');
  });
});
