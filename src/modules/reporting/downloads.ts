import type { FileFamily } from '../../http/signed-files.js';
import { safeFilename } from '../../http/signed-files.js';
import * as repo from './repository.js';

/**
 * GET /files/v1/reports/{id}.pdf and .csv: a ready report's files for whoever holds a link getDownloadUrl
 * signed, without a credential (src/http/signed-files.ts). A genuine link to a report that is gone or not
 * ready is 404.
 */
export const reportFiles: FileFamily<'pdf' | 'csv'> = {
  base: '/files/v1/reports',
  idPattern: 'rpt_[0-9a-z]{1,60}',
  files: {
    pdf: { purpose: 'report.pdf', contentType: 'application/pdf' },
    csv: { purpose: 'report.csv', contentType: 'text/csv; charset=utf-8' },
  },
  async locate(db, orgId, reportId, extension) {
    const report = await db.transaction((tx) => repo.findReport(tx, orgId, reportId), { orgId, readOnly: true });
    if (!report || report.status !== 'ready' || !report.stored) return null;
    return { key: extension === 'pdf' ? report.stored.pdfKey : report.stored.csvKey, filename: downloadFilename(report, extension) };
  },
  gone: 'This report is no longer available.',
  doc: {
    operationId: 'reporting.downloadReportFile',
    summary: 'A ready report’s PDF or CSV, through a signed link from reporting.getDownloadUrl; no credential.',
    file: '`<report id>.pdf` or `<report id>.csv`.',
    issuer: 'getDownloadUrl',
  },
};

/** `<title>-<id>.pdf`, in characters every browser and file system takes. */
export const downloadFilename = (report: { id: string; title: string }, extension: 'pdf' | 'csv') =>
  safeFilename(report.title, report.id, extension, 'report');
