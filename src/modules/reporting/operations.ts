import { defineOperation } from '../../rpc/define.js';
import { conflict, throwNotFound } from '../../rpc/errors.js';
import { pageOut } from '../../rpc/outputs.js';
import { MAX_LINK_SECONDS, issueFileLink, linkExpiry } from '../../http/signed-files.js';
import { KINDS } from './kinds.js';
import { renderReportJob } from './render.js';
import { downloadFilename, reportFiles } from './downloads.js';
import * as repo from './repository.js';
import { ById, DownloadLinks, GenerateReport, GetDownloadUrl, ListReports, Report, type ReportKind } from './schemas.js';

const feature = 'core' as const;

const PARAMETERS_DOC =
  'Parameters per kind (an unknown or malformed one is a 400 naming `parameters.<field>`): ' +
  '`traceability_certificate`: `certificateId`, or `roastedLotId` and/or `orderLineId` (the newest certificate issued for them; ' +
  'issue one with traceability.issueCertificate first), and optionally `publicBaseUrl` (the service’s public address, for the QR code); ' +
  '`inventory_valuation`: `asOf` (a date: the end of that UTC day; or an instant; default now; never in the future) and ' +
  '`locationIds`; `production_summary`: `from`*, `to`* (UTC days, inclusive), `locationId`; `quality_summary`: `from`*, `to`*; ' +
  '`cafe_performance`: `from`*, `to`*, `siteIds`. A named record that does not exist in this organization is a 404 naming the parameter.';

export const reportingOperations = [
  defineOperation({
    name: 'reporting.generateReport',
    summary: 'Ask for a report; it answers at once (status queued) and renders in the background as PDF and CSV.',
    description:
      'The report row exists when this answers; the job renders it from one consistent snapshot of the data (one ' +
      'repeatable-read transaction) and its status goes queued → rendering → ready, or failed with a reason a person can act on. ' +
      'Poll getReport, then ask getDownloadUrl. `title` defaults to the kind’s name (and range). ' +
      PARAMETERS_DOC +
      ' quality_summary reads finalized cupping results, gradings and quarantines through the quality and green modules; cafe_performance reads the cafe module’s hourly rollups.',
    permission: 'reporting.read',
    feature,
    get: false,
    // A report reads a snapshot of the organization's data and renders a PDF: it weighs as ten calls.
    cost: 10,
    input: GenerateReport,
    output: Report,
    errors: ['not_found'],
    async handler(ctx, input) {
      const kind = input.kind as ReportKind;
      const now = new Date();
      const definition = KINDS[kind] as (typeof KINDS)['inventory_valuation'];
      const parameters = input.parameters as never;
      const stored = await definition.prepare(ctx.tx, ctx.orgId, parameters, now);
      const title = input.title ?? definition.defaultTitle(parameters, now);
      const report = await repo.insertReport(ctx.tx, ctx.orgId, ctx.principal.credentialId, { kind, title, parameters: stored });
      await ctx.enqueue(renderReportJob, { orgId: ctx.orgId, reportId: report.id });
      return report;
    },
  }),

  defineOperation({
    name: 'reporting.getReport',
    summary: 'A report and its status; poll until it is ready.',
    description: 'Answers the status (queued, rendering, ready, failed), the failure reason, the totals (`summary`) and file sizes once ready. Another organization’s report is a 404 exactly like a missing one.',
    permission: 'reporting.read',
    feature,
    get: false,
    input: ById,
    output: Report,
    errors: ['not_found'],
    async handler(ctx, { id }) {
      const found = (await repo.findReport(ctx.tx, ctx.orgId, id)) ?? throwNotFound('report', id);
      const { stored: _files, ...report } = found;
      return report;
    },
  }),

  defineOperation({
    name: 'reporting.listReports',
    summary: 'Reports, newest first.',
    description: 'Filters: `kind`, `status`, `createdFrom` and `createdTo` (UTC days the report was asked for, inclusive). Cursor paging.',
    permission: 'reporting.read',
    feature,
    get: true,
    input: ListReports,
    output: pageOut(Report),
    errors: ['invalid_cursor'],
    async handler(ctx, { filter, page }) {
      return repo.listReports(ctx.tx, ctx.orgId, filter, page);
    },
  }),

  defineOperation({
    name: 'reporting.getDownloadUrl',
    summary: 'Time-limited links to a ready report’s PDF and CSV that work without an API key.',
    description:
      `\`expiresInSeconds\`: default 900, at most ${MAX_LINK_SECONDS} (7 days). Without S3 the links are the service’s own, relative ` +
      'to its address (GET /files/v1/reports/{id}.pdf and .csv), signed with HMAC-SHA256 over the report id, the organization and the ' +
      'expiry: after expiry they answer 410 link_expired, and an altered link answers 403 link_invalid. With S3_BUCKET set they are ' +
      'S3 presigned URLs with the same lifetime. A report that is not ready is 409 report_not_ready (naming its status); another ' +
      'organization’s report is a 404.',
    permission: 'reporting.read',
    feature,
    get: false,
    input: GetDownloadUrl,
    output: DownloadLinks,
    errors: ['not_found', 'report_not_ready'],
    async handler(ctx, { id, expiresInSeconds }) {
      const report = (await repo.findReport(ctx.tx, ctx.orgId, id)) ?? throwNotFound('report', id);
      if (report.status !== 'ready' || !report.stored) {
        throw conflict('report_not_ready', `Report ${id} is ${report.status}${report.failureReason ? `: ${report.failureReason}` : ''}; only a ready report can be downloaded.`, {
          status: report.status,
        });
      }
      const expiry = linkExpiry(expiresInSeconds);
      const link = (extension: 'pdf' | 'csv', key: string) =>
        issueFileLink(ctx, reportFiles, { id, extension, key, filename: downloadFilename(report, extension) }, expiry);
      const [pdf, csv] = [await link('pdf', report.stored.pdfKey), await link('csv', report.stored.csvKey)];
      return { reportId: id, expiresAt: expiry.expiresAt, signedBy: pdf.signedBy, pdfUrl: pdf.url, csvUrl: csv.url };
    },
  }),
];

