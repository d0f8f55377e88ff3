import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { findOrganizationLetterhead } from '../../auth/organizations.js';
import { defineJob, type JobContext } from '../../jobs/define.js';
import { keepRenewing, sweepStalledWork } from '../../jobs/leases.js';
import { offThread } from '../../lib/off-thread.js';
import type { ReportDocument } from './document.js';
import { KINDS } from './kinds.js';
import * as repo from './repository.js';
import type renderTask from './render-task.js';

/** Where a report's files live in the blob store. */
export const reportKey = (orgId: string, reportId: string, extension: 'pdf' | 'csv') => `reports/${orgId}/${reportId}.${extension}`;

const RETRIES = 2;
/**
 * A render holds its report under a lease of LEASE_SECONDS, renewed every RENEW_SECONDS while it runs: a
 * worker that dies mid-render holds it at most that long. The sweeper (every minute) queues such a report
 * again, up to MAX_ATTEMPTS renders started in all, then fails it: a report is never left rendering.
 */
export const LEASE_SECONDS = 120;
const RENEW_SECONDS = 30;
export const MAX_ATTEMPTS = 3;
/** A queued report is looked at by the sweeper only after this long without a render job (the job is sent in its transaction). */
const QUEUED_GRACE_SECONDS = 120;

/** The PDF and CSV, rendered on a worker thread: a PDF takes tens of milliseconds of CPU, which on the event loop would stall the API's requests. */
const renderFiles = offThread<ReportDocument, Awaited<ReturnType<typeof renderTask>>>(import.meta.url, './render-task');
const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/**
 * Renders one report: claims it (queued → rendering), gathers its figures in ONE repeatable-read, read-only
 * transaction (so a report rendered while stock moves still adds up), writes the PDF and CSV to the blob
 * store, then marks it ready. A failure is retried; after the last retry the report is marked failed with
 * the reason. Report jobs run one at a time per worker process (concurrency 1), so rendering never takes
 * more than one connection and one core's share from the API.
 */
const RenderPayload = z.object({ orgId: z.string(), reportId: z.string() }).strict();

export const renderReportJob = defineJob({
  summary: 'Renders a report (PDF and CSV) from one consistent snapshot and stores it in the blob store.',
  payload: RenderPayload,
  retry: { limit: RETRIES, delaySeconds: 10, backoff: true },
  timeoutSeconds: 15 * 60,
  concurrency: 1,
  handler: renderReport,
});

export async function renderReport(ctx: JobContext, { orgId, reportId }: { orgId: string; reportId: string }): Promise<void> {
  const db = ctx.databases.service;
  const token = randomUUID();
  const report = await db.transaction((tx) => repo.startRendering(tx, orgId, reportId, token, LEASE_SECONDS), { orgId });
  if (!report) return; // already rendered, failed, gone, or rendering under another attempt's live lease: nothing to do
  const stopRenewing = keepRenewing(() => db.transaction((tx) => repo.renewLease(tx, orgId, reportId, token, LEASE_SECONDS), { orgId }), RENEW_SECONDS, ctx.log, { reportId });
  try {
    const kind = KINDS[report.kind];
    const { gathered, letterhead } = await db.transaction(
      async (tx) => {
        // One core for the report's scans: parallel workers would take the cores the API's requests need.
        await tx.query(`set local max_parallel_workers_per_gather = 0`);
        const letterhead = await findOrganizationLetterhead(tx, orgId);
        return {
          letterhead,
          gathered: await kind.gather(tx, orgId, report.parameters, {
            reportId,
            title: report.title,
            organizationName: letterhead.name,
            generatedAt: report.createdAt,
            timeZone: letterhead.timeZone,
          }),
        };
      },
      { orgId, snapshot: true },
    );
    const document = { ...gathered, reportId, title: report.title, organizationName: letterhead.name, timeZone: letterhead.timeZone, generatedAt: new Date().toISOString() };
    const { written, ...csvRows } = document.csv;
    const files = await renderFiles({ ...document, csv: csvRows });
    const [pdf, csv] = [asBuffer(files.pdf), written ? Buffer.concat([asBuffer(files.csv), ...written]) : asBuffer(files.csv)];
    const pdfKey = reportKey(orgId, reportId, 'pdf');
    const csvKey = reportKey(orgId, reportId, 'csv');
    await ctx.blobs.put(pdfKey, pdf, 'application/pdf');
    await ctx.blobs.put(csvKey, csv, 'text/csv; charset=utf-8');
    await db.transaction((tx) => repo.markReady(tx, orgId, reportId, token, { pdfKey, pdfBytes: pdf.length, csvKey, csvBytes: csv.length, summary: document.summary }), { orgId });
  } catch (error) {
    if (ctx.retryCount < RETRIES) {
      // The retry takes the report at once; were the database away, the lease runs out and the sweeper takes it.
      await db.transaction((tx) => repo.renewLease(tx, orgId, reportId, token, 0), { orgId }).catch(() => {});
      throw error;
    }
    const message = error instanceof Error ? error.message : String(error);
    await db.transaction(
      (tx) => repo.markFailed(tx, orgId, reportId, `Rendering failed after ${RETRIES + 1} attempts (${message}). Generate the report again; if it fails again, narrow its parameters or contact support with the report id.`),
      { orgId },
    );
    ctx.log.error({ err: error, reportId }, 'report failed');
  } finally {
    stopRenewing();
  }
}

/**
 * Every minute, across organizations: reports whose render stalled (see repo.findStalled) are queued again
 * with a new render job, in one transaction, or failed once MAX_ATTEMPTS renders have started. Idempotent:
 * overlapping runs take disjoint reports (SKIP LOCKED), and a report requeued is no longer stalled.
 */
export const sweepReportsJob = defineJob({
  summary: 'Queues again the reports whose render stalled (a worker died mid-render, or its job was spent), or fails them after 3 attempts.',
  payload: z.object({}).strict(),
  retry: { limit: 2, delaySeconds: 30, backoff: true },
  timeoutSeconds: 5 * 60,
  schedule: { cron: '* * * * *', payload: {} },
  handler: async (ctx) => void (await sweepReports(ctx)),
});

export function sweepReports(ctx: JobContext): Promise<{ requeued: number; failed: number }> {
  return sweepStalledWork(ctx, {
    job: 'render-report',
    payloadKey: 'reportId',
    find: (tx, limit) => repo.findStalled(tx, QUEUED_GRACE_SECONDS, limit),
    maxAttempts: MAX_ATTEMPTS,
    async requeue(tx, report) {
      await repo.requeue(tx, report.orgId, report.id);
      await ctx.jobs.sendJob(tx, renderReportJob, { orgId: report.orgId, reportId: report.id });
    },
    fail: (tx, report) =>
      repo.markFailed(
        tx,
        report.orgId,
        report.id,
        `Rendering stopped ${report.attempts} times without finishing (the worker rendering it stopped). Generate the report again; if it fails again, narrow its parameters or contact support with the report id.`,
      ),
  });
}
