import type { ReportDocument } from './document.js';

/** RFC 4180: fields with a comma, quote or line break quoted, quotes doubled; CRLF line ends; UTF-8 with a BOM so spreadsheets read accents. */
function field(value: string | number | null): string {
  if (value === null) return '';
  const text = String(value);
  // A leading = + - @ would make a spreadsheet evaluate the cell; numbers are exempt (they are just numbers).
  const guarded = /^[=+\-@\t\r]/.test(text) && !/^-?\d+(\.\d+)?$/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(guarded) ? `"${guarded.replaceAll('"', '""')}"` : guarded;
}

/** Rows as CSV lines, each ended by CRLF. */
export function csvLines(rows: (string | number | null)[][]): string {
  const parts: string[] = [];
  for (const row of rows) parts.push(row.map(field).join(','), '\r\n');
  return parts.join('');
}

/**
 * The CSV's header and `csv.rows` (rendered on a worker thread, render-task.ts, so a large one never stalls
 * requests); lines a kind wrote as it read (`csv.written`) follow them (render.ts).
 */
export function renderCsv(document: ReportDocument): Buffer {
  return Buffer.from(`\uFEFF${document.csv.columns.map(field).join(',')}\r\n${csvLines(document.csv.rows)}`, 'utf8');
}
