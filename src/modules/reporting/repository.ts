import type { Queryable } from '../../db/client.js';
import type { StalledWork } from '../../jobs/leases.js';
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
 * Claims a report for rendering under a lease: queued, or rendering whose lease ran out (the attempt holding
 * it died), becomes rendering, held by `token` for `leaseSeconds`. Undefined when there is nothing to
 * render (ready, failed, no such report) or another attempt holds a live lease.
 */
export async function startRendering(q: Queryable, orgId: string, id: string, token: string, leaseSeconds: number): Promise<Report | undefined> {
  const [row] = await q.query<ReportRow>(
    `update reports set status = 'rendering', started_at = coalesce(started_at, now()), updated_at = now(),
            lease_token = $3, lease_expires_at = now() + make_interval(secs => $4), attempts = attempts + 1
     where org_id = $1 and id = $2
       and (status = 'queued' or (status = 'rendering' and (lease_expires_at is null or lease_expires_at <= now())))
     returning *`,
    [orgId, id, token, leaseSeconds],
  );
  return row && toReport(row);
}

/** Extends the lease while the attempt holding `token` still holds it; answers whether it did. */
export async function renewLease(q: Queryable, orgId: string, id: string, token: string, leaseSeconds: number): Promise<boolean> {
  const rows = await q.query(
    `update reports set lease_expires_at = now() + make_interval(secs => $4)
     where org_id = $1 and id = $2 and status = 'rendering' and lease_token = $3 returning id`,
    [orgId, id, token, leaseSeconds],
  );
  return rows.length === 1;
}

/** Marks the report ready, only for the attempt holding its lease: one attempt's files are the report's. */
export async function markReady(
  q: Queryable,
  orgId: string,
  id: string,
  token: string,
  files: { pdfKey: string; pdfBytes: number; csvKey: string; csvBytes: number; summary: Record<string, unknown> },
): Promise<boolean> {
  const rows = await q.query(
    `update reports set status = 'ready', pdf_key = $4, pdf_bytes = $5, csv_key = $6, csv_bytes = $7, summary = $8,
            completed_at = now(), updated_at = now(), lease_token = null, lease_expires_at = null
     where org_id = $1 and id = $2 and status = 'rendering' and lease_token = $3 returning id`,
    [orgId, id, token, files.pdfKey, files.pdfBytes, files.csvKey, files.csvBytes, JSON.stringify(files.summary)],
  );
  return rows.length === 1;
}

/**
 * Across organizations (the owner's connection): reports whose render may not happen by itself. Rendering
 * ones whose lease ran out (the worker died mid-render), and queued ones untouched for `queuedForSeconds`
 * (the caller checks whether a render job is still coming for them). Locked for the caller's transaction;
 * one sweeper takes each.
 */
export async function findStalled(q: Queryable, queuedForSeconds: number, limit: number): Promise<StalledWork[]> {
  const rows = await q.query<{ org_id: string; id: string; attempts: number; status: string }>(
    `select org_id, id, attempts, status from reports
     where (status = 'rendering' and (lease_expires_at is null or lease_expires_at <= now()))
        or (status = 'queued' and updated_at < now() - make_interval(secs => $1))
     order by updated_at limit $2 for update skip locked`,
    [queuedForSeconds, limit],
  );
  return rows.map((r) => ({ orgId: r.org_id, id: r.id, attempts: r.attempts, queued: r.status === 'queued' }));
}

/** Puts a stalled report back in the queue (its render job is sent in the same transaction). */
export async function requeue(q: Queryable, orgId: string, id: string): Promise<void> {
  await q.query(
    `update reports set status = 'queued', lease_token = null, lease_expires_at = null, updated_at = now()
     where org_id = $1 and id = $2 and status in ('queued', 'rendering')`,
    [orgId, id],
  );
}

export async function markFailed(q: Queryable, orgId: string, id: string, reason: string): Promise<void> {
  await q.query(
    `update reports set status = 'failed', failure_reason = $3, completed_at = now(), updated_at = now(), lease_token = null, lease_expires_at = null
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

