import { cancelOrganizationDeletion, findOrganization, scheduleOrganizationDeletion } from '../../auth/organizations.js';
import { defineOperation, type OperationContext } from '../../rpc/define.js';
import { conflict, invalidInput, notFound, ProblemError } from '../../rpc/errors.js';
import type { Queryable } from '../../db/client.js';
import { CancelOrganizationDeletion, Organization, ScheduleOrganizationDeletion } from './schemas.js';

/**
 * Deleting an organization, by its owner, with a grace period (ORGANIZATION_DELETION_GRACE_DAYS, 30 by default).
 *
 * - Only an owner schedules or cancels it (an owner API key or a user who is an owner here): an admin holds the
 *   same permissions, so the role is checked as for the owner-only settings (settings.ts). The owner confirms by
 *   typing the organization's id or its exact name.
 * - During the grace period the organization works on fully: its keys, sessions, webhooks, public certificate
 *   pages and jobs are untouched, so its owners can export its data (identity.exportOrganization, or `firstcrack org export`) and any owner
 *   can cancel. identity.getOrganization shows `deletion` (scheduledAt, purgeAfter); the console shows it.
 * - After it the organization-purge job (src/jobs/organization-purge.ts) deletes every row the organization owns
 *   and its blobs: its keys stop working, its webhooks stop, and its public certificate pages answer 404 like any
 *   certificate that never existed (nothing of the organization is kept to tell the two apart).
 */
const permission = 'webhooks.write' as const;
const feature = 'core' as const;

/** Owner-only operations (deletion, export): an admin holds the same permissions, so the role is checked. */
export function requireOwner(ctx: OperationContext, what: string): void {
  if (ctx.principal.role !== 'owner') {
    throw new ProblemError(403, 'permission_denied', `Only an owner ${what}; this credential acts as ${ctx.principal.role ?? 'a machine'}.`, { permission });
  }
}

export async function organizationAnswer(tx: Queryable, orgId: string) {
  const org = (await findOrganization(tx, orgId))!;
  return {
    id: org.id,
    name: org.name,
    plan: org.plan,
    timeZone: org.timeZone,
    createdAt: org.createdAt.toISOString(),
    deletion: org.deletion ? { scheduledAt: org.deletion.scheduledAt.toISOString(), purgeAfter: org.deletion.purgeAfter.toISOString() } : null,
  };
}

export const deletionOperations = [
  defineOperation({
    name: 'identity.scheduleOrganizationDeletion',
    extension: true,
    summary: 'Schedule the deletion of the organization and everything it owns, after a grace period in which an owner may cancel it.',
    description:
      'An extension, for owners only (anyone else is 403 `permission_denied`). `confirm` must be the organization’s id or its exact name ' +
      '(otherwise 400 naming `confirm`; another organization’s id is 404 like an id that exists nowhere). The organization works on as before ' +
      'until `deletion.purgeAfter` (ORGANIZATION_DELETION_GRACE_DAYS after now, 30 by default); then every row it owns, in every table, its ' +
      'files (reports, roast curves, imports), keys, members and webhooks are deleted for good, ledgers and certificates included, and its ' +
      'public certificate pages answer 404. Export its data first (identity.exportOrganization). Scheduling again while scheduled is 409 ' +
      '`deletion_scheduled` (the date stays); cancel with identity.cancelOrganizationDeletion.',
    permission,
    feature,
    get: false,
    input: ScheduleOrganizationDeletion,
    output: Organization,
    errors: ['not_found', 'deletion_scheduled'],
    async handler(ctx, { confirm }) {
      requireOwner(ctx, 'deletes the organization');
      // Locked, so a concurrent cancel or a second schedule waits and then sees this one.
      const org = (await findOrganization(ctx.tx, ctx.orgId, { forUpdate: true }))!;
      if (confirm !== org.id && confirm !== org.name) {
        if (/^org_/.test(confirm)) throw notFound('organization', confirm, 'confirm');
        throw invalidInput([{ path: 'confirm', message: 'must be this organization’s id or its exact name' }], 'Type the organization’s id or its exact name to confirm its deletion.');
      }
      if (org.deletion) {
        throw conflict('deletion_scheduled', `The organization’s deletion is scheduled already: it is purged after ${org.deletion.purgeAfter.toISOString()}.`, {
          purgeAfter: org.deletion.purgeAfter.toISOString(),
        });
      }
      await scheduleOrganizationDeletion(ctx.tx, ctx.orgId, ctx.services.config.organizationDeletionGraceDays, ctx.principal.credentialId);
      return organizationAnswer(ctx.tx, ctx.orgId);
    },
  }),

  defineOperation({
    name: 'identity.cancelOrganizationDeletion',
    extension: true,
    summary: 'Cancel the organization’s scheduled deletion during its grace period; nothing was deleted.',
    description:
      'An extension, for owners only (anyone else is 403 `permission_denied`). Answers the organization with `deletion: null`; cancelling when ' +
      'no deletion is scheduled changes nothing and answers the same. Once the grace period has ended and the purge has run there is no ' +
      'organization left to act in (its keys are gone: 401).',
    permission,
    feature,
    get: false,
    input: CancelOrganizationDeletion,
    output: Organization,
    errors: [],
    async handler(ctx) {
      requireOwner(ctx, 'cancels the organization’s deletion');
      await findOrganization(ctx.tx, ctx.orgId, { forUpdate: true });
      await cancelOrganizationDeletion(ctx.tx, ctx.orgId);
      return organizationAnswer(ctx.tx, ctx.orgId);
    },
  }),
];
