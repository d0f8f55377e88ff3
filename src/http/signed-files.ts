import { z } from 'zod';
import type { BlobStore } from '../blobs/store.js';
import type { Database, Queryable } from '../db/client.js';
import { ProblemError } from '../rpc/errors.js';
import { linkInvalid, signLink, verifyLink } from './signed-links.js';
import { defineSurface } from './surface.js';

/**
 * Stored files handed out through links that work without a credential until they expire (reports' PDF and CSV,
 * roast curves and their exports). An operation issues the link (issueFileLink): with a store that can sign
 * (S3) a presigned URL the store serves itself, else the service's own `GET <base>/<id>.<extension>` signed by
 * signLink, which its surface (fileSurface) serves. The guard chain takes the caller as anonymous, counted per client address;
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
  /** Its surface's declaration (fileSurface): operationId, summary, what `file` names, the operation issuing links. */
  doc: { operationId: string; summary: string; file: string; issuer: string; /** The 200 answer's example (a PDF's or a curve's by default). */ example?: string };
}

/** A signed link lives 15 minutes unless asked otherwise, at most 7 days (also S3's limit for a presigned URL). */
export const DEFAULT_LINK_SECONDS = 900;
export const MAX_LINK_SECONDS = 7 * 24 * 3600;
/** The `expiresInSeconds` input of an operation issuing links. */
export const linkLifetime = z.number().int().min(1).max(MAX_LINK_SECONDS).default(DEFAULT_LINK_SECONDS);

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

const FileLinkQuery = z.strictObject({
  org: z.string().describe('The organization the link was issued for.'),
  expires: z.string().regex(/^\d+$/).describe('Unix seconds after which the link answers 410.'),
  v: z.string().describe('The signing key version.'),
  sig: z.string().describe('The signature, base64url.'),
});

const fileNamePattern = (family: FileFamily) => new RegExp(`^(${family.idPattern})\\.(${Object.keys(family.files).join('|')})$`);

const SIGNED_FILE_HEADERS = { 'Referrer-Policy': 'no-referrer', 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'private, no-store' };

/** The surface serving a family's files through the service's signed links. */
export function fileSurface(family: FileFamily) {
  const pattern = fileNamePattern(family);
  const extensions = Object.keys(family.files);
  const exampleFile = `${family.idPattern.split('_')[0]}_01jq3k8m7v5x2n4p6r8t0w2y4a.${extensions[0]}`;
  return defineSurface({
    name: family.doc.operationId,
    method: 'GET',
    path: `${family.base}/:file`,
    tag: 'public files',
    summary: family.doc.summary,
    description:
      'The link is the only key: its query carries the organization, the expiry (Unix seconds), the signing key version and an ' +
      'HMAC-SHA256 over the file kind, the id, organization and expiry. Altered in any part: 403 link_invalid. Past its expiry: ' +
      `410 link_expired (ask ${family.doc.issuer} for a new one). A genuine link to a file that is gone: 404 (${family.gone}). Never cached.`,
    credentials: ['none'],
    rate: [{ budget: 'file_links', per: 'address' }],
    params: z.strictObject({ file: z.string().regex(pattern).describe(family.doc.file) }),
    query: FileLinkQuery,
    answers: {
      200: {
        description: 'The file, as an attachment.',
        contentType: [...new Set(Object.values(family.files).map(({ contentType }) => contentType.split(';')[0]))],
        schema: z.string().describe('the file’s bytes'),
      },
    },
    errors: ['link_invalid', 'link_expired', 'not_found'],
    examples: {
      params: { file: exampleFile },
      query: { org: 'org_01jq3k8m7v5x2n4p6r8t0w2y4a', expires: '1795000000', v: '1', sig: 'q8Zt3yQm0b6Jx1u9R2kVhP4sW7dLcN5eGfA0oI3rTyU' },
      answers: { 200: family.doc.example ?? (extensions[0] === 'pdf' ? '%PDF-1.7 …' : '{"batchId":"rb_01jq3k8m7v5x2n4p6r8t0w2y4a","samples":[{"t":0,"bt":201.4,"et":228.0}]}') },
    },
    replyHeaders: SIGNED_FILE_HEADERS,
    async handler(request, reply, { deps }) {
      const match = pattern.exec((request.params as { file: string }).file);
      if (!match) throw linkInvalid();
      const [, id, extension] = match as unknown as [string, string, string];
      const { purpose, contentType } = family.files[extension];
      const { orgId } = await verifyLink(deps.db, { purpose, resourceId: id }, (request.query ?? {}) as Record<string, unknown>);
      const located = await family.locate(deps.db, orgId, id, extension);
      const body = located && (await deps.services.blobs.get(located.key));
      if (!located || !body) throw new ProblemError(404, 'not_found', family.gone);
      return reply.type(contentType).header('Content-Disposition', `attachment; filename="${located.filename}"`).send(body);
    },
  });
}
