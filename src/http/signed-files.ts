import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { BlobStore } from '../blobs/store.js';
import type { Database, Queryable } from '../db/client.js';
import type { RateLimiter, RateWindow } from '../ratelimit/limiter.js';
import { ProblemError } from '../rpc/errors.js';
import { anonymousByAddress, guardChain, noGrant } from './guards.js';
import { sendProblem, toProblem } from './problems.js';
import { linkInvalid, signLink, verifyLink } from './signed-links.js';

/**
 * Stored files handed out through links that work without a credential until they expire (reports' PDF and CSV,
 * roast curves and their exports). An operation issues the link (issueFileLink): with a store that can sign
 * (S3) a presigned URL the store serves itself, else the service's own `GET <base>/<id>.<extension>` signed by
 * signLink, which fileRoutes serves. The guard chain takes the caller as anonymous, counted per client address;
 * the link's signature is the only key (403 link_invalid when altered, 410 link_expired after expiry). A
 * genuine link to a file that is gone is 404.
 */
export interface FileFamily<E extends string = string> {
  /** The route's path before the file name, e.g. `/files/v1/reports`. */
  base: string;
  /** The ids the family serves, as a regular expression source. */
  idPattern: string;
  /** Per extension: what a link for it signs (a link for one purpose never opens another) and its media type. */
  files: Record<E, { purpose: string; contentType: string }>;
  /** The stored object behind a genuine link and the name it is saved as; null when it is gone. */
  locate(db: Database, orgId: string, id: string, extension: E): Promise<{ key: string; filename: string } | null>;
  /** The 404's detail. */
  gone: string;
  /** The OpenAPI entry: operationId, summary, what `file` names, the operation issuing links. */
  doc: { operationId: string; summary: string; file: string; issuer: string };
}

/** A signed link lives 15 minutes unless asked otherwise, at most 7 days (also S3's limit for a presigned URL). */
export const DEFAULT_LINK_SECONDS = 900;
export const MAX_LINK_SECONDS = 7 * 24 * 3600;
/** The `expiresInSeconds` input of an operation issuing links. */
export const linkLifetime = z.number().int().min(1).max(MAX_LINK_SECONDS).default(DEFAULT_LINK_SECONDS);

/** Per client address: a person downloading is far below this; a crawler guessing links is not. */
export const FILE_LINK_WINDOWS: RateWindow[] = [
  { name: 'burst', points: 60, seconds: 10 },
  { name: 'sustained', points: 300, seconds: 60 },
];

/** `<name>-<id>.<extension>`, in characters every browser and file system takes. */
export const safeFilename = (name: string, id: string, extension: string, fallback = 'file') =>
  `${name.normalize('NFKD').replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 80) || fallback}-${id}.${extension}`;

export interface IssuedLink {
  url: string;
  /** `service`: the service's own signed link, relative to its address; `s3`: an absolute S3 presigned URL. */
  signedBy: 'service' | 's3';
}

/** When links asked for now with this lifetime expire: Unix seconds, and as an ISO instant. */
export function linkExpiry(expiresInSeconds: number, now = Date.now()) {
  const expires = Math.floor(now / 1000) + expiresInSeconds;
  return { expiresInSeconds, expires, expiresAt: new Date(expires * 1000).toISOString() };
}

/** A link to one stored file of `family`, valid until `expiry`. */
export async function issueFileLink<E extends string>(
  ctx: { tx: Queryable; orgId: string; services: { blobs: BlobStore } },
  family: FileFamily<E>,
  file: { id: string; extension: E; key: string; filename: string },
  expiry: ReturnType<typeof linkExpiry>,
): Promise<IssuedLink> {
  const blobs = ctx.services.blobs;
  const { purpose, contentType } = family.files[file.extension];
  if (blobs.presignedGetUrl) {
    const url = await blobs.presignedGetUrl(file.key, { expiresInSeconds: expiry.expiresInSeconds, filename: file.filename, contentType });
    return { url, signedBy: 's3' };
  }
  const query = await signLink(ctx.tx, { purpose, resourceId: file.id, orgId: ctx.orgId, expires: expiry.expires });
  return { url: `${family.base}/${file.id}.${file.extension}?${query}`, signedBy: 'service' };
}

type FileRequest = FastifyRequest<{ Params: { file: string }; Querystring: Record<string, unknown> }>;

const fileNamePattern = (family: FileFamily) => new RegExp(`^(${family.idPattern})\\.(${Object.keys(family.files).join('|')})$`);

/** The routes serving every family's files through the service's signed links. */
export function fileRoutes(db: Database, blobs: BlobStore, options: { limiter: RateLimiter }, families: FileFamily[]) {
  const admit = guardChain({ authenticate: anonymousByAddress, limiter: options.limiter, grant: noGrant });
  return async (app: FastifyInstance) => {
    await app.register(async (files) => {
      files.addHook('onRequest', async (_request, reply) => void reply.headers({ 'Referrer-Policy': 'no-referrer', 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'private, no-store' }));
      files.addHook('onRequest', async (request, reply) => void (await admit(request, reply)));
      files.setErrorHandler((error: unknown, request, reply) => {
        const problem = toProblem(error);
        if (problem.status >= 500) request.log.error({ err: error }, 'signed file download failed');
        sendProblem(reply, problem);
      });
      for (const family of families) {
        const pattern = fileNamePattern(family);
        files.get(`${family.base}/:file`, async (request: FileRequest, reply) => {
          const match = pattern.exec(request.params.file);
          if (!match) throw linkInvalid();
          const [, id, extension] = match as unknown as [string, string, string];
          const { purpose, contentType } = family.files[extension];
          const { orgId } = await verifyLink(db, { purpose, resourceId: id }, request.query ?? {});
          const located = await family.locate(db, orgId, id, extension);
          const body = located && (await blobs.get(located.key));
          if (!located || !body) throw new ProblemError(404, 'not_found', family.gone);
          return reply.type(contentType).header('Content-Disposition', `attachment; filename="${located.filename}"`).send(body);
        });
      }
    });
  };
}

/** The families' download routes in the OpenAPI document (written beside them, as they are not RPC operations). */
export function fileRoutesOpenApiPaths(families: FileFamily[]): Record<string, unknown> {
  const budget = FILE_LINK_WINDOWS.map((w) => `${w.points} per ${w.seconds} s`).join(' and ');
  const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: { type: 'object' } } } });
  const query = (name: string, description: string) => ({ name, in: 'query', required: true, schema: { type: 'string' }, description });
  const content = (family: FileFamily) =>
    Object.fromEntries(Object.values(family.files).map(({ contentType }) => [contentType.split(';')[0], { schema: { type: 'string', format: 'binary' } }]));
  return Object.fromEntries(
    families.map((family) => [
      `${family.base}/{file}`,
      {
        get: {
          tags: ['public files'],
          operationId: family.doc.operationId,
          security: [],
          summary: family.doc.summary,
          description:
            'The link is the only key: its query carries the organization, the expiry (Unix seconds), the signing key version and an ' +
            'HMAC-SHA256 over the file kind, the id, organization and expiry. Altered in any part: 403 link_invalid. Past its expiry: ' +
            `410 link_expired. Counted per client address (${budget}), with the same RateLimit headers as the API. Never cached.`,
          parameters: [
            { name: 'file', in: 'path', required: true, schema: { type: 'string', pattern: fileNamePattern(family).source }, description: family.doc.file },
            query('org', 'The organization the link was issued for.'),
            query('expires', 'Unix seconds after which the link answers 410.'),
            query('v', 'The signing key version.'),
            query('sig', 'The signature, base64url.'),
          ],
          responses: {
            '200': { description: 'The file, as an attachment.', content: content(family) },
            '403': problem('link_invalid: the link was altered or not issued by this service.'),
            '404': problem(`not_found: ${family.gone}`),
            '410': problem(`link_expired: the link has expired; ask ${family.doc.issuer} for a new one.`),
            '429': problem(`rate_limited: more than ${budget} from this client address; see Retry-After.`),
          },
        },
      },
    ]),
  );
}
