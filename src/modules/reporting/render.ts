import { z } from 'zod';
import { findOrganizationLetterhead } from '../../auth/organizations.js';
import { defineJob, type JobContext } from '../../jobs/define.js';
import { offThread } from '../../lib/off-thread.js';
import type { ReportDocument } from './document.js';
import { KINDS } from './kinds.js';
import * as repo from './repository.js';
import type renderTask from './render-task.js';

/** Where a report's files live in the blob store. */
export const reportKey = (orgId: string, reportId: string, extension: 'pdf' | 'csv') => `reports/${orgId}/${reportId}.${extension}`;

const RETRIES = 2;

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
  const report = await db.transaction((tx) => repo.startRendering(tx, orgId, reportId), { orgId });
  if (!report) return; // already rendered, failed, or gone: nothing to do
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
    const files = await renderFiles(document);
    const [pdf, csv] = [asBuffer(files.pdf), asBuffer(files.csv)];
    const pdfKey = reportKey(orgId, reportId, 'pdf');
    const csvKey = reportKey(orgId, reportId, 'csv');
    await ctx.blobs.put(pdfKey, pdf, 'application/pdf');
    await ctx.blobs.put(csvKey, csv, 'text/csv; charset=utf-8');
    await db.transaction((tx) => repo.markReady(tx, orgId, reportId, { pdfKey, pdfBytes: pdf.length, csvKey, csvBytes: csv.length, summary: document.summary }), { orgId });
  } catch (error) {
    if (ctx.retryCount < RETRIES) throw error;
    const message = error instanceof Error ? error.message : String(error);
    await db.transaction(
      (tx) => repo.markFailed(tx, orgId, reportId, `Rendering failed after ${RETRIES + 1} attempts (${message}). Generate the report again; if it fails again, narrow its parameters or contact support with the report id.`),
      { orgId },
    );
    ctx.log.error({ err: error, reportId }, 'report failed');
  }
}
