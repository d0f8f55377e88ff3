/**
 * Small helpers for the SQL repositories write by hand: numbered parameters without counting, and
 * partial updates from a field map. Column names always come from code, never from input.
 */
export class SqlParams {
  readonly values: unknown[] = [];
  /** Adds a value and returns its placeholder ($n). */
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** `set a = $3, b = $4` for the columns whose value is not undefined; null clears a column. */
export function setClause(params: SqlParams, columns: Record<string, unknown>): string {
  return Object.entries(columns)
    .filter(([, value]) => value !== undefined)
    .map(([column, value]) => `${column} = ${params.add(value)}`)
    .join(', ');
}

export const iso = (value: Date | string | null | undefined): string | null =>
  value == null ? null : (value instanceof Date ? value : new Date(value)).toISOString();

/** `YYYY-MM-DD` from a date column, whichever driver read it. */
export const isoDate = (value: Date | string | null | undefined): string | null => {
  if (value == null) return null;
  if (typeof value === 'string') return value.slice(0, 10);
  const d = value;
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
};

/** Escapes LIKE wildcards so a text search for "50%" finds "50%". */
export const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
