import type { Queryable } from '../../db/client.js';
import { SqlParams, iso } from '../../db/sql.js';
import { newId } from '../../lib/ids.js';
import { decodeCursor, pageOf, type Page } from '../../db/paging.js';
import type { ReportFilterInput, ReportKind } from './schemas.js';

interface ReportRow {
  id: string;
  kind: ReportKind;
  title: string;
  parameters: Record<string, unknown>;
  status: 'queued' | 'rendering' | 'ready' | 'failed';
  failure_reason: string | null;
  summary: Record<string, unknown> | null;
  pdf_key: string | null;
  pdf_bytes: number | null;
  csv_key: string | null;
  csv_bytes: number | null;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  updated_at: Date;
}

const toReport = (r: ReportRow) => ({
  id: r.id,
  kind: r.kind,
  title: r.title,
  parameters: r.parameters,
  status: r.status,
  failureReason: r.failure_reason,
  summary: r.summary,
  files: r.status === 'ready' ? { pdfBytes: r.pdf_bytes ?? 0, csvBytes: r.csv_bytes ?? 0 } : null,
  createdAt: iso(r.created_at)!,
  startedAt: iso(r.started_at),
  completedAt: iso(r.completed_at),
  updatedAt: iso(r.updated_at)!,
});

export type Report = ReturnType<typeof toReport>;

/** Where a ready report's files are in the blob store. */
export interface StoredFiles {
  pdfKey: string;
  csvKey: string;
}

export async function insertReport(
  q: Queryable,
  orgId: string,
  credentialId: string,
  report: { kind: ReportKind; title: string; parameters: Record<string, unknown> },
): Promise<Report> {
  const [row] = await q.query<ReportRow>(
    `insert into reports (org_id, id, kind, title, parameters, credential_id) values ($1, $2, $3, $4, $5, $6) returning *`,
    [orgId, newId('rpt'), report.kind, report.title, JSON.stringify(report.parameters), credentialId],
  );
  return toReport(row);
}

export async function findReport(q: Queryable, orgId: string, id: string): Promise<(Report & { stored: StoredFiles | null }) | undefined> {
  const [row] = await q.query<ReportRow>(`select * from reports where org_id = $1 and id = $2`, [orgId, id]);
  return row && { ...toReport(row), stored: row.pdf_key && row.csv_key ? { pdfKey: row.pdf_key, csvKey: row.csv_key } : null };
}

/**
 * Claims a report for rendering: queued (or rendering, when a retry takes over an attempt that died) becomes
 * rendering. Undefined when there is nothing to render (ready, failed, or no such report).
 */
export async function startRendering(q: Queryable, orgId: string, id: string): Promise<Report | undefined> {
  const [row] = await q.query<ReportRow>(
    `update reports set status = 'rendering', started_at = coalesce(started_at, now()), updated_at = now()
     where org_id = $1 and id = $2 and status in ('queued', 'rendering') returning *`,
    [orgId, id],
  );
  return row && toReport(row);
}

export async function markReady(
  q: Queryable,
  orgId: string,
  id: string,
  files: { pdfKey: string; pdfBytes: number; csvKey: string; csvBytes: number; summary: Record<string, unknown> },
): Promise<void> {
  await q.query(
    `update reports set status = 'ready', pdf_key = $3, pdf_bytes = $4, csv_key = $5, csv_bytes = $6, summary = $7,
            completed_at = now(), updated_at = now()
     where org_id = $1 and id = $2 and status = 'rendering'`,
    [orgId, id, files.pdfKey, files.pdfBytes, files.csvKey, files.csvBytes, JSON.stringify(files.summary)],
  );
}

export async function markFailed(q: Queryable, orgId: string, id: string, reason: string): Promise<void> {
  await q.query(
    `update reports set status = 'failed', failure_reason = $3, completed_at = now(), updated_at = now()
     where org_id = $1 and id = $2 and status in ('queued', 'rendering')`,
    [orgId, id, reason.slice(0, 2000)],
  );
}

export async function listReports(q: Queryable, orgId: string, filter: ReportFilterInput, page: Page) {
  const params = new SqlParams();
  const where = [`org_id = ${params.add(orgId)}`];
  if (filter.kind) where.push(`kind = ${params.add(filter.kind)}`);
  if (filter.status) where.push(`status = ${params.add(filter.status)}`);
  if (filter.createdFrom) where.push(`created_at >= ${params.add(filter.createdFrom)}::date`);
  if (filter.createdTo) where.push(`created_at < ${params.add(filter.createdTo)}::date + 1`);
  const after = decodeCursor(page.cursor, 'reports', ['timestamp', 'id']);
  if (after) where.push(`(created_at, id) < (${params.add(String(after[0]))}::timestamptz, ${params.add(String(after[1]))})`);
  const rows = await q.query<ReportRow>(
    `select * from reports where ${where.join(' and ')} order by created_at desc, id desc limit ${params.add(page.limit + 1)}`,
    params.values,
  );
  return pageOf(rows.map(toReport), page.limit, 'reports', (r) => [r.createdAt, r.id]);
}

