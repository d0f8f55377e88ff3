import assert from 'node:assert/strict';
import ExcelJS from 'exceljs';
import type { TestOrg } from '../../testing/harness.js';

/** Test fixtures for spreadsheet imports, shared by the imports tests and their tenancy cases. */

/** A green-lot spreadsheet's header, spelled as a person would (the mapping matches it leniently). */
export const GREEN_HEADER = ['Lot Code', 'Name', 'Weight (kg)', 'State', 'Varietals', 'Harvest Year', 'Unit cost', 'Currency', 'Location', 'Remarks'];

/** `n` green-lot rows; `bad` rows (data row numbers, 1-based) carry an unreadable weight. */
export function greenRows(n: number, options: { prefix?: string; locationId?: string; bad?: number[] } = {}): string[][] {
  const prefix = options.prefix ?? 'GL';
  return Array.from({ length: n }, (_, i) => [
    `${prefix}-${String(i + 1).padStart(6, '0')}`,
    `Lot ${i + 1}`,
    options.bad?.includes(i + 1) ? 'sixty' : `${60 + (i % 10)}.500`,
    i % 4 === 0 ? 'parchment' : 'green',
    i % 4 === 0 ? 'Bourbon;Caturra' : '',
    String(2024 + (i % 2)),
    '7.25',
    'EUR',
    i % 2 === 1 ? (options.locationId ?? '') : '',
    i % 50 === 3 ? 'from the "north" slope, bag 1' : '',
  ]);
}

const csvCell = (c: string) => (/[",\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c);
export const toCsv = (header: string[], rows: string[][]) => [header, ...rows].map((r) => r.map(csvCell).join(',')).join('\r\n') + '\r\n';

export async function toXlsxBase64(header: string[], rows: string[][]): Promise<string> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('Lots');
  sheet.addRow(header);
  // Numbers as numbers, as a spreadsheet holds them.
  for (const r of rows) sheet.addRow(r.map((c) => (/^\d+(\.\d+)?$/.test(c) ? Number(c) : c)));
  return Buffer.from(await workbook.xlsx.writeBuffer()).toString('base64');
}

/** Polls the import until it is applied, refused or failed. */
export async function settled(org: TestOrg, noun: string, id: string, namespace = 'inventory.green'): Promise<any> {
  for (let attempt = 0; attempt < 1200; attempt++) {
    let res;
    try {
      res = await org.call(`${namespace}.get${noun}Import`, { id });
    } catch (error) {
      // Embedded PGlite holds the event loop while a large import writes: a poll sent on a kept-alive socket the
      // server then closes as idle fails in transport (`fetch failed`), not in its answer; poll again.
      if ((error as Error).message !== 'fetch failed') throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
      continue;
    }
    assert.equal(res.status, 200, JSON.stringify(res.body));
    if (['applied', 'refused', 'failed'].includes(res.body.status)) return res.body;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`import ${id} did not finish`);
}

/** An applied import of a few green lots (tenancy cases). */
export async function appliedGreenImport(org: TestOrg): Promise<string> {
  const res = await org.call('inventory.green.applyGreenLotImport', { format: 'csv', content: toCsv(GREEN_HEADER, greenRows(2, { prefix: `T${Math.random().toString(36).slice(2, 7)}` })) });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const done = await settled(org, 'GreenLot', res.body.id);
  assert.equal(done.status, 'applied', JSON.stringify(done));
  return res.body.id;
}

/** An applied import of one partner (tenancy cases). */
export async function appliedPartnerImport(org: TestOrg): Promise<string> {
  const code = `P${Math.random().toString(36).slice(2, 8)}`.toUpperCase();
  const res = await org.call('catalog.party.applyPartnerImport', { format: 'csv', content: `Code,Name,Types\n${code},Tenancy partner,supplier\n` });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const done = await settled(org, 'Partner', res.body.id, 'catalog.party');
  assert.equal(done.status, 'applied', JSON.stringify(done));
  return res.body.id;
}

/** Applies a file of `namespace`'s `noun` import and waits for it to finish: the finished import. */
export async function applyAndSettle(org: TestOrg, namespace: string, noun: string, content: string, options: { format?: 'csv' | 'xlsx'; key?: string } = {}): Promise<any> {
  const res = await org.call(`${namespace}.apply${noun}Import`, { format: options.format ?? 'csv', content, ...(options.key ? { key: options.key } : {}) });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return settled(org, noun, res.body.id, namespace);
}

/** An applied import of one customer (tenancy cases). */
export async function appliedCustomerImport(org: TestOrg): Promise<string> {
  const code = `C${Math.random().toString(36).slice(2, 8)}`.toUpperCase();
  const done = await applyAndSettle(org, 'orders', 'Customer', `Code,Name\n${code},Tenancy customer\n`);
  assert.equal(done.status, 'applied', JSON.stringify(done));
  return done.id;
}

/** An applied import of one product (tenancy cases). */
export async function appliedProductImport(org: TestOrg): Promise<string> {
  const sku = `S${Math.random().toString(36).slice(2, 8)}`.toUpperCase();
  const done = await applyAndSettle(org, 'catalog.product', 'Product', `SKU,Name,Format\n${sku},Tenancy product,whole_bean\n`);
  assert.equal(done.status, 'applied', JSON.stringify(done));
  return done.id;
}

/** An applied import of one material (tenancy cases). */
export async function appliedMaterialImport(org: TestOrg): Promise<string> {
  const sku = `M${Math.random().toString(36).slice(2, 8)}`.toUpperCase();
  const done = await applyAndSettle(org, 'inventory.material', 'Material', `SKU,Name,Kind\n${sku},Tenancy bag,bag\n`);
  assert.equal(done.status, 'applied', JSON.stringify(done));
  return done.id;
}

/** An applied import of one contract of two lines with `partnerId` (a selling partner of the organization) (tenancy cases). */
export async function appliedContractImport(org: TestOrg, partnerId: string): Promise<string> {
  const number = `GC${Math.random().toString(36).slice(2, 8)}`.toUpperCase();
  const done = await applyAndSettle(
    org,
    'sourcing.contract',
    'Contract',
    `Contract,Partner,Currency,Origin,Weight kg,Price per kg\n${number},${partnerId},USD,Ethiopia,600,5.5\n${number},${partnerId},USD,Kenya,400,6.25\n`,
  );
  assert.equal(done.status, 'applied', JSON.stringify(done));
  return done.id;
}
