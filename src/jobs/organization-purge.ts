import { z } from 'zod';
import type { Database } from '../db/client.js';
import { tenantTablesInDeleteOrder } from '../db/tenant-tables.js';
import type { BlobStore } from '../blobs/store.js';
import { announceCredentialRevoked } from '../auth/credentials.js';
import { defineJob, type JobLog } from './define.js';

/**
 * Purging an organization whose deletion grace period has ended (scheduled by an owner through
 * identity.scheduleOrganizationDeletion). Two steps, each idempotent, so a retried or overlapping run is harmless:
 *
 * 1. One owner-connection transaction deletes every row the organization owns — every table with an org_id
 *    column, read from the catalog (src/db/tenant-tables.ts), referencing tables before referenced ones — then
 *    the users left with no membership anywhere (and their sessions), then the organization row, and records
 *    the purge in purged_organizations (its id, when, and the rows deleted per table; nothing it owned). Ledgers,
 *    events, lineage and certificates are append-only for every role; deleting a whole tenant is their one
 *    exception, allowed by their triggers only inside this transaction (it names the organization in
 *    `firstcrack.purging_org`) and only for an organization scheduled for deletion
 *    (migrations/repeatable/platform_append_only.sql).
 * 2. Its blobs (`<kind>/<orgId>/…`: curves, reports, imports) and its live state (the modules' `purgeOrganization`:
 *    roast sessions in Redis or on disk) are deleted, and purged_organizations notes it.
 *    A failure here leaves the note unset and the next run tries again.
 *
 * The organization is taken when `purge_after <= now`; `now` is the job's payload when given (tests run the
 * purge at an explicit time instead of waiting out the grace period), the database's clock otherwise.
 */

export interface PurgeResult {
  orgId: string;
  /** Rows deleted per table (tables with none are left out). */
  rowsDeleted: Record<string, number>;
  blobsDeleted: number;
  /** Live sessions (and other live state) the modules removed. */
  liveItemsRemoved: number;
}

/**
 * Deletes every row of organization `orgId` in one transaction, if its deletion is scheduled and due at `now`.
 * Answers the rows deleted per table, or null when the organization is not due (never scheduled, cancelled,
 * not yet due, or purged already).
 */
export async function purgeOrganizationRows(owner: Database, orgId: string, now: Date | null): Promise<Record<string, number> | null> {
  let credentialIds: string[] = [];
  const purged = await owner.transaction(async (tx) => {
    // The row lock orders this against identity.cancelOrganizationDeletion, which locks the same row.
    const [org] = await tx.query<{ scheduled: Date }>(
      `select deletion_scheduled_at as scheduled from organizations
       where id = $1 and purge_after is not null and purge_after <= coalesce($2::timestamptz, now()) for update`,
      [orgId, now?.toISOString() ?? null],
    );
    if (!org) return null;
    await tx.query(`select set_config('firstcrack.purging_org', $1, true)`, [orgId]);
    const rowsDeleted: Record<string, number> = {};
    credentialIds = (await tx.query<{ id: string }>(`select id from credentials where org_id = $1`, [orgId])).map((c) => c.id);
    // Users whose memberships are all here: once those go, nothing of them belongs to any organization.
    const leaving = await tx.query<{ id: string }>(
      `select m.user_id as id from memberships m where m.org_id = $1
       and not exists (select 1 from memberships o where o.user_id = m.user_id and o.org_id <> $1)`,
      [orgId],
    );
    for (const table of await tenantTablesInDeleteOrder(tx)) {
      const [{ n }] = await tx.query<{ n: number }>(`with gone as (delete from ${table} where org_id = $1 returning 1) select count(*)::int as n from gone`, [orgId]);
      if (n > 0) rowsDeleted[table] = n;
    }
    const userIds = leaving.map((u) => u.id);
    if (userIds.length > 0) {
      const sessions = await tx.query(`delete from user_sessions where user_id = any($1::text[]) returning 1`, [userIds]);
      if (sessions.length) rowsDeleted.user_sessions = sessions.length;
      const users = await tx.query(`delete from users where id = any($1::text[]) and not exists (select 1 from memberships m where m.user_id = users.id) returning 1`, [userIds]);
      if (users.length) rowsDeleted.users = users.length;
    }
    await tx.query(`delete from organizations where id = $1`, [orgId]);
    await tx.query(
      `insert into purged_organizations (id, deletion_scheduled_at, purged_at, rows_deleted) values ($1, $2, now(), $3::jsonb)
       on conflict (id) do nothing`,
      [orgId, org.scheduled, JSON.stringify(rowsDeleted)],
    );
    return rowsDeleted;
  });
  // Its keys are gone: this process forgets them at once, the others within their credential cache time (2 s),
  // as for any revoked key.
  if (purged) for (const id of credentialIds) announceCredentialRevoked(id);
  return purged;
}

/** Purges every organization whose grace period has ended at `now`, then the blobs of every purged organization still holding some. */
export async function purgeDueOrganizations(
  deps: { owner: Database; blobs: BlobStore; purgeOrganizationState(orgId: string): Promise<number>; log?: JobLog },
  now: Date | null = null,
): Promise<PurgeResult[]> {
  const due = await deps.owner.query<{ id: string }>(
    `select id from organizations where purge_after is not null and purge_after <= coalesce($1::timestamptz, now()) order by purge_after, id`,
    [now?.toISOString() ?? null],
  );
  const results = new Map<string, PurgeResult>();
  for (const { id } of due) {
    const rowsDeleted = await purgeOrganizationRows(deps.owner, id, now);
    if (rowsDeleted) results.set(id, { orgId: id, rowsDeleted, blobsDeleted: 0, liveItemsRemoved: 0 });
  }
  const pending = await deps.owner.query<{ id: string }>(`select id from purged_organizations where outside_purged_at is null order by purged_at, id`);
  for (const { id } of pending) {
    const blobsDeleted = await deps.blobs.deleteOrganizationObjects(id);
    const liveItemsRemoved = await deps.purgeOrganizationState(id);
    await deps.owner.query(`update purged_organizations set outside_purged_at = now() where id = $1`, [id]);
    const result = results.get(id) ?? { orgId: id, rowsDeleted: {}, blobsDeleted: 0, liveItemsRemoved: 0 };
    result.blobsDeleted = blobsDeleted;
    result.liveItemsRemoved = liveItemsRemoved;
    results.set(id, result);
  }
  for (const result of results.values()) deps.log?.info(result, 'organization purged');
  return [...results.values()];
}

export const organizationPurgeJob = defineJob({
  summary: 'Purges every organization whose deletion grace period has ended: its rows in every org_id table, then its blobs. Idempotent.',
  payload: z.object({ now: z.iso.datetime().optional() }).strict(),
  retry: { limit: 5, delaySeconds: 60, backoff: true },
  timeoutSeconds: 60 * 60,
  schedule: { cron: '17 * * * *', payload: {} },
  handler: async (ctx, payload) => {
    const purgeOrganizationState = ctx.purgeOrganizationState;
    if (!purgeOrganizationState) throw new Error('This worker was started without the modules’ services: it cannot purge live state.');
    await purgeDueOrganizations(
      { owner: ctx.databases.owner, blobs: ctx.blobs, purgeOrganizationState, log: ctx.log },
      payload.now ? new Date(payload.now) : null,
    );
  },
});
