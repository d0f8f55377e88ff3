import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { startTestServer, type TestOrg, type TestServer } from '../../testing/harness.js';
import { makeLocation } from '../catalog/location/tenancy.cases.js';
import { GREEN_HEADER, greenRows, settled, toCsv, toXlsxBase64 } from './testing.js';

const server: TestServer = await startTestServer();
const org: TestOrg = await server.createOrg('enterprise', 'Rösterei Süd');
const other: TestOrg = await server.createOrg('enterprise', 'Other Roasters');

const ROWS = 10_000;
/** The bad row: the 9,999th data row, which a spreadsheet shows as row 10,000 (the header is row 1). */
const BAD_DATA_ROW = 9_999;
const BAD_FILE_ROW = BAD_DATA_ROW + 1;
const XLSX_APPLIED = 1_000;

const lotCount = async (orgId: string) =>
  (await server.owner.query<{ n: number }>(`select count(*)::int as n from green_lots where org_id = $1`, [orgId]))[0].n;

describe('green lots from a 10,000-row CSV', () => {
  let locationId: string;
  let good: string;

  before(async () => {
    locationId = await makeLocation(org, 'WH-IMPORT');
    good = toCsv(GREEN_HEADER, greenRows(ROWS, { locationId }));
  });

  test('a bad row at 9,999 is named by the dry run and refuses the whole apply', async () => {
    const bad = toCsv(GREEN_HEADER, greenRows(ROWS, { locationId, bad: [BAD_DATA_ROW] }));
    const check = await org.call('inventory.green.checkGreenLotImport', { format: 'csv', content: bad });
    assert.equal(check.status, 200, JSON.stringify(check.body).slice(0, 500));
    assert.equal(check.body.rowsTotal, ROWS);
    assert.equal(check.body.rowsInvalid, 1);
    assert.equal(check.body.wouldCreate, 0, 'an apply is all or nothing: one bad row creates nothing');
    const verdict = check.body.rows[BAD_DATA_ROW - 1];
    assert.equal(verdict.row, BAD_FILE_ROW);
    assert.equal(verdict.valid, false);
    assert.deepEqual(verdict.problems.map((p: any) => [p.column, p.cell, p.field, p.code]), [['Weight (kg)', `C${BAD_FILE_ROW}`, 'weightKg', 'invalid_input']]);
    // The message is the API's own for the same input.
    const direct = await org.call('inventory.green.importGreenLot', { lotCode: 'X-1', name: 'x', weightKg: 'sixty' });
    assert.equal(direct.status, 400);
    assert.equal(verdict.problems[0].message, direct.body.errors.find((e: any) => e.path === 'weightKg').message);
    assert.ok(check.body.rows.filter((r: any) => r.valid).length === ROWS - 1, 'every other row is valid');

    const apply = await org.call('inventory.green.applyGreenLotImport', { format: 'csv', content: bad, fileName: 'stock.csv' });
    assert.equal(apply.status, 200, JSON.stringify(apply.body));
    assert.equal(apply.body.status, 'queued');
    const done = await settled(org, 'GreenLot', apply.body.id);
    assert.equal(done.status, 'refused', JSON.stringify(done).slice(0, 500));
    assert.equal(done.problemCount, 1);
    assert.equal(done.problems[0].row, BAD_FILE_ROW);
    assert.equal(done.problems[0].column, 'Weight (kg)');
    assert.equal(done.rowsTotal, ROWS);
    assert.equal(await lotCount(org.id), 0, 'nothing was written');
  });

  test('the dry run shows the mapping and what would be created; the apply writes every row once', async () => {
    const check = await org.call('inventory.green.checkGreenLotImport', { format: 'csv', content: good });
    assert.equal(check.status, 200);
    assert.deepEqual(
      check.body.mapping.map((m: any) => [m.column, m.letter, m.field]),
      [
        ['Lot Code', 'A', 'lotCode'], ['Name', 'B', 'name'], ['Weight (kg)', 'C', 'weightKg'], ['State', 'D', 'state'],
        ['Varietals', 'E', 'varieties'], ['Harvest Year', 'F', 'harvestYear'], ['Unit cost', 'G', 'unitCost'], ['Currency', 'H', 'currency'],
        ['Location', 'I', 'locationId'], ['Remarks', 'J', 'notes'],
      ],
    );
    assert.equal(check.body.rowsValid, ROWS);
    assert.equal(check.body.wouldCreate, ROWS);
    assert.equal(check.body.rows[0].creates, 'GL-000001');

    const apply = await org.call('inventory.green.applyGreenLotImport', { format: 'csv', content: good });
    const done = await settled(org, 'GreenLot', apply.body.id);
    assert.equal(done.status, 'applied', JSON.stringify(done).slice(0, 500));
    assert.equal(done.created, ROWS);
    assert.equal(done.rowsChecked, ROWS);
    assert.equal(await lotCount(org.id), ROWS);

    // Read back through the API: the lot's facts and its opening weight at the location.
    const list = await org.call('inventory.green.listGreenLots', { filter: { q: 'GL-000004' } });
    const lot = list.body.items.find((l: any) => l.lotCode === 'GL-000004');
    const detail = await org.call('inventory.green.getGreenLot', { id: lot.id });
    assert.equal(detail.body.onHandKg, '63.500');
    assert.equal(detail.body.harvestYear, 2025);
    assert.equal(detail.body.notes, 'from the "north" slope, bag 1');
    assert.equal(detail.body.balances[0].locationId, locationId);
    assert.equal(detail.body.landedCost.perKg, '7.2500');

    // Idempotent: the same file answers the applied import and writes nothing more; so does a dry run now refuse every row.
    const again = await org.call('inventory.green.applyGreenLotImport', { format: 'csv', content: good });
    assert.equal(again.body.id, apply.body.id);
    assert.equal(again.body.status, 'applied');
    assert.equal(await lotCount(org.id), ROWS);
    const recheck = await org.call('inventory.green.checkGreenLotImport', { format: 'csv', content: toCsv(GREEN_HEADER, greenRows(3, { locationId })) });
    assert.deepEqual(recheck.body.rows.map((r: any) => r.problems[0]?.code), ['duplicate', 'duplicate', 'duplicate']);

    // Another organization is untouched and cannot see the import.
    assert.equal(await lotCount(other.id), 0);
    assert.equal((await other.call('inventory.green.getGreenLotImport', { id: apply.body.id })).status, 404);
  });

  test('a caller key makes an apply idempotent whatever the file', async () => {
    const first = await org.call('inventory.green.applyGreenLotImport', { format: 'csv', content: toCsv(GREEN_HEADER, greenRows(2, { prefix: 'KEY' })), key: 'stock-2026-11' });
    assert.equal((await settled(org, 'GreenLot', first.body.id)).status, 'applied');
    const second = await org.call('inventory.green.applyGreenLotImport', { format: 'csv', content: toCsv(GREEN_HEADER, greenRows(3, { prefix: 'KEY2' })), key: 'stock-2026-11' });
    assert.equal(second.body.id, first.body.id);
    assert.equal(await lotCount(org.id), ROWS + 2);
  });

  test('CSV and XLSX exports of a filtered list equal its JSON pages', async () => {
    const filter = { state: 'parchment', q: 'GL-000' };
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await org.call('inventory.green.listGreenLots', { filter, page: { limit: 200, ...(cursor ? { cursor } : {}) } });
      ids.push(...page.body.items.map((l: any) => l.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    assert.ok(ids.length > 200, `the filter spans two pages of the export (${ids.length})`);

    const input = encodeURIComponent(JSON.stringify({ filter }));
    const csv = await server.request(`/rpc/v1/inventory.green.listGreenLots.csv?input=${input}`, { headers: { authorization: `Bearer ${org.key}` } });
    assert.equal(csv.status, 200, await csv.clone().text());
    assert.equal(csv.headers.get('content-type'), 'text/csv; charset=utf-8');
    const records = parse(await csv.text(), { columns: true }) as Record<string, string>[];
    assert.deepEqual(records.map((r) => r.id), ids);
    assert.equal(records[0].state, 'parchment');
    assert.equal(records[0].varieties, '["Bourbon","Caturra"]');

    const xlsx = await server.request('/rpc/v1/inventory.green.listGreenLots.xlsx', {
      method: 'POST',
      headers: { authorization: `Bearer ${org.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ filter }),
    });
    assert.equal(xlsx.status, 200);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(await xlsx.arrayBuffer());
    const column = (workbook.worksheets[0].getRow(1).values as string[]).indexOf('id');
    const sheetIds: string[] = [];
    workbook.worksheets[0].eachRow((row, n) => void (n > 1 && sheetIds.push(String(row.getCell(column).value))));
    assert.deepEqual(sheetIds, ids);

    // The JSON call's refusals hold: a bad filter is its 400, another organization sees none of these lots, a non-list is 404.
    const badFilter = await server.request(`/rpc/v1/inventory.green.listGreenLots.csv?input=${encodeURIComponent(JSON.stringify({ filter: { nope: 1 } }))}`, { headers: { authorization: `Bearer ${org.key}` } });
    assert.equal(badFilter.status, 400);
    const theirs = await server.request(`/rpc/v1/inventory.green.listGreenLots.csv?input=${input}`, { headers: { authorization: `Bearer ${other.key}` } });
    assert.equal((await theirs.text()).trim().split('\n').length, 1, 'only the header row');
    assert.equal((await server.request('/rpc/v1/inventory.green.getGreenLot.csv', { headers: { authorization: `Bearer ${org.key}` } })).status, 404);
    assert.equal((await server.request('/rpc/v1/inventory.green.listGreenLots.csv')).status, 401);
    const viewer = await other.createKey('cafe');
    assert.equal((await server.request('/rpc/v1/inventory.green.listGreenLots.csv', { headers: { authorization: `Bearer ${viewer}` } })).status, 403);
  });

  test('the same 10,000 rows as a workbook: the dry run names the bad row; a corrected workbook applies', async () => {
    const locationId = await makeLocation(other, 'WH-X');
    const bad = await toXlsxBase64(GREEN_HEADER, greenRows(ROWS, { prefix: 'XL', locationId, bad: [BAD_DATA_ROW] }));
    const check = await other.call('inventory.green.checkGreenLotImport', { format: 'xlsx', content: bad });
    assert.equal(check.status, 200, JSON.stringify(check.body).slice(0, 500));
    assert.equal(check.body.rowsInvalid, 1);
    assert.equal(check.body.rows[BAD_DATA_ROW - 1].problems[0].cell, `C${BAD_FILE_ROW}`);

    // The apply after reading is the CSV's (tested above with 10,000 rows): a smaller workbook proves the path.
    const good = await toXlsxBase64(GREEN_HEADER, greenRows(XLSX_APPLIED, { prefix: 'XL', locationId }));
    const apply = await other.call('inventory.green.applyGreenLotImport', { format: 'xlsx', content: good, fileName: 'stock.xlsx' });
    const done = await settled(other, 'GreenLot', apply.body.id);
    assert.equal(done.status, 'applied', JSON.stringify(done).slice(0, 500));
    assert.equal(done.created, XLSX_APPLIED);
    assert.equal(await lotCount(other.id), XLSX_APPLIED);
    assert.equal(await lotCount(org.id), ROWS + 2, 'the first organization is untouched');
  });
});

describe('partners', () => {
  test('a semicolon CSV with loose headers: verdicts with createPartner’s messages, then all or nothing', async () => {
    const existing = await org.call('catalog.party.createPartner', { name: 'Old Friend', code: 'OLD-1', types: ['supplier'] });
    assert.equal(existing.status, 200);
    const bad = 'PARTNER CODE;company_name;Type;Email;Payment terms\nNEW-1;Nordic Green;importer;orders@nordic.example;30\nOLD-1;Old Friend again;supplier;;\nNEW-2;Broken;wizard;not-an-email;x\nNEW-1;Repeat;customer;;\n';
    const check = await org.call('catalog.party.checkPartnerImport', { format: 'csv', content: bad });
    assert.equal(check.status, 200, JSON.stringify(check.body));
    assert.deepEqual(check.body.mapping.map((m: any) => m.field), ['code', 'name', 'types', 'contactEmail', 'paymentTermsDays']);
    assert.deepEqual(check.body.rows.map((r: any) => [r.row, r.valid, r.problems.map((p: any) => `${p.cell}:${p.code}`).sort().join(' ')]), [
      [2, true, ''],
      [3, false, 'A3:duplicate'],
      [4, false, 'C4:invalid_input D4:invalid_input E4:invalid_input'],
      [5, false, 'A5:duplicate'],
    ]);
    const direct = await org.call('catalog.party.createPartner', { name: 'Broken', code: 'NEW-2', types: ['wizard'], contactEmail: 'not-an-email' });
    assert.deepEqual(
      check.body.rows[2].problems.filter((p: any) => p.field !== 'paymentTermsDays').map((p: any) => `${p.field}: ${p.message}`).sort(),
      direct.body.errors.map((e: any) => `${e.path.split(/[.[]/)[0]}: ${e.message}`).sort(),
      'the same messages as the operation',
    );
    const refused = await settled(org, 'Partner', (await org.call('catalog.party.applyPartnerImport', { format: 'csv', content: bad })).body.id, 'catalog.party');
    assert.equal(refused.status, 'refused');
    assert.deepEqual(refused.problems.map((p: any) => p.row), [3, 4, 4, 4, 5]);
    assert.equal((await org.call('catalog.party.listPartners', { filter: { q: 'NEW-' } })).body.items.length, 0, 'nothing written');
    const good = 'Code;Name;Types\nNEW-1;Nordic Green;importer;\nNEW-3;Café am Hafen;customer\n';
    const applied = await settled(org, 'Partner', (await org.call('catalog.party.applyPartnerImport', { format: 'csv', content: good })).body.id, 'catalog.party');
    assert.equal(applied.status, 'applied', JSON.stringify(applied));
    const list = await org.call('catalog.party.listPartners', { filter: { q: 'NEW-' } });
    assert.deepEqual(list.body.items.map((p: any) => p.code).sort(), ['NEW-1', 'NEW-3']);
  });
});
