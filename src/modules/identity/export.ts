import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { defineJob, type JobContext } from '../../jobs/define.js';
import { keepRenewing, sweepStalledWork } from '../../jobs/leases.js';
import { EXPORT_BLOB_KIND, exportOrganization } from '../../jobs/organization-export.js';
import { issueFileLink, linkExpiry, safeFilename, type FileFamily } from '../../http/signed-files.js';
import { defineOperation } from '../../rpc/define.js';
import { notFound } from '../../rpc/errors.js';
import * as repo from './repository.js';
import { requireOwner } from './deletion.js';
import { ExportOrganization, GetOrganizationExport, OrganizationExport } from './schemas.js';

/**
 * Exporting everything an organization owns, through the API (a hosted customer cannot run `firstcrack org
 * export`): identity.exportOrganization queues the organization-export job, which builds the very archive the
 * CLI writes (src/jobs/organization-export.ts: one function for both) and stores it in the blob store under
 * `organization-exports/<orgId>/<id>.tar.gz`; identity.getOrganizationExport answers its status and, once ready,
 * a signed download link, issued and served as reports' files are (src/http/signed-files.ts).
 *
 * Owners only, both: the archive holds every row of the organization, its members' and keys' records included,
 * which an admin (who holds the same permissions) may not take away. The archive is deleted with the
 * organization's other blobs when the organization is purged.
 */
const permission = 'webhooks.write' as const;
const feature = 'core' as const;

export const exportKey = (orgId: string, exportId: string) => `${EXPORT_BLOB_KIND}/${orgId}/${exportId}.tar.gz`;
const downloadName = (exportId: string) => safeFilename('firstcrack-export', exportId, 'tar.gz');

/** GET /files/v1/organization-exports/{id}.tgz: a ready export's archive, for whoever holds a link getOrganizationExport signed. */
export const organizationExportFiles: FileFamily<'tgz'> = {
  base: '/files/v1/organization-exports',
  idPattern: 'oex_[0-9a-z]{1,60}',
  files: { tgz: { purpose: 'organization-export.tgz', contentType: 'application/gzip' } },
  async locate(db, orgId, exportId) {
    const found = await db.transaction((tx) => repo.findExport(tx, orgId, exportId), { orgId, readOnly: true });
    if (!found || found.status !== 'ready' || !found.blobKey) return null;
    return { key: found.blobKey, filename: downloadName(exportId) };
  },
  gone: 'This export is no longer available.',
  doc: {
    operationId: 'identity.downloadOrganizationExport',
    summary: 'A ready organization export’s archive (.tar.gz), through a signed link from identity.getOrganizationExport; no credential.',
    file: '`<export id>.tgz`.',
    issuer: 'getOrganizationExport',
    example: '(the .tar.gz archive’s bytes)',
  },
};

const RETRIES = 2;
/** Builds started in all (the job's first run and its retries, or the sweeper's requeues) before the export is failed. */
const MAX_ATTEMPTS = 3;
/** The build holds its export under a lease of LEASE_SECONDS, renewed every RENEW_SECONDS (src/jobs/leases.ts). */
export const EXPORT_LEASE_SECONDS = 120;
const RENEW_SECONDS = 30;
/** A queued export is looked at by the sweeper only after this long without a job (the job is sent in its transaction). */
const QUEUED_GRACE_SECONDS = 120;
const ExportPayload = z.object({ orgId: z.string(), exportId: z.string() }).strict();

/**
 * Builds one export: queued → building under a lease, the archive from one snapshot (read as the tables' owner,
 * as the CLI does), stored in the blob store, then ready. A failure is retried; after the last retry the export
 * is marked failed with the reason. An attempt that died mid-build holds the export until its lease runs out;
 * the sweeper then queues it again (or fails it after MAX_ATTEMPTS), and the new attempt rebuilds it whole: the
 * archive is written to a fresh temporary file and stored under one key. One at a time per worker process.
 */
export const organizationExportJob = defineJob({
  summary: 'Builds an organization export (JSON per table plus blobs, as `firstcrack org export` writes) and stores it in the blob store.',
  payload: ExportPayload,
  retry: { limit: RETRIES, delaySeconds: 10, backoff: true },
  timeoutSeconds: 30 * 60,
  concurrency: 1,
  handler: buildOrganizationExport,
});

export async function buildOrganizationExport(ctx: JobContext, { orgId, exportId }: z.output<typeof ExportPayload>): Promise<void> {
  const db = ctx.databases.service;
  const token = randomUUID();
  const started = await db.transaction((tx) => repo.startBuildingExport(tx, orgId, exportId, token, EXPORT_LEASE_SECONDS), { orgId });
  if (!started) return; // ready, failed, gone, or building under another attempt's live lease: nothing to do
  const stopRenewing = keepRenewing(() => db.transaction((tx) => repo.renewExportLease(tx, orgId, exportId, token, EXPORT_LEASE_SECONDS), { orgId }), RENEW_SECONDS, ctx.log, { exportId });
  const dir = await mkdtemp(join(tmpdir(), 'fc-org-export-'));
  try {
    if (!ctx.modules) throw new Error('This worker was started without the modules’ manifests: it cannot name the tables’ owners.');
    const archive = await exportOrganization(ctx.databases.owner, ctx.modules, orgId, join(dir, `${exportId}.tar.gz`), ctx.blobs);
    const body = await readFile(archive.file);
    const blobKey = exportKey(orgId, exportId);
    await ctx.blobs.put(blobKey, body, 'application/gzip');
    await db.transaction(
      (tx) => repo.markExportReady(tx, orgId, exportId, token, { blobKey, sizeBytes: body.length, contents: { tables: archive.tables, blobs: archive.blobs } }),
      { orgId },
    );
  } catch (error) {
    if (ctx.retryCount < RETRIES) {
      // The retry takes the export at once; were the database away, the lease runs out and the sweeper takes it.
      await db.transaction((tx) => repo.renewExportLease(tx, orgId, exportId, token, 0), { orgId }).catch(() => {});
      throw error;
    }
    const message = error instanceof Error ? error.message : String(error);
    await db.transaction(
      (tx) => repo.markExportFailed(tx, orgId, exportId, `The export failed after ${RETRIES + 1} attempts (${message}). Ask for a new export; if it fails again, contact support with the export id.`),
      { orgId },
    );
    ctx.log.error({ err: error, exportId }, 'organization export failed');
  } finally {
    stopRenewing();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Every minute, across organizations: exports whose build stalled are queued again with a new job, or failed once MAX_ATTEMPTS builds have started. */
export const sweepOrganizationExportsJob = defineJob({
  summary: 'Queues again the organization exports whose build stalled (a worker died mid-build, or its job was spent), or fails them after 3 attempts.',
  payload: z.object({}).strict(),
  retry: { limit: 2, delaySeconds: 30, backoff: true },
  timeoutSeconds: 5 * 60,
  schedule: { cron: '* * * * *', payload: {} },
  handler: async (ctx) => void (await sweepOrganizationExports(ctx)),
});

export function sweepOrganizationExports(ctx: JobContext): Promise<{ requeued: number; failed: number }> {
  return sweepStalledWork(ctx, {
    job: 'organization-export',
    payloadKey: 'exportId',
    find: (tx, limit) => repo.findStalledExports(tx, QUEUED_GRACE_SECONDS, limit),
    maxAttempts: MAX_ATTEMPTS,
    async requeue(tx, stalled) {
      await repo.requeueExport(tx, stalled.orgId, stalled.id);
      await ctx.jobs.sendJob(tx, organizationExportJob, { orgId: stalled.orgId, exportId: stalled.id });
    },
    fail: (tx, stalled) =>
      repo.markExportFailed(
        tx,
        stalled.orgId,
        stalled.id,
        `The export stopped ${stalled.attempts} times without finishing (the worker building it stopped). Ask for a new export; if it fails again, contact support with the export id.`,
      ),
  });
}

const answer = ({ blobKey: _key, attempts: _attempts, ...rest }: repo.OrganizationExportRecord) => rest;

export const exportOperations = [
  defineOperation({
    name: 'identity.exportOrganization',
    extension: true,
    summary: 'Export everything the organization owns as one archive (JSON per table plus its files); poll getOrganizationExport, then download it.',
    description:
      'An extension, for owners only (anyone else is 403 `permission_denied`, and nothing is queued). Answers the export `queued`; a job ' +
      'builds the archive in the background: a .tar.gz holding `organization.json`, `tables/<table>.json` (the organization’s rows of every ' +
      'table it has rows in, read in one snapshot), `blobs/` (its roast curves, exports, imports and reports) and `manifest.json` (row ' +
      'counts per table and the module owning each) — the archive `firstcrack org export` writes. Poll identity.getOrganizationExport until ' +
      '`ready`, which answers a download link.',
    permission,
    feature,
    get: false,
    // Reads every row the organization owns and compresses them: it weighs as a report does.
    cost: 10,
    input: ExportOrganization,
    output: OrganizationExport,
    errors: [],
    async handler(ctx) {
      requireOwner(ctx, 'exports the organization');
      const created = await repo.insertExport(ctx.tx, ctx.orgId, ctx.principal.credentialId);
      await ctx.enqueue(organizationExportJob, { orgId: ctx.orgId, exportId: created.id });
      return { ...answer(created), download: null };
    },
  }),

  defineOperation({
    name: 'identity.getOrganizationExport',
    extension: true,
    summary: 'An organization export’s status (queued, building, ready, failed) and, once ready, a time-limited download link.',
    description:
      'An extension, for owners only (anyone else is 403 `permission_denied`). `download` is null until the export is `ready`; then it is ' +
      `a link to the .tar.gz that works without a credential for \`expiresInSeconds\` (default 900, at most 7 days): without S3 the ` +
      'service’s own (GET /files/v1/organization-exports/{id}.tgz, signed like reports’ links: 410 link_expired after expiry, 403 ' +
      'link_invalid when altered), with S3_BUCKET set an S3 presigned URL. A failed export names why in `failureReason`; ask for a new one. ' +
      'Another organization’s export is a 404 exactly like a missing one.',
    permission,
    feature,
    get: false,
    input: GetOrganizationExport,
    output: OrganizationExport,
    errors: ['not_found'],
    async handler(ctx, { id, expiresInSeconds }) {
      requireOwner(ctx, 'reads the organization’s exports');
      const found = await repo.findExport(ctx.tx, ctx.orgId, id);
      if (!found) throw notFound('organization export', id);
      if (found.status !== 'ready' || !found.blobKey) return { ...answer(found), download: null };
      const expiry = linkExpiry(expiresInSeconds);
      const link = await issueFileLink(ctx, organizationExportFiles, { id, extension: 'tgz', key: found.blobKey, filename: downloadName(id) }, expiry);
      return { ...answer(found), download: { url: link.url, signedBy: link.signedBy, expiresAt: expiry.expiresAt } };
    },
  }),
];
