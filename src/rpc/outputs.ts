import { z } from 'zod';

/**
 * Building blocks for operation output schemas: what the service serves, as JSON. Objects are strict, so
 * a field added to an answer without being declared fails the suite's contract check (dispatch.ts) instead
 * of reaching clients undocumented. Schemas that name a resource carry `.meta({ id })`, so the OpenAPI
 * document and the typed client name them.
 */
export const out = z.strictObject;

/** A prefixed id (`gl_…`). */
export const idOut = z.string().regex(/^[a-z]+_[0-9a-z]+$/);
/** RFC 3339 UTC time with milliseconds. */
export const timeOut = z.iso.datetime();
/** `YYYY-MM-DD`. */
export const dateOut = z.iso.date();
/** Kilograms with exactly three decimals (`"12.345"`); negative only where a ledger delta says so. */
export const kgOut = z.string().regex(/^-?\d+\.\d{3}$/).describe('kilograms, a decimal string with three decimals');
/** An exact decimal (money, percentages, rates) as a string. */
export const decimalOut = z.string().regex(/^-?\d+(\.\d+)?$/).describe('an exact decimal as a string');
/** ISO 4217. */
export const currencyOut = z.string().regex(/^[A-Z]{3}$/);

/** A page of a list: `{ items, nextCursor }`. */
export const pageOut = <Item extends z.ZodType>(item: Item) => out({ items: z.array(item), nextCursor: z.string().nullable() });
