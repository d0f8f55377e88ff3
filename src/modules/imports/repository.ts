import type { Queryable } from '../../db/client.js';
import { iso } from '../../db/sql.js';
import { newId } from '../../lib/ids.js';
import type { ColumnMapping, RowProblem } from './check.js';
import type { ImportFormat } from './schemas.js';

interface ImportRow {
  id: string;
  kind: string;
  format: ImportFormat;
  file_name: string | null;
  file_key: string;
  file_hash: string;
  caller_key: string | null;
  status: 'queued' | 'checking' | 'writing' | 'applied' | 'refused' | 'failed';
  rows_total: number | null;
  rows_checked: number;
  created_count: number;
  problem_count: number;
  problems: (RowProblem & { row: number })[];
  mapping: ColumnMapping[] | null;
  failure_reason: string | null;
  credential_id: string;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  updated_at: Date;
}

const toImport = (r: ImportRow) => ({
  id: r.id,
  kind: r.kind,
  format: r.format,
  fileName: r.file_name,
  fileHash: r.file_hash,
  key: r.caller_key,
  status: r.status,
  rowsTotal: r.rows_total,
  rowsChecked: r.rows_checked,
  created: r.created_count,
  problemCount: r.problem_count,
  problems: r.problems,
  mapping: r.mapping,
  failureReason: r.failure_reason,
  createdAt: iso(r.created_at)!,
  startedAt: iso(r.started_at),
  completedAt: iso(r.completed_at),
  updatedAt: iso(r.updated_at)!,
});

export type ImportRecord = ReturnType<typeof toImport> & { fileKey: string; credentialId: string };
const record = (r: ImportRow): ImportRecord => ({ ...toImport(r), fileKey: r.file_key, credentialId: r.credential_id });

/** The answer's fields only. */
export const publicImport = ({ fileKey: _k, credentialId: _c, ...rest }: ImportRecord) => rest;

export const newImportId = () => newId('imp');

/**
 * Inserts the import unless one with the same key stands for this kind (not refused or failed): answers the
 * new one, or the standing one with `existing` true.
 */
export async function insertImport(
  q: Queryable,
  orgId: string,
  values: { id: string; kind: string; format: ImportFormat; fileName: string | null; fileKey: string; fileHash: string; callerKey: string | null; credentialId: string },
): Promise<{ record: ImportRecord; existing: boolean }> {
  const dedupeKey = values.callerKey ?? `sha256:${values.fileHash}`;
  const inserted = await q.query<ImportRow>(
    `insert into imports (org_id, id, kind, format, file_name, file_key, file_hash, dedupe_key, caller_key, credential_id)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     on conflict (org_id, kind, dedupe_key) where status not in ('refused', 'failed') do nothing returning *`,
    [orgId, values.id, values.kind, values.format, values.fileName, values.fileKey, values.fileHash, dedupeKey, values.callerKey, values.credentialId],
  );
  if (inserted.length === 1) return { record: record(inserted[0]), existing: false };
  const [standing] = await q.query<ImportRow>(
    `select * from imports where org_id = $1 and kind = $2 and dedupe_key = $3 and status not in ('refused', 'failed')`,
    [orgId, values.kind, dedupeKey],
  );
  return { record: record(standing), existing: true };
}

export async function findImport(q: Queryable, orgId: string, id: string, kind?: string): Promise<ImportRecord | undefined> {
  const [row] = await q.query<ImportRow>(`select * from imports where org_id = $1 and id = $2 and ($3::text is null or kind = $3)`, [orgId, id, kind ?? null]);
  return row ? record(row) : undefined;
}

/** queued → checking, once: undefined when another run has it already (or it is done). */
export async function startChecking(q: Queryable, orgId: string, id: string): Promise<ImportRecord | undefined> {
  const [row] = await q.query<ImportRow>(
    `update imports set status = 'checking', started_at = now(), updated_at = now() where org_id = $1 and id = $2 and status in ('queued', 'checking') returning *`,
    [orgId, id],
  );
  return row ? record(row) : undefined;
}

export async function recordProgress(q: Queryable, orgId: string, id: string, progress: { rowsTotal: number; rowsChecked: number; mapping?: ColumnMapping[] }): Promise<void> {
  await q.query(
    `update imports set rows_total = $3, rows_checked = $4, mapping = coalesce($5::jsonb, mapping), updated_at = now() where org_id = $1 and id = $2`,
    [orgId, id, progress.rowsTotal, progress.rowsChecked, progress.mapping ? JSON.stringify(progress.mapping) : null],
  );
}

export async function markWriting(q: Queryable, orgId: string, id: string): Promise<void> {
  await q.query(`update imports set status = 'writing', updated_at = now() where org_id = $1 and id = $2`, [orgId, id]);
}

export async function markApplied(q: Queryable, orgId: string, id: string, created: number): Promise<void> {
  await q.query(
    `update imports set status = 'applied', created_count = $3, completed_at = now(), updated_at = now() where org_id = $1 and id = $2`,
    [orgId, id, created],
  );
}

export async function markRefused(q: Queryable, orgId: string, id: string, problems: (RowProblem & { row: number })[], problemCount: number): Promise<void> {
  await q.query(
    `update imports set status = 'refused', problems = $3, problem_count = $4, completed_at = now(), updated_at = now() where org_id = $1 and id = $2`,
    [orgId, id, JSON.stringify(problems), problemCount],
  );
}

export async function markFailed(q: Queryable, orgId: string, id: string, reason: string): Promise<void> {
  await q.query(
    `update imports set status = 'failed', failure_reason = $3, completed_at = now(), updated_at = now() where org_id = $1 and id = $2`,
    [orgId, id, reason],
  );
}
