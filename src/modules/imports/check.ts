import type { Queryable } from '../../db/client.js';
import { ProblemError } from '../../rpc/errors.js';
import { parseInput } from '../../rpc/schemas.js';
import type { FieldSpec, ImportKind, ValidRow } from './kinds.js';
import { columnLetter, normalizeColumn, type Sheet } from './sheets.js';

/**
 * A file's dry run: its columns matched to the kind's fields, then every row validated with the create
 * operation's own input schema (parseInput: the API's messages) and checked by the owning module's service
 * for what only the database can tell (a code already used, a location unknown or archived), plus a code
 * repeated within the file. A row's problems name its row number, the column and the cell.
 */
export interface ColumnMapping {
  column: string;
  /** The column's letter as a spreadsheet shows it (A, B, …). */
  letter: string;
  /** The field it fills, or null: the column is not read. */
  field: string | null;
}

export interface RowProblem {
  /** The column the problem is in (null when the field has no column: a required field missing from the file). */
  column: string | null;
  /** The cell, as a spreadsheet names it (`C10000`), when the field has a column. */
  cell: string | null;
  field: string;
  /** The problem code the create operation would answer (`invalid_input`, `duplicate`, `not_found`, …). */
  code: string;
  message: string;
}

export interface RowVerdict {
  row: number;
  valid: boolean;
  /** What the row creates (its unique field's value, e.g. the lot code) when it is valid. */
  creates: string | null;
  problems: RowProblem[];
}

export interface Mapped {
  mapping: ColumnMapping[];
  /** Field → column index. */
  columns: Map<string, number>;
}

/** A field's key in the mapping and in error paths: `lines.weightKg` for a line field of a grouped kind, else its own (dotted) name. */
export const fieldKey = (kind: ImportKind, spec: FieldSpec) => (spec.line && kind.group ? `${kind.group.lines}.${spec.field}` : spec.field);

/** Matches columns leniently: a field's own name first (case, spaces, `_` and `-` ignored), then its synonyms; each field takes one column. */
export function mapColumns(kind: ImportKind, header: string[]): Mapped {
  const columns = new Map<string, number>();
  const taken = new Set<number>();
  const normalized = header.map(normalizeColumn);
  const claim = (key: string, names: string[]) => {
    if (columns.has(key)) return;
    const index = normalized.findIndex((n, i) => !taken.has(i) && n !== '' && names.includes(n));
    if (index >= 0) {
      columns.set(key, index);
      taken.add(index);
    }
  };
  for (const spec of kind.fields) claim(fieldKey(kind, spec), [normalizeColumn(spec.field)]);
  for (const spec of kind.fields) claim(fieldKey(kind, spec), (spec.synonyms ?? []).map(normalizeColumn));
  const fieldOf = new Map([...columns].map(([field, index]) => [index, field]));
  return {
    columns,
    mapping: header.map((column, i) => ({ column, letter: columnLetter(i + 1), field: fieldOf.get(i) ?? null })),
  };
}

/** Sets a dotted path (`shippingAddress.city`) in an object. */
function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let at = target;
  for (const part of parts.slice(0, -1)) at = (at[part] ??= {}) as Record<string, unknown>;
  at[parts[parts.length - 1]] = value;
}

/**
 * A row's cells as the operation's input (the line fields apart, for a grouped kind): empty cells are absent;
 * integers are numbers; lists split on `;`, `|` or `,`; a dotted field fills a nested object.
 */
function inputOf(kind: ImportKind, mapped: Mapped, cells: string[]): { input: Record<string, unknown>; line: Record<string, unknown> } {
  const input: Record<string, unknown> = {};
  const line: Record<string, unknown> = {};
  for (const spec of kind.fields) {
    const index = mapped.columns.get(fieldKey(kind, spec));
    if (index === undefined) continue;
    const text = cells[index] ?? '';
    if (text === '') continue;
    let value: unknown = text;
    if (spec.type === 'integer' && /^[-+]?\d+$/.test(text)) value = Number(text);
    else if (spec.type === 'list') value = text.split(/[;|,]/).map((s) => s.trim()).filter(Boolean);
    setPath(spec.line && kind.group ? line : input, spec.field, value);
  }
  return { input, line };
}

/**
 * Where an error path lands: the file row and the field key with a column. `lines[2].weightKg` is the group's
 * third row's `lines.weightKg`; `shippingAddress.city` is that field's column, or, without one, the nearest
 * enclosing field (`shippingAddress`). A path naming no field names the kind's unique field.
 */
function placeOf(kind: ImportKind, mapped: Mapped, rows: readonly number[], path: string): { row: number; field: string } {
  let row = rows[0];
  let key = path;
  const group = kind.group;
  if (group) {
    const m = new RegExp(`^${group.lines}\\[(\\d+)\\](.*)$`).exec(path);
    if (m) {
      row = rows[Number(m[1])] ?? rows[0];
      key = `${group.lines}${m[2]}`;
    }
  }
  key = key.replace(/\[\d+\]/g, '');
  for (let k = key; k; k = k.includes('.') ? k.slice(0, k.lastIndexOf('.')) : '') if (mapped.columns.has(k)) return { row, field: k };
  return { row, field: key || kind.uniqueField };
}

function problemsOf(kind: ImportKind, mapped: Mapped, rows: readonly number[], problem: ProblemError): (RowProblem & { row: number })[] {
  const errors = problem.extensions.errors?.length ? problem.extensions.errors : [{ path: kind.uniqueField, message: problem.message }];
  return errors.map((e) => {
    const { row, field } = placeOf(kind, mapped, rows, e.path);
    const index = mapped.columns.get(field);
    return {
      row,
      column: index === undefined ? null : mapped.mapping[index].column,
      cell: index === undefined ? null : `${columnLetter(index + 1)}${row}`,
      field,
      code: problem.code,
      message: e.message,
    };
  });
}

export interface Checked {
  verdicts: RowVerdict[];
  /** The records without a problem, ready to write, in file order (for a grouped kind, one per group of rows). */
  valid: ValidRow<unknown>[];
}

/** A record the file describes: one row, or for a grouped kind the rows sharing its key. */
interface Draft {
  rows: number[];
  input: Record<string, unknown>;
  problems: (RowProblem & { row: number })[];
}

/**
 * The records of a grouped kind: rows sharing the group key (the raw cell) are one record, its fields read off
 * the first row that fills each (a later row filling one with another value is a problem at that cell, so
 * a repeated contract column cannot silently disagree), its lines one per row.
 */
function groupDrafts(kind: ImportKind, mapped: Mapped, sheet: Sheet): Draft[] {
  const group = kind.group!;
  const keyIndex = mapped.columns.get(kind.uniqueField);
  const drafts = new Map<string, Draft & { from: Map<string, { value: string; row: number }> }>();
  const order: Draft[] = [];
  for (const { row, cells } of sheet.rows) {
    const key = keyIndex === undefined ? '' : (cells[keyIndex] ?? '');
    // A row without a key is a record of its own (its schema names the missing key).
    const mapKey = key === '' ? `\u0000${row}` : key;
    let draft = drafts.get(mapKey);
    if (!draft) {
      draft = { rows: [], input: { [group.lines]: [] }, problems: [], from: new Map() };
      drafts.set(mapKey, draft);
      order.push(draft);
    }
    const { input, line } = inputOf(kind, mapped, cells);
    draft.rows.push(row);
    (draft.input[group.lines] as unknown[]).push(line);
    for (const spec of kind.fields) {
      if (spec.line) continue;
      const index = mapped.columns.get(spec.field);
      if (index === undefined || (cells[index] ?? '') === '') continue;
      const first = draft.from.get(spec.field);
      if (!first) {
        draft.from.set(spec.field, { value: cells[index], row });
        draft.input[spec.field] = input[spec.field];
      } else if (first.value !== cells[index]) {
        draft.problems.push({
          row,
          column: mapped.mapping[index].column,
          cell: `${columnLetter(index + 1)}${row}`,
          field: spec.field,
          code: 'invalid_input',
          message: `differs from row ${first.row} of ${key} (${first.value})`,
        });
      }
    }
  }
  return order;
}

/**
 * Validates every record against the schema and the file's own uniqueness (no database): what each record's
 * input is, or the problems of each of its rows.
 */
export function validateRows(kind: ImportKind, mapped: Mapped, sheet: Sheet): Checked {
  const drafts: Draft[] = kind.group
    ? groupDrafts(kind, mapped, sheet)
    : sheet.rows.map(({ row, cells }) => ({ rows: [row], input: inputOf(kind, mapped, cells).input, problems: [] }));
  const verdicts: RowVerdict[] = [];
  const valid: ValidRow<unknown>[] = [];
  const seen = new Map<string, Map<string, number>>();
  for (const draft of drafts) {
    const problems = [...draft.problems];
    let input: unknown;
    try {
      input = parseInput(kind.schema, draft.input);
    } catch (error) {
      if (!(error instanceof ProblemError)) throw error;
      problems.push(...problemsOf(kind, mapped, draft.rows, error));
    }
    if (input !== undefined) {
      for (const field of [kind.uniqueField, ...(kind.alsoUnique ?? [])]) {
        const value = (input as Record<string, unknown>)[field];
        if (value === undefined || value === null) continue;
        const values = seen.get(field) ?? new Map<string, number>();
        seen.set(field, values);
        const earlier = values.get(String(value));
        if (earlier !== undefined) {
          const repeat = new ProblemError(409, 'duplicate', `${String(value)} repeats row ${earlier}.`, { errors: [{ path: field, message: `repeats row ${earlier} of this file` }] });
          problems.push(...problemsOf(kind, mapped, draft.rows, repeat));
        } else values.set(String(value), draft.rows[0]);
      }
    }
    const creates = problems.length === 0 ? String((input as Record<string, unknown>)[kind.uniqueField]) : null;
    for (const [i, row] of draft.rows.entries()) {
      const own = problems.filter((p) => p.row === row).map(({ row: _row, ...p }) => p);
      verdicts.push({ row, valid: problems.length === 0, creates: creates === null ? null : kind.group ? `${creates} line ${i + 1}` : creates, problems: own });
    }
    if (problems.length === 0) valid.push({ row: draft.rows[0], rows: draft.rows, input });
  }
  if (kind.group) verdicts.sort((a, b) => a.row - b.row);
  return { verdicts, valid };
}

/**
 * Adds the owning module's refusals (reads only) of `rows` to their verdicts: a record it refuses becomes
 * invalid (each of its rows) with the module's problem, as its create operation would answer it.
 */
export async function addRefusals(q: Queryable, orgId: string, kind: ImportKind, mapped: Mapped, rows: ValidRow<unknown>[], byRow: Map<number, RowVerdict>): Promise<number> {
  const refusals = await kind.refusals(q, orgId, rows);
  for (const { index, problem } of refusals) {
    const record = rows[index];
    for (const row of record.rows) {
      const verdict = byRow.get(row)!;
      verdict.valid = false;
      verdict.creates = null;
    }
    for (const { row, ...p } of problemsOf(kind, mapped, record.rows, problem)) byRow.get(row)!.problems.push(p);
  }
  return refusals.length;
}

/** The whole dry run in the caller's transaction. */
export async function checkSheet(q: Queryable, orgId: string, kind: ImportKind, sheet: Sheet) {
  const mapped = mapColumns(kind, sheet.header);
  const { verdicts, valid } = validateRows(kind, mapped, sheet);
  const byRow = new Map(verdicts.map((v) => [v.row, v]));
  await addRefusals(q, orgId, kind, mapped, valid, byRow);
  const writable = valid.filter((r) => byRow.get(r.row)!.valid);
  return { mapping: mapped.mapping, verdicts, rowsValid: verdicts.filter((v) => v.valid).length, valid: writable };
}
