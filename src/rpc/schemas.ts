import { z } from 'zod';
import { invalidInput } from './errors.js';

/**
 * Building blocks for operation input schemas. Every object is strict: an unknown field is a 400,
 * never silently ignored or mass-assigned.
 */
export const strict = z.strictObject;

export const id = (what = 'id') => z.string().min(3, `${what} must be an id`).max(64).regex(/^[a-z]+_[0-9a-z]+$/, `${what} must be an id`);
export const code = z.string().trim().min(1).max(64).regex(/^[A-Za-z0-9][A-Za-z0-9._\-/]*$/, 'letters, digits and . _ - / only');
export const name = z.string().trim().min(1).max(200);
export const text = (max = 4000) => z.string().max(max);
export const currency = z.string().regex(/^[A-Z]{3}$/, 'an ISO 4217 currency code such as EUR');
export const country = z.string().regex(/^[A-Z]{2}$/, 'an ISO 3166-1 alpha-2 country code such as ET');
export const email = z.email();
export const url = z.url({ protocol: /^https?$/ });
export const date = z.iso.date();
export const dateTime = z.iso.datetime({ offset: true });
export const timezone = z.string().refine((tz) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}, 'an IANA time zone such as Europe/Berlin');

/**
 * An exact decimal given as a string or a JSON number, normalised to a string for SQL numeric.
 * Never parsed into a binary float, so 0.1 + 0.2 stays 0.3 in the database.
 */
export function decimal(options: { scale: number; min?: number; max?: number; positive?: boolean; allowNegative?: boolean }) {
  const pattern = options.allowNegative ? /^-?\d{1,12}(\.\d+)?$/ : /^\d{1,12}(\.\d+)?$/;
  return z
    .union([z.string(), z.number()])
    .transform((value, ctx) => {
      const s = typeof value === 'number' ? (Number.isFinite(value) ? numberToPlain(value) : 'NaN') : value.trim();
      if (!pattern.test(s)) {
        ctx.addIssue({ code: 'custom', message: options.allowNegative ? 'must be a decimal number' : 'must be a non-negative decimal number' });
        return z.NEVER;
      }
      const decimals = s.split('.')[1]?.length ?? 0;
      if (decimals > options.scale) {
        ctx.addIssue({ code: 'custom', message: `at most ${options.scale} decimal places` });
        return z.NEVER;
      }
      const n = Number(s);
      if (options.positive && !(n > 0)) ctx.addIssue({ code: 'custom', message: 'must be greater than zero' });
      if (options.min !== undefined && n < options.min) ctx.addIssue({ code: 'custom', message: `must be at least ${options.min}` });
      if (options.max !== undefined && n > options.max) ctx.addIssue({ code: 'custom', message: `must be at most ${options.max}` });
      return s;
    });
}

function numberToPlain(n: number): string {
  // Avoid exponent notation (1e-7) for values a user could plausibly send.
  const s = String(n);
  return /e/i.test(s) ? n.toFixed(12).replace(/\.?0+$/, '') : s;
}

/** Kilograms: exact to the gram. */
export const kg = (opts: { positive?: boolean; allowNegative?: boolean } = {}) => decimal({ scale: 3, max: 1e9, ...opts });
/** Money: exact to 1/10000 of a currency unit (unit costs can be fractions of a cent). */
export const money = decimal({ scale: 4, max: 1e12 });

export const page = strict({
  limit: z.number().int().min(1).max(200).default(50),
  cursor: z.string().max(512).optional(),
}).default({ limit: 50 });
export type Page = z.output<typeof page>;

/** Cursors are opaque to clients: the sort key of the last row returned. */
export function encodeCursor(key: unknown[]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

export function decodeCursor(cursor: string | undefined, arity = 1): unknown[] | undefined {
  if (cursor === undefined) return undefined;
  try {
    const key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(key) && key.length === arity) return key;
  } catch {
    // fall through
  }
  throw invalidInput([{ path: 'page.cursor', message: 'not a cursor returned by this list' }]);
}

/** Fetch limit + 1 rows, return `limit` of them and the cursor to the rest. */
export function pageOf<T>(rows: T[], limit: number, keyOf: (row: T) => unknown[]): { items: T[]; nextCursor: string | null } {
  const items = rows.slice(0, limit);
  const nextCursor = rows.length > limit ? encodeCursor(keyOf(items[items.length - 1])) : null;
  return { items, nextCursor };
}

/** Turns zod issues into the problem body's `errors`: one entry per offending field, with its path. */
export function fieldErrors(error: z.ZodError): { path: string; message: string }[] {
  const out: { path: string; message: string }[] = [];
  for (const issue of error.issues) {
    const base = formatPath(issue.path);
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) out.push({ path: base ? `${base}.${key}` : key, message: 'unknown field' });
    } else if (issue.code === 'invalid_union' && issue.errors.length > 0) {
      out.push({ path: base, message: issue.message });
    } else {
      out.push({ path: base, message: issue.message });
    }
  }
  return out;
}

function formatPath(path: PropertyKey[]): string {
  return path.reduce<string>((acc, key) => (typeof key === 'number' ? `${acc}[${key}]` : acc ? `${acc}.${String(key)}` : String(key)), '');
}
