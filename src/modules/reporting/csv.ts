import type { ReportDocument } from './document.js';

/** RFC 4180: fields with a comma, quote or line break quoted, quotes doubled; CRLF line ends; UTF-8 with a BOM so spreadsheets read accents. */
function field(value: string | number | null): string {
  if (value === null) return '';
  const text = String(value);
  // A leading = + - @ would make a spreadsheet evaluate the cell; numbers are exempt (they are just numbers).
  const guarded = /^[=+\-@\t\r]/.test(text) && !/^-?\d+(\.\d+)?$/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(guarded) ? `"${guarded.replaceAll('"', '""')}"` : guarded;
}

/** The CSV, yielding to the event loop every few thousand rows so a large report never stalls requests. */
export async function renderCsv(document: ReportDocument): Promise<Buffer> {
  const parts: string[] = ['\uFEFF', document.csv.columns.map(field).join(','), '\r\n'];
  let n = 0;
  for (const row of document.csv.rows) {
    parts.push(row.map(field).join(','), '\r\n');
    if (++n % 5000 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  return Buffer.from(parts.join(''), 'utf8');
}
