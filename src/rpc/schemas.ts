import { z } from 'zod';
import { invalidInput, type FieldError } from './errors.js';
import { CURSOR_MESSAGE, invalidCursor, isSealedCursorForm } from '../db/paging.js';

/**
 * Building blocks for operation input schemas. Every object is strict: an unknown field is a 400,
 * never silently ignored or mass-assigned. Every message names the rule the value broke; the path
 * names the field.
 */

// ---------------------------------------------------------------------------------------------------
// Messages: set once for every schema in the process. A schema's own message (a refinement's, a
// pattern's) still wins over these.

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  bigint: 'an integer',
  boolean: 'true or false',
  object: 'an object',
  record: 'an object',
  array: 'a list',
  tuple: 'a list',
  null: 'null',
  date: 'a date',
};

const FORMAT_NAMES: Record<string, string> = {
  date: 'a calendar date (YYYY-MM-DD) such as 2026-01-31',
  datetime: 'an RFC 3339 date-time with a real date and an offset, such as 2026-01-31T09:30:00Z',
  email: 'an email address',
  url: 'an http or https URL',
  uuid: 'a UUID',
};

const listed = (values: readonly unknown[]) => values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ');

function ruleMessage(issue: z.core.$ZodRawIssue): string | undefined {
  // A missing field fails its type, enum or union check alike: say what is wrong, not what it expected.
  if (issue.input === undefined && (issue.code === 'invalid_type' || issue.code === 'invalid_value' || issue.code === 'invalid_union')) return 'is required';
  switch (issue.code) {
    case 'invalid_type':
      return `must be ${TYPE_NAMES[issue.expected] ?? issue.expected}`;
    case 'invalid_value':
      return issue.values.length === 1 ? `must be ${listed(issue.values)}` : `must be one of ${listed(issue.values)}`;
    case 'too_small': {
      const n = String(issue.minimum);
      switch (issue.origin) {
        case 'string':
          return issue.minimum === 1 ? 'must not be empty' : `must be at least ${n} characters`;
        case 'array':
        case 'set':
          return issue.minimum === 1 ? 'must not be empty' : `must have at least ${n} items`;
        default:
          return issue.inclusive === false ? `must be greater than ${n}` : `must be at least ${n}`;
      }
    }
    case 'too_big': {
      const n = String(issue.maximum);
      switch (issue.origin) {
        case 'string':
          return `must be at most ${n} characters`;
        case 'array':
        case 'set':
          return `must have at most ${n} items`;
        default:
          return issue.inclusive === false ? `must be less than ${n}` : `must be at most ${n}`;
      }
    }
    case 'invalid_format':
      if (issue.format === 'regex' && 'pattern' in issue) return `must match ${String(issue.pattern)}`;
      return `must be ${FORMAT_NAMES[issue.format] ?? `a valid ${issue.format}`}`;
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.divisor)}`;
    case 'unrecognized_keys':
      return 'unknown field';
    case 'invalid_key':
      return 'has a key that is not allowed';
    case 'invalid_element':
      return 'has a value that is not allowed';
    case 'invalid_union':
      return unionMessage(issue.errors);
    case 'custom':
      return 'is not valid';
  }
  return undefined;
}

/**
 * A union's message says what the value may be: the alternatives of the same type as the value when
 * there are some (a string that is neither a date nor a date-time), else every alternative.
 */
function unionMessage(branches: z.core.$ZodIssue[][]): string {
  const typeOnly = (b: z.core.$ZodIssue[]) => b.length === 1 && b[0].path.length === 0 && b[0].code === 'invalid_type';
  const matched = branches.filter((b) => !typeOnly(b));
  const relevant = matched.length > 0 ? matched : branches;
  if (relevant.every((b) => b.length === 1 && b[0].path.length === 0 && b[0].message.startsWith('must be '))) {
    const alternatives = [...new Set(relevant.map((b) => b[0].message.slice('must be '.length)))];
    const values = relevant.every((b) => b[0].code === 'invalid_value') ? relevant.flatMap((b) => (b[0] as z.core.$ZodIssueInvalidValue).values) : undefined;
    if (values) return values.length === 1 ? `must be ${listed(values)}` : `must be one of ${listed([...new Set(values)])}`;
    return `must be ${alternatives.join(' or ')}`;
  }
  const first = relevant[0]?.[0];
  return first ? (first.path.length ? `${formatPath(first.path)}: ${first.message}` : first.message) : 'is not valid';
}

z.config({ customError: ruleMessage });

// ---------------------------------------------------------------------------------------------------
// Text PostgreSQL can store

/** PostgreSQL text and jsonb cannot hold U+0000; a lone UTF-16 surrogate has no UTF-8 form at all. */
function textProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain the NUL character (\\u0000)';
  if (/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text)) return 'must not contain a lone UTF-16 surrogate such as \\ud800';
  return undefined;
}

/**
 * Every string in a parsed JSON input, at any depth and in object keys too, that the database could
 * not store. Checked on the whole input before its schema, so no operation and no nesting can let one
 * through to SQL.
 */
export function unstorableText(input: unknown): FieldError[] {
  const errors: FieldError[] = [];
  const stack: { value: unknown; path: PropertyKey[] }[] = [{ value: input, path: [] }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') {
      const problem = textProblem(value);
      if (problem) errors.push({ path: formatPath(path), message: problem });
    } else if (Array.isArray(value)) {
      value.forEach((item, i) => stack.push({ value: item, path: [...path, i] }));
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        const problem = textProblem(key);
        if (problem) errors.push({ path: formatPath([...path, JSON.stringify(key).slice(1, -1)]), message: `field name ${problem}` });
        else stack.push({ value: item, path: [...path, key] });
      }
    }
  }
  return errors.reverse();
}

// ---------------------------------------------------------------------------------------------------
// Building blocks

export const strict = z.strictObject;

const ID_MESSAGE = 'must be an id: lowercase letters, an underscore, then lowercase letters and digits';
/** A record id (`loc_…`); `what` is kept for callers that name the record. */
export const id = (_what = 'id') => z.string().min(3, ID_MESSAGE).max(64).regex(/^[a-z]+_[0-9a-z]+$/, ID_MESSAGE);
export const code = z.string().trim().min(1).max(64).regex(/^[A-Za-z0-9][A-Za-z0-9._\-/]*$/, 'must be letters, digits and . _ - / only, starting with a letter or digit');
export const name = z.string().trim().min(1).max(200);
export const text = (max = 4000) => z.string().max(max);
export const currency = z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 currency code such as EUR');
export const country = z.string().regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 country code such as ET');
export const email = z.email();
export const url = z.url({ protocol: /^https?$/ });

/**
 * The years a date or an instant may fall in: 1900 to 9999. Nothing a roastery records (a harvest, a
 * contract, a roast, a till's business day) lies before 1900, and within these years every date and
 * instant is written with four-digit years and read back alike by PostgreSQL, PGlite and JavaScript
 * (years before 1000 are not: PGlite fails to read them back, PostgreSQL writes them unpadded). The last
 * date is 9999-12-30, so that a date's day ends within 9999 in every time zone (9999-12-31 ends in year
 * 10000 west of UTC).
 */
export const FIRST_DATE = '1900-01-01';
export const LAST_DATE = '9999-12-30';

/** Calendar dates within FIRST_DATE to LAST_DATE. The format check already refuses days a month does not have. */
export const date = z.iso
  .date()
  // Only a value of the date's form is judged here (the format check names the others); it compares as text.
  .refine((value) => !/^\d{4}-\d{2}-\d{2}$/.test(value) || (value >= FIRST_DATE && value <= LAST_DATE), `must be a date between ${FIRST_DATE} and ${LAST_DATE}`);

/**
 * Instants with an explicit offset, within FIRST_DATE to LAST_DATE in UTC too, and an offset a clock can
 * show (at most 14 hours, as the world's time zones; PostgreSQL refuses offsets from 16 hours).
 */
const FIRST_INSTANT = Date.parse(`${FIRST_DATE}T00:00:00Z`);
const AFTER_LAST_INSTANT = Date.parse('+010000-01-01T00:00:00Z');
export const dateTime = z.iso.datetime({ offset: true }).refine((value) => {
  const offset = /([+-])(\d{2}):?(\d{2})$/.exec(value);
  if (offset && Number(offset[2]) * 60 + Number(offset[3]) > 14 * 60) return false;
  const instant = Date.parse(value);
  return Number.isFinite(instant) && instant >= FIRST_INSTANT && instant < AFTER_LAST_INSTANT;
}, `must be a date-time between ${FIRST_DATE}T00:00:00Z and 9999-12-31T23:59:59Z with an offset of at most 14:00`);

export const timezone = z.string().refine((tz) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}, 'must be an IANA time zone such as Europe/Berlin');

/**
 * An exact decimal given as a string or a JSON number, normalised to a string for SQL numeric.
 * Never parsed into a binary float, so 0.1 + 0.2 stays 0.3 in the database. Every weight, money and
 * quantity field is one of these, with one rule for the string form: digits with an optional point and
 * decimals, a minus sign where negatives are allowed, nothing else: no spaces, no plus sign, no exponent,
 * and no leading zero before another digit (`"0.5"` and `"12"`, never `" 1"` or `"00012"`).
 */
export function decimal(options: { scale: number; min?: number; max?: number; positive?: boolean; allowNegative?: boolean }) {
  const pattern = options.allowNegative ? /^-?(0|[1-9]\d{0,11})(\.\d+)?$/ : /^(0|[1-9]\d{0,11})(\.\d+)?$/;
  const kind = options.allowNegative ? 'a decimal' : 'a non-negative decimal';
  const shape = `must be ${kind} with at most 12 digits before the point and ${options.scale} decimals, as a string or a number, without spaces or leading zeros`;
  return z
    .union([z.string(), z.number()], { error: (issue) => (issue.input === undefined ? undefined : shape) })
    .transform((value, ctx) => {
      const s = typeof value === 'number' ? (Number.isFinite(value) ? numberToPlain(value) : 'NaN') : value;
      if (!pattern.test(s)) {
        ctx.addIssue({ code: 'custom', message: shape });
        return z.NEVER;
      }
      const decimals = s.split('.')[1]?.length ?? 0;
      if (decimals > options.scale) {
        ctx.addIssue({ code: 'custom', message: `must be a decimal with at most ${options.scale} decimals` });
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

// ---------------------------------------------------------------------------------------------------
// Paging input. A cursor's seal is checked by the dispatcher, the list that issued it and its key's kinds
// where the list is read (db/paging.ts); here only its form, so a malformed cursor is reported with the
// rest of the input.

const CURSOR_ISSUE = 'cursor';

/** The most items a page holds. */
export const MAX_PAGE_LIMIT = 200;

export const page = strict({
  limit: z.number().int().min(1).max(MAX_PAGE_LIMIT).default(50),
  cursor: z
    .string()
    .max(512)
    .refine(isSealedCursorForm, { message: CURSOR_MESSAGE, params: { [CURSOR_ISSUE]: true } })
    .optional(),
}).default({ limit: 50 });
export type Page = z.output<typeof page>;

// ---------------------------------------------------------------------------------------------------
// Validating an operation's input

/**
 * The input parsed by `schema`, or a 400 listing every offending field once: `invalid_cursor` when the
 * page cursor is all that is wrong, `invalid_input` otherwise.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const text = unstorableText(input);
  const parsed = schema.safeParse(input);
  if (parsed.success && text.length === 0) return parsed.data;
  const errors = dedupe([...text, ...(parsed.success ? [] : fieldErrors(parsed.error))]);
  const cursorOnly = !parsed.success && parsed.error.issues.every((issue) => issue.code === 'custom' && issue.params?.[CURSOR_ISSUE]) && text.length === 0;
  if (cursorOnly) throw invalidCursor();
  throw invalidInput(errors);
}

/** Turns zod issues into the problem body's `errors`: one entry per offending field and rule, with its path. */
export function fieldErrors(error: z.ZodError): FieldError[] {
  const out: FieldError[] = [];
  for (const issue of error.issues) {
    const base = formatPath(issue.path);
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) out.push({ path: base ? `${base}.${key}` : key, message: 'unknown field' });
    } else {
      out.push({ path: base, message: issue.message });
    }
  }
  return dedupe(out);
}

function dedupe(errors: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errors.filter((e) => {
    const key = `${e.path}\u0000${e.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function formatPath(path: PropertyKey[]): string {
  return path.reduce<string>((acc, key) => (typeof key === 'number' ? `${acc}[${key}]` : acc ? `${acc}.${String(key)}` : String(key)), '');
}
