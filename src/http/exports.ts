import { PassThrough, Readable } from 'node:stream';
import { once } from 'node:events';
import type { z } from 'zod';
import { stringify } from 'csv-stringify/sync';
import ExcelJS from 'exceljs';
import type { Operation } from '../rpc/define.js';
import { ProblemError } from '../rpc/errors.js';

/**
 * Lists as spreadsheets: every list operation (one whose answer is a page, `pageOut`) also answers its whole
 * list as CSV or XLSX at `/rpc/v1/<operation>.csv` and `.xlsx`, with the same input (its filter), through the
 * same guard chain (credential, organization, rate limit, module, permission) as its JSON call. The file is
 * streamed page by page through the list's own cursor, each page one call of the operation through the
 * dispatcher (its own read-only transaction, its answer checked like any other): memory stays that of one page
 * whatever the list's length, and the rows are the ones paging through the JSON answers gives.
 */
export type ExportFormat = 'csv' | 'xlsx';

export const EXPORT_CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

/** The items a page holds per call while exporting: the schemas' largest page. */
export const EXPORT_PAGE_LIMIT = 200;

/** `inventory.green.listGreenLots.csv` → the operation's name and the format; null for a plain operation name. */
export function exportOf(path: string): { name: string; format: ExportFormat } | null {
  const match = /^(.+)\.(csv|xlsx)$/.exec(path);
  return match ? { name: match[1], format: match[2] as ExportFormat } : null;
}

/** The item schema of a list operation's answer, or undefined when the operation is not a list. */
export function listItemSchema(operation: Operation): z.ZodType | undefined {
  const shape = (operation.output as unknown as { shape?: Record<string, z.ZodType> }).shape;
  if (!shape || !shape.items || !shape.nextCursor) return undefined;
  const items = shape.items as unknown as { def?: { type?: string; element?: z.ZodType } };
  return items.def?.type === 'array' ? items.def.element : undefined;
}

export function isListOperation(operation: Operation): boolean {
  return listItemSchema(operation) !== undefined;
}

/** Refuses an export of an operation that is not a list (its name exists; it has no pages to export). */
export function requireList(operation: Operation): z.ZodType {
  const item = listItemSchema(operation);
  if (!item) throw new ProblemError(404, 'unknown_operation', `${operation.name} is not a list: only list operations answer CSV or XLSX.`);
  return item;
}

type Def = { type?: string; innerType?: z.ZodType; shape?: Record<string, z.ZodType>; out?: z.ZodType; in?: z.ZodType };
const defOf = (schema: z.ZodType) => (schema as unknown as { def: Def }).def;

/** The schema under optional, nullable, default, readonly and pipe wrappers. */
function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (let i = 0; i < 20; i++) {
    const def = defOf(current);
    if (def.type && ['optional', 'nullable', 'default', 'readonly', 'prefault', 'catch', 'nonoptional'].includes(def.type) && def.innerType) current = def.innerType;
    else if (def.type === 'pipe' && def.out) current = def.out;
    else break;
  }
  return current;
}

/**
 * The columns of an item schema, in its declared order: a nested object's fields become `parent.child`
 * columns; arrays and open records stay one column holding their JSON.
 */
export function columnsOf(item: z.ZodType, prefix = ''): string[] {
  const inner = unwrap(item);
  const def = defOf(inner);
  if (def.type !== 'object') return prefix ? [prefix] : ['value'];
  const shape = (inner as unknown as { shape: Record<string, z.ZodType> }).shape;
  return Object.entries(shape).flatMap(([key, field]) => {
    const name = prefix ? `${prefix}.${key}` : key;
    return defOf(unwrap(field)).type === 'object' ? columnsOf(field, name) : [name];
  });
}

function valueAt(item: unknown, column: string): unknown {
  let current: unknown = item;
  for (const key of column.split('.')) {
    if (current === null || current === undefined || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** One cell: text as it is, numbers and booleans as written in JSON, nothing for null, JSON for arrays and records. */
function cell(value: unknown): string | number | boolean | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return JSON.stringify(value);
}

/**
 * A CSV cell a spreadsheet would take for a formula (starting with =, +, -, @, tab or CR) is prefixed with
 * an apostrophe (OWASP's CSV injection advice), except a number: `-12.000` stays a negative quantity.
 */
function csvCell(value: unknown): string {
  const v = cell(value);
  if (v === null) return '';
  const text = String(v);
  if (/^[=+\-@\t\r]/.test(text) && !/^[-+]?\d+(\.\d+)?$/.test(text)) return `'${text}`;
  return text;
}

/** Pages of a list, in order: `fetchPage(cursor)` answers one call's `{ items, nextCursor }`. */
export type PageFetcher = (cursor: string | null) => Promise<{ items: unknown[]; nextCursor: string | null }>;

async function* pagesOf(first: { items: unknown[]; nextCursor: string | null }, fetchPage: PageFetcher) {
  let page = first;
  for (;;) {
    yield page.items;
    if (!page.nextCursor) return;
    page = await fetchPage(page.nextCursor);
  }
}

/** The whole list as CSV (RFC 4180, a header row of the columns), one page in memory at a time. */
export function csvStream(columns: string[], first: { items: unknown[]; nextCursor: string | null }, fetchPage: PageFetcher): Readable {
  return Readable.from(
    (async function* () {
      yield stringify([columns]);
      for await (const items of pagesOf(first, fetchPage)) {
        if (items.length > 0) yield stringify(items.map((item) => columns.map((c) => csvCell(valueAt(item, c)))));
      }
    })(),
  );
}

/**
 * The whole list as an XLSX workbook of one sheet, written by exceljs's streaming writer (rows committed as
 * they come, no shared-strings table), waiting for the reader whenever the stream's buffer is full.
 */
export function xlsxStream(sheetName: string, columns: string[], first: { items: unknown[]; nextCursor: string | null }, fetchPage: PageFetcher): Readable {
  const out = new PassThrough();
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useSharedStrings: false, useStyles: false });
  const sheet = workbook.addWorksheet(sheetName.slice(0, 31));
  void (async () => {
    sheet.addRow(columns).commit();
    for await (const items of pagesOf(first, fetchPage)) {
      for (const item of items) sheet.addRow(columns.map((c) => cell(valueAt(item, c)))).commit();
      if (out.writableNeedDrain) await once(out, 'drain');
    }
    sheet.commit();
    await workbook.commit();
  })().catch((error) => out.destroy(error as Error));
  return out;
}
