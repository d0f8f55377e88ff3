import { ImportError } from './types.js';

/**
 * A small delimited-text reader shared by every CSV/TSV format: strips a UTF-8 BOM, accepts LF and CRLF, handles
 * RFC 4180 quoting ("a,b" and "" inside quotes) and records the 1-based line each record starts on so errors can
 * point at it. Blank lines are skipped.
 */

export interface DelimitedRecord {
  /** 1-based line number in the original text */
  line: number;
  cells: string[];
}

export function readDelimited(text: string, delimiter: ',' | '\t'): DelimitedRecord[] {
  const records: DelimitedRecord[] = [];
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let cells: string[] = [];
  let cell = '';
  let inQuotes = false;
  let line = 1;
  let recordLine = 1;

  const endRecord = () => {
    cells.push(cell);
    if (cells.length > 1 || cells[0] !== '') records.push({ line: recordLine, cells });
    cells = [];
    cell = '';
  };

  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (inQuotes) {
      if (ch === '"') {
        if (body[i + 1] === '"') {
          cell += '"';
          i++;
        } else {
          inQuotes = false;
        }
      } else {
        if (ch === '\n') line++;
        cell += ch;
      }
    } else if (ch === '"' && cell === '') {
      inQuotes = true;
    } else if (ch === delimiter) {
      cells.push(cell);
      cell = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && body[i + 1] === '\n') i++;
      endRecord();
      line++;
      recordLine = line;
    } else {
      cell += ch;
    }
  }
  if (inQuotes) throw new ImportError(`line ${recordLine}: unterminated quoted field`);
  if (cell !== '' || cells.length > 0) endRecord();
  return records;
}

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** Strict decimal parse: '' (after trimming) is a missing reading (null); anything non-numeric is an ImportError. */
export function parseNumberCell(record: DelimitedRecord, column: number, columnName: string): number | null {
  const raw = (record.cells[column] ?? '').trim();
  if (raw === '') return null;
  if (!DECIMAL.test(raw)) {
    throw new ImportError(`line ${record.line}: expected a number in column ${columnName}, got "${raw.slice(0, 40)}"`);
  }
  return Number(raw);
}

/** Like parseNumberCell, but an empty cell is also an error (for time columns that every row must have). */
export function requireNumberCell(record: DelimitedRecord, column: number, columnName: string): number {
  const value = parseNumberCell(record, column, columnName);
  if (value === null) throw new ImportError(`line ${record.line}: column ${columnName} is empty`);
  return value;
}

/**
 * Header names trimmed (some vendors write ", temp board"); throws when a required column is absent.
 * Returns a lookup from name to column index (first occurrence wins).
 */
export function indexColumns(header: DelimitedRecord, required: readonly string[]): Map<string, number> {
  const columns = new Map<string, number>();
  header.cells.forEach((name, index) => {
    const key = name.trim();
    if (!columns.has(key)) columns.set(key, index);
  });
  const missing = required.filter((name) => !columns.has(name));
  if (missing.length > 0) {
    throw new ImportError(`line ${header.line}: missing column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`);
  }
  return columns;
}

/**
 * Rows shorter than the header mean a cut-off file (or a broken writer); extra trailing empty cells are tolerated
 * because the 2024 IKAWA export ends every data row with a comma.
 */
export function assertRowWidth(record: DelimitedRecord, width: number): void {
  if (record.cells.length < width) {
    throw new ImportError(
      `line ${record.line}: expected ${width} columns, found ${record.cells.length} (truncated file?)`,
    );
  }
}

const CLOCK = /^(-)?(?:(\d+)h)?(\d+):(\d+(?:\.\d+)?)$/;

/**
 * "mm:ss" (minutes not wrapped into hours, and Artisan can print 60 seconds: "00:60"), optionally negative and with
 * an "1h05:00" hours part as Artisan's stringtoseconds accepts. Returns seconds, or null when the text is not a clock.
 */
export function parseClock(text: string): number | null {
  const match = CLOCK.exec(text.trim());
  if (!match) return null;
  const [, minus, hours, minutes, seconds] = match;
  const total = Number(hours ?? 0) * 3600 + Number(minutes) * 60 + Number(seconds);
  return minus ? -total : total;
}
