import type { Queryable } from '../../db/client.js';
import { ProblemError } from '../../rpc/errors.js';
import { parseInput } from '../../rpc/schemas.js';
import type { ImportKind, ValidRow } from './kinds.js';
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

/** Matches columns leniently: a field's own name first (case, spaces, `_` and `-` ignored), then its synonyms; each field takes one column. */
export function mapColumns(kind: ImportKind, header: string[]): Mapped {
  const columns = new Map<string, number>();
  const taken = new Set<number>();
  const normalized = header.map(normalizeColumn);
  const claim = (field: string, names: string[]) => {
    if (columns.has(field)) return;
    const index = normalized.findIndex((n, i) => !taken.has(i) && n !== '' && names.includes(n));
    if (index >= 0) {
      columns.set(field, index);
      taken.add(index);
    }
  };
  for (const spec of kind.fields) claim(spec.field, [normalizeColumn(spec.field)]);
  for (const spec of kind.fields) claim(spec.field, (spec.synonyms ?? []).map(normalizeColumn));
  const fieldOf = new Map([...columns].map(([field, index]) => [index, field]));
  return {
    columns,
    mapping: header.map((column, i) => ({ column, letter: columnLetter(i + 1), field: fieldOf.get(i) ?? null })),
  };
}

/** A row's cells as the operation's input: empty cells are absent; integers are numbers; lists split on `;`, `|` or `,`. */
function inputOf(kind: ImportKind, mapped: Mapped, cells: string[]): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const spec of kind.fields) {
    const index = mapped.columns.get(spec.field);
    if (index === undefined) continue;
    const text = cells[index] ?? '';
    if (text === '') continue;
    if (spec.type === 'integer' && /^[-+]?\d+$/.test(text)) input[spec.field] = Number(text);
    else if (spec.type === 'list') input[spec.field] = text.split(/[;|,]/).map((s) => s.trim()).filter(Boolean);
    else input[spec.field] = text;
  }
  return input;
}

/** The field an error path names: `varieties[0]` → `varieties`. */
const fieldOfPath = (path: string) => path.split(/[.[]/)[0];

function problemsOf(kind: ImportKind, mapped: Mapped, row: number, problem: ProblemError): RowProblem[] {
  const errors = problem.extensions.errors?.length ? problem.extensions.errors : [{ path: kind.uniqueField, message: problem.message }];
  return errors.map((e) => {
    const field = fieldOfPath(e.path) || kind.uniqueField;
    const index = mapped.columns.get(field);
    return {
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
  /** The rows without a problem, ready to write, in file order. */
  valid: ValidRow<unknown>[];
}

/**
 * Validates every row against the schema and the file's own uniqueness (no database): what each row's input
 * is, or its problems.
 */
export function validateRows(kind: ImportKind, mapped: Mapped, sheet: Sheet): Checked {
  const verdicts: RowVerdict[] = [];
  const valid: ValidRow<unknown>[] = [];
  const seen = new Map<string, number>();
  for (const { row, cells } of sheet.rows) {
    let input: unknown;
    try {
      input = parseInput(kind.schema, inputOf(kind, mapped, cells));
    } catch (error) {
      if (!(error instanceof ProblemError)) throw error;
      verdicts.push({ row, valid: false, creates: null, problems: problemsOf(kind, mapped, row, error) });
      continue;
    }
    const unique = String((input as Record<string, unknown>)[kind.uniqueField]);
    const earlier = seen.get(unique);
    if (earlier !== undefined) {
      const repeat = new ProblemError(409, 'duplicate', `${unique} repeats row ${earlier}.`, { errors: [{ path: kind.uniqueField, message: `repeats row ${earlier} of this file` }] });
      verdicts.push({ row, valid: false, creates: null, problems: problemsOf(kind, mapped, row, repeat) });
      continue;
    }
    seen.set(unique, row);
    verdicts.push({ row, valid: true, creates: unique, problems: [] });
    valid.push({ row, input });
  }
  return { verdicts, valid };
}

/**
 * Adds the owning module's refusals (reads only) of `rows` to their verdicts: a row it refuses becomes
 * invalid with the module's problem, as its create operation would answer it.
 */
export async function addRefusals(q: Queryable, orgId: string, kind: ImportKind, mapped: Mapped, rows: ValidRow<unknown>[], byRow: Map<number, RowVerdict>): Promise<number> {
  const refusals = await kind.refusals(q, orgId, rows);
  for (const { index, problem } of refusals) {
    const verdict = byRow.get(rows[index].row)!;
    verdict.valid = false;
    verdict.creates = null;
    verdict.problems.push(...problemsOf(kind, mapped, rows[index].row, problem));
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
  return { mapping: mapped.mapping, verdicts, rowsValid: writable.length, valid: writable };
}
