import { PassThrough } from 'node:stream';
import type { z } from 'zod';
import { stringify } from 'csv-stringify/sync';
import ExcelJS from 'exceljs';
import type { Operation } from '../rpc/define.js';
import { ProblemError } from '../rpc/errors.js';

/**
 * Lists as spreadsheets: every list operation (one whose answer is a page, `pageOut`) also answers its whole
 * list as CSV or XLSX at `/rpc/v1/<operation>.csv` and `.xlsx`, with the same input (its filter), through the
 * same guard chain (credential, organization, rate limit, module, permission) as its JSON call. The file is
 * read page by page through the list's own handler and keyset cursor (Dispatcher.exportPages): on PostgreSQL
 * in one REPEATABLE READ, READ ONLY transaction, so the whole file is one consistent snapshot. Each page's
 * rows are written to the response before the next page is read, and the next page waits while the
 * response's buffer is full (the client reads slower than the database answers): memory stays that of one
 * page whatever the list's length, and the rows are the ones paging through the JSON answers gives.
 */
export type ExportFormat = 'csv' | 'xlsx';

export const EXPORT_CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

/**
 * The items read per page while exporting. Larger than a client's page (200): a fifth of the statements
 * (and of a handler's per-page checks) per row, still a bounded page in memory (two at most: the one
 * written and the one read meanwhile). Handlers take any validated limit; only the input schema caps a client's.
 */
export const EXPORT_PAGE_LIMIT = 1_000;

/**
 * How long an export waits for a client that reads nothing before it gives up: the export holds a database
 * connection (and on PostgreSQL an open snapshot) while it waits, which a stalled client must not keep.
 */
export const EXPORT_STALL_MS = 60_000;

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

function valueAt(item: unknown, path: readonly string[]): unknown {
  let current: unknown = item;
  for (const key of path) {
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

/** Thrown into the export's reading when its response has gone (the client disconnected, or it stalled). */
export class ExportAborted extends Error {
  constructor(reason: string) {
    super(`export aborted: ${reason}`);
  }
}

/**
 * The writing end of an export: `write(items)` turns one page's items into rows of the file and resolves once
 * the response can take more (at once while its buffer has room; after 'drain' otherwise), so the page after
 * is read only then. It throws ExportAborted once the response is gone, which ends the reading (and rolls its
 * transaction back). `end()` finishes the file.
 */
export interface ExportWriter {
  /** What the response is sent from (Fastify pipes it to the socket, with backpressure). */
  readonly body: PassThrough;
  write(items: readonly unknown[]): Promise<void>;
  end(): Promise<void>;
  /** Ends the body with an error (the client sees a cut transfer, never a complete-looking file). */
  fail(error: Error): void;
}

/** How a writer waits for its client: the stall bound, and a report of each wait's start and end (the server's counts). */
export interface WriterOptions {
  stallMs?: number;
  waiting?: (waiting: boolean) => void;
}

/** Resolves once `out` has room again; throws ExportAborted when it closes first or nothing drains for `stallMs`. */
function drained(out: PassThrough, { stallMs = EXPORT_STALL_MS, waiting = () => {} }: WriterOptions): Promise<void> {
  if (!out.writableNeedDrain) return Promise.resolve();
  waiting(true);
  return new Promise((resolve, reject) => {
    const done = (error?: Error) => {
      waiting(false);
      clearTimeout(timer);
      out.off('drain', onDrain);
      out.off('close', onClose);
      if (error) reject(error);
      else resolve();
    };
    const onDrain = () => done();
    const onClose = () => done(new ExportAborted('the response closed'));
    const timer = setTimeout(() => done(new ExportAborted(`the client read nothing for ${stallMs} ms`)), stallMs);
    out.on('drain', onDrain);
    out.on('close', onClose);
  });
}

function writerBase(out: PassThrough, options: WriterOptions) {
  return {
    check() {
      if (out.destroyed) throw new ExportAborted('the response closed');
    },
    drained: () => drained(out, options),
  };
}

/** The whole list as CSV (RFC 4180, a header row of the columns), one page's rows per write. */
export function csvWriter(columns: string[], options: WriterOptions = {}): ExportWriter {
  const out = new PassThrough();
  const paths = columns.map((c) => c.split('.'));
  const base = writerBase(out, options);
  let headed = false;
  const head = () => {
    if (!headed) out.write(stringify([columns]));
    headed = true;
  };
  return {
    body: out,
    async write(items) {
      base.check();
      head();
      if (items.length > 0) out.write(stringify(items.map((item) => paths.map((p) => csvCell(valueAt(item, p))))));
      await base.drained();
    },
    async end() {
      base.check();
      head();
      out.end();
    },
    fail: (error) => void out.destroy(error),
  };
}

/**
 * The whole list as an XLSX workbook of one sheet, written by exceljs's streaming writer (rows committed as
 * they come, no shared-strings table, so nothing accumulates per row).
 */
export function xlsxWriter(sheetName: string, columns: string[], options: WriterOptions = {}): ExportWriter {
  const out = new PassThrough();
  const paths = columns.map((c) => c.split('.'));
  const base = writerBase(out, options);
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useSharedStrings: false, useStyles: false });
  const sheet = workbook.addWorksheet(sheetName.slice(0, 31));
  sheet.addRow(columns).commit();
  return {
    body: out,
    async write(items) {
      base.check();
      for (const item of items) sheet.addRow(paths.map((p) => cell(valueAt(item, p)))).commit();
      await base.drained();
    },
    async end() {
      base.check();
      sheet.commit();
      await workbook.commit();
    },
    fail: (error) => void out.destroy(error),
  };
}
