import type { ReportDocument } from './document.js';

/** RFC 4180: fields with a comma, quote or line break quoted, quotes doubled; CRLF line ends; UTF-8 with a BOM so spreadsheets read accents. */
function field(value: string | number | null): string {
  if (value === null) return '';
  const text = String(value);
  // A leading = + - @ would make a spreadsheet evaluate the cell; numbers are exempt (they are just numbers).
  const guarded = /^[=+\-@\t\r]/.test(text) && !/^-?\d+(\.\d+)?$/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(guarded) ? `"${guarded.replaceAll('"', '""')}"` : guarded;
}

/** The CSV (rendered on a worker thread, render-task.ts, so a large one never stalls requests). */
export function renderCsv(document: ReportDocument): Buffer {
  const parts: string[] = ['\uFEFF', document.csv.columns.map(field).join(','), '\r\n'];
  for (const row of document.csv.rows) parts.push(row.map(field).join(','), '\r\n');
  return Buffer.from(parts.join(''), 'utf8');
}
