/**
 * A rendered report before it becomes files: what each kind gathers from its snapshot, in a form the PDF
 * and CSV writers share. Figures are already formatted strings (exact decimals), so both files print the
 * same numbers.
 */

export interface Column {
  label: string;
  /** Share of the table's width. */
  width: number;
  align?: 'left' | 'right';
  /** Codes (lot, location): printed on one line, the column widened to its longest cell before the others share the rest. */
  nowrap?: boolean;
}

export type Block =
  | { type: 'table'; heading: string; note?: string; columns: Column[]; rows: string[][]; totals?: string[][]; emptyText?: string }
  | { type: 'facts'; heading: string; facts: [string, string][] }
  | { type: 'paragraphs'; heading: string; paragraphs: string[] }
  | { type: 'qr'; heading: string; png: Buffer; caption: string[] };

export interface ReportDocument {
  organizationName: string;
  title: string;
  /** One line under the title, e.g. "Stock at the end of 24 November 2026 (UTC)". */
  subtitle: string;
  reportId: string;
  generatedAt: string;
  /** The organization's time zone (IANA name): every instant the report prints is in it, named. */
  timeZone: string;
  /** The parameters as a person reads them. */
  parameters: [string, string][];
  /** Things the reader must know before trusting the figures (a module not available yet, say). */
  notices: string[];
  blocks: Block[];
  csv: {
    columns: string[];
    rows: (string | number | null)[][];
    /**
     * Lines already written (UTF-8, CRLF-ended), after `rows`: a kind with many rows writes them a slice at a
     * time as it reads them, so they never cross to the rendering thread as values.
     */
    written?: Buffer[];
  };
  /** The totals, as the report answers them in `summary`. */
  summary: Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------------------
// Exact decimals: amounts as bigint in their smallest unit.

export { divRound, decimalString } from '../../lib/decimal.js';

/** Thousands separated for print: 12345.678 → 12,345.678. */
export function grouped(value: string): string {
  const [whole, fraction] = value.split('.');
  const sign = whole.startsWith('-') ? '-' : '';
  const digits = whole.replace('-', '').replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${sign}${digits}${fraction === undefined ? '' : `.${fraction}`}`;
}

/** The calendar day of a date (`YYYY-MM-DD`, read as that day) or of an instant in `timeZone` (default UTC). */
export const day = (isoTime: string, timeZone = 'UTC') =>
  new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: /^\d{4}-\d{2}-\d{2}$/.test(isoTime) ? 'UTC' : timeZone }).format(new Date(isoTime));
/** An instant as the clock in `timeZone` read it, followed by the zone's name: "24 Nov 2026, 14:05 Europe/Berlin". */
export const dayTime = (isoTime: string, timeZone = 'UTC') =>
  `${new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', hour12: false, timeZone }).format(new Date(isoTime))} ${timeZone}`;
