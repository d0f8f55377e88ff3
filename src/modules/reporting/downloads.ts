import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { BlobStore } from '../../blobs/store.js';
import type { Database } from '../../db/client.js';
import { anonymousByAddress, guardChain, noGrant } from '../../http/guards.js';
import { sendProblem, toProblem } from '../../http/problems.js';
import { linkInvalid, verifyLink } from '../../http/signed-links.js';
import type { RateLimiter, RateWindow } from '../../ratelimit/limiter.js';
import { ProblemError } from '../../rpc/errors.js';
import * as repo from './repository.js';

/**
 * GET /files/v1/reports/{id}.pdf and .csv: a ready report's files for whoever holds a link getDownloadUrl
 * signed, without a credential. The guard chain takes the caller as anonymous, counted per client address;
 * the link's signature is the only key (403 link_invalid when altered, 410 link_expired after expiry). A
 * genuine link to a report that is gone or not ready is 404.
 */

export const DOWNLOAD_PURPOSE = { pdf: 'report.pdf', csv: 'report.csv' } as const;
export const downloadPath = (reportId: string, extension: 'pdf' | 'csv') => `/files/v1/reports/${reportId}.${extension}`;

/** `<title>-<id>.pdf`, in characters every browser and file system takes. */
export const downloadFilename = (report: { id: string; title: string }, extension: 'pdf' | 'csv') =>
  `${report.title.normalize('NFKD').replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 80) || 'report'}-${report.id}.${extension}`;

/** Per client address: a person downloading is far below this; a crawler guessing links is not. */
export const DOWNLOAD_WINDOWS: RateWindow[] = [
  { name: 'burst', points: 60, seconds: 10 },
  { name: 'sustained', points: 300, seconds: 60 },
];

const FILE = /^(rpt_[0-9a-z]{1,60})\.(pdf|csv)$/;

type DownloadRequest = FastifyRequest<{ Params: { file: string }; Querystring: Record<string, unknown> }>;

export function reportDownloads(db: Database, blobs: BlobStore, options: { limiter: RateLimiter }) {
  const admit = guardChain({ authenticate: anonymousByAddress, limiter: options.limiter, grant: noGrant });
  return async (app: FastifyInstance) => {
    await app.register(async (files) => {
      files.addHook('onRequest', async (_request, reply) => void reply.headers({ 'Referrer-Policy': 'no-referrer', 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'private, no-store' }));
      files.addHook('onRequest', async (request, reply) => void (await admit(request, reply)));
      files.setErrorHandler((error: unknown, request, reply) => {
        const problem = toProblem(error);
        if (problem.status >= 500) request.log.error({ err: error }, 'report download failed');
        sendProblem(reply, problem);
      });

      files.get('/files/v1/reports/:file', async (request: DownloadRequest, reply) => {
        const match = FILE.exec(request.params.file);
        if (!match) throw linkInvalid();
        const [, reportId, extension] = match as unknown as [string, string, 'pdf' | 'csv'];
        const { orgId } = await verifyLink(db, { purpose: DOWNLOAD_PURPOSE[extension], resourceId: reportId }, request.query ?? {});
        const report = await db.transaction((tx) => repo.findReport(tx, orgId, reportId), { orgId, readOnly: true });
        if (!report || report.status !== 'ready' || !report.stored) throw new ProblemError(404, 'not_found', 'This report is no longer available.');
        const body = await blobs.get(extension === 'pdf' ? report.stored.pdfKey : report.stored.csvKey);
        if (!body) throw new ProblemError(404, 'not_found', 'This report is no longer available.');
        return reply
          .type(extension === 'pdf' ? 'application/pdf' : 'text/csv; charset=utf-8')
          .header('Content-Disposition', `attachment; filename="${downloadFilename(report, extension)}"`)
          .send(body);
      });
    });
  };
}

/** The download route in the OpenAPI document (written beside it, as it is not an RPC operation). */
export function reportDownloadsOpenApiPaths(): Record<string, unknown> {
  const budget = DOWNLOAD_WINDOWS.map((w) => `${w.points} per ${w.seconds} s`).join(' and ');
  const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: { type: 'object' } } } });
  const query = (name: string, description: string) => ({ name, in: 'query', required: true, schema: { type: 'string' }, description });
  return {
    '/files/v1/reports/{file}': {
      get: {
        tags: ['public files'],
        operationId: 'reporting.downloadReportFile',
        security: [],
        summary: 'A ready report’s PDF or CSV, through a signed link from reporting.getDownloadUrl; no credential.',
        description:
          'The link is the only key: its query carries the organization, the expiry (Unix seconds), the signing key version and an ' +
          'HMAC-SHA256 over the file kind, report id, organization and expiry. Altered in any part: 403 link_invalid. Past its expiry: ' +
          `410 link_expired. Counted per client address (${budget}), with the same RateLimit headers as the API. Never cached.`,
        parameters: [
          { name: 'file', in: 'path', required: true, schema: { type: 'string', pattern: FILE.source }, description: '`<report id>.pdf` or `<report id>.csv`.' },
          query('org', 'The organization the link was issued for.'),
          query('expires', 'Unix seconds after which the link answers 410.'),
          query('v', 'The signing key version.'),
          query('sig', 'The signature, base64url.'),
        ],
        responses: {
          '200': {
            description: 'The file, as an attachment.',
            content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } }, 'text/csv': { schema: { type: 'string' } } },
          },
          '403': problem('link_invalid: the link was altered or not issued by this service.'),
          '404': problem('not_found: the report is no longer available.'),
          '410': problem('link_expired: the link has expired; ask getDownloadUrl for a new one.'),
          '429': problem(`rate_limited: more than ${budget} from this client address; see Retry-After.`),
        },
      },
    },
  };
}
