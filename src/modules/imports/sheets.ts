import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { invalidInput } from '../../rpc/errors.js';

/**
 * Reading a spreadsheet's table: the first non-empty row is the header, every later row a record. CSV is
 * read by csv-parse (RFC 4180 quoting, a BOM dropped, `,` `;` or tab as found in the header line), XLSX by
 * exceljs (the first worksheet; a cell's shown value: a formula's result, rich text's text, a date as
 * YYYY-MM-DD). Every cell becomes text, as a CSV's would be, so both formats are checked alike.
 */
export type SheetFormat = 'csv' | 'xlsx';

export interface SheetRow {
  /** The row's number in the file as a spreadsheet shows it (the header is row 1 when it is the first line). */
  row: number;
  cells: string[];
}

export interface Sheet {
  header: string[];
  /** The header's row number. */
  headerRow: number;
  rows: SheetRow[];
}

/** At most this many records are read from one file (the body limit keeps files far smaller anyway). */
export const MAX_ROWS = 200_000;

export async function readSheet(format: SheetFormat, bytes: Buffer): Promise<Sheet> {
  const table = format === 'csv' ? readCsv(bytes) : await readXlsx(bytes);
  const first = table.findIndex((t) => t.cells.some((c) => c !== ''));
  if (first < 0) throw invalidInput([{ path: 'content', message: 'the file holds no header row' }], 'The file is empty.');
  const header = table[first].cells.map((c) => c.trim());
  const rows = table.slice(first + 1).filter((t) => t.cells.some((c) => c !== ''));
  if (rows.length > MAX_ROWS) throw invalidInput([{ path: 'content', message: `at most ${MAX_ROWS} rows per file` }]);
  return { header, headerRow: table[first].row, rows };
}

function readCsv(bytes: Buffer): SheetRow[] {
  const text = bytes.toString('utf8');
  const firstLine = text.slice(0, text.search(/\r?\n|$/));
  const delimiter = [',', ';', '\t'].reduce((best, d) => (firstLine.split(d).length > firstLine.split(best).length ? d : best), ',');
  try {
    const records = parse(text, { bom: true, delimiter, relax_column_count: true, skip_empty_lines: false, info: true }) as unknown as {
      record: string[];
      info: { lines: number };
    }[];
    return records.map(({ record, info }) => ({ row: info.lines, cells: record.map((c) => c.trim()) }));
  } catch (error) {
    const e = error as { message: string; lines?: number };
    throw invalidInput([{ path: 'content', message: `not a readable CSV${e.lines ? ` (line ${e.lines})` : ''}: ${e.message}` }], 'The file is not a readable CSV.');
  }
}

async function readXlsx(bytes: Buffer): Promise<SheetRow[]> {
  const workbook = new ExcelJS.Workbook();
  try {
    await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  } catch (error) {
    throw invalidInput([{ path: 'content', message: `not a readable XLSX workbook: ${(error as Error).message}` }], 'The file is not a readable XLSX workbook.');
  }
  const sheet = workbook.worksheets[0];
  if (!sheet) throw invalidInput([{ path: 'content', message: 'the workbook has no worksheet' }]);
  const rows: SheetRow[] = [];
  sheet.eachRow({ includeEmpty: false }, (row, number) => {
    const cells: string[] = [];
    for (let c = 1; c <= row.cellCount; c++) cells.push(cellText(row.getCell(c).value));
    rows.push({ row: number, cells });
  });
  return rows;
}

function cellText(value: ExcelJS.CellValue): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  if (typeof value === 'object') {
    if ('result' in value) return cellText(value.result as ExcelJS.CellValue);
    if ('richText' in value) return value.richText.map((r) => r.text).join('').trim();
    if ('text' in value) return String(value.text).trim();
    if ('error' in value) return '';
    return '';
  }
  return String(value).trim();
}

/** A column's name for matching: lower case, letters and digits only (`Lot Code`, `lot_code`, `LOT-CODE` → `lotcode`). */
export const normalizeColumn = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/** The spreadsheet letter of a 1-based column number (1 → A, 27 → AA). */
export function columnLetter(n: number): string {
  let s = '';
  for (let x = n; x > 0; x = Math.floor((x - 1) / 26)) s = String.fromCharCode(65 + ((x - 1) % 26)) + s;
  return s;
}
