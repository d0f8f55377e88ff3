import type { Database, Queryable } from '../db/client.js';
import { newId } from '../lib/ids.js';
import { createApiKey } from './credentials.js';
import { PLANS, type Plan } from './plans.js';
import type { Role } from './permissions.js';

/**
 * Organization administration: creating, listing, renaming and re-planning organizations and listing their
 * keys. These run with the owner connection (CLI, first-start bootstrap), outside any one organization.
 */

/** Input an organization cannot take (an empty or overlong name, an unknown plan). Nothing was changed. */
export class OrganizationInputError extends Error {}

export interface OrganizationSummary {
  id: string;
  name: string;
  plan: Plan;
  createdAt: Date;
}

export interface ApiKeySummary {
  id: string;
  role: Role;
  /** Empty: the key holds all of its role's permissions. */
  scopes: string[];
  label: string | null;
  createdAt: Date;
  revokedAt: Date | null;
}

export const ORGANIZATION_NAME_MAX = 200;

/** The name as stored: trimmed, 1 to 200 characters (the table's check). */
function organizationName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0) throw new OrganizationInputError('The organization name must not be empty.');
  if (trimmed.length > ORGANIZATION_NAME_MAX) {
    throw new OrganizationInputError(`The organization name must be at most ${ORGANIZATION_NAME_MAX} characters.`);
  }
  return trimmed;
}

function plan(value: string): Plan {
  if (!PLANS.includes(value as Plan)) throw new OrganizationInputError(`The plan must be one of ${PLANS.join(', ')}.`);
  return value as Plan;
}

/** Creates an organization and its first owner key. */
export async function createOrganization(db: Database, name: string, planName: Plan): Promise<{ organizationId: string; apiKey: string; keyId: string }> {
  const storedName = organizationName(name);
  const storedPlan = plan(planName);
  return db.transaction(async (tx) => {
    const organizationId = newId('org');
    await tx.query(`insert into organizations (id, name, plan) values ($1, $2, $3)`, [organizationId, storedName, storedPlan]);
    const key = await createApiKey(tx, organizationId, 'owner', [], 'owner key');
    return { organizationId, apiKey: key.apiKey, keyId: key.id };
  });
}

interface OrganizationRow {
  id: string;
  name: string;
  plan: Plan;
  created_at: Date | string;
}

const toOrganization = (row: OrganizationRow): OrganizationSummary => ({
  id: row.id,
  name: row.name,
  plan: row.plan,
  createdAt: new Date(row.created_at),
});

export async function listOrganizations(db: Database): Promise<OrganizationSummary[]> {
  const rows = await db.query<OrganizationRow>(`select id, name, plan, created_at from organizations order by created_at, id`);
  return rows.map(toOrganization);
}

/** Answers the renamed organization, or null when there is no such organization. */
export async function renameOrganization(db: Queryable, organizationId: string, name: string): Promise<OrganizationSummary | null> {
  const rows = await db.query<OrganizationRow>(`update organizations set name = $2 where id = $1 returning id, name, plan, created_at`, [
    organizationId,
    organizationName(name),
  ]);
  return rows[0] ? toOrganization(rows[0]) : null;
}

/** Answers the organization on its new plan, or null when there is no such organization. */
export async function setOrganizationPlan(db: Database, organizationId: string, planName: string): Promise<OrganizationSummary | null> {
  const rows = await db.query<OrganizationRow>(`update organizations set plan = $2 where id = $1 returning id, name, plan, created_at`, [
    organizationId,
    plan(planName),
  ]);
  return rows[0] ? toOrganization(rows[0]) : null;
}

/** A scheduled deletion: when an owner asked for it, by which credential, and when the grace period ends. */
export interface OrganizationDeletion {
  scheduledAt: Date;
  purgeAfter: Date;
  scheduledBy: string | null;
}

/** The organization with its time zone (null: UTC) and its scheduled deletion, read inside its own scope; null when there is none. */
export async function findOrganization(
  q: Queryable,
  organizationId: string,
  options: { forUpdate?: boolean } = {},
): Promise<(OrganizationSummary & { timeZone: string | null; deletion: OrganizationDeletion | null }) | null> {
  const [row] = await q.query<
    OrganizationRow & { timezone: string | null; deletion_scheduled_at: Date | string | null; purge_after: Date | string | null; deletion_scheduled_by: string | null }
  >(
    `select id, name, plan, created_at, timezone, deletion_scheduled_at, purge_after, deletion_scheduled_by from organizations where id = $1${options.forUpdate ? ' for no key update' : ''}`,
    [organizationId],
  );
  if (!row) return null;
  const deletion =
    row.deletion_scheduled_at === null || row.purge_after === null
      ? null
      : { scheduledAt: new Date(row.deletion_scheduled_at), purgeAfter: new Date(row.purge_after), scheduledBy: row.deletion_scheduled_by };
  return { ...toOrganization(row), timeZone: row.timezone, deletion };
}

/**
 * Schedules the organization's deletion: the organization-purge job (src/jobs/organization-purge.ts) purges it
 * once `graceDays` have passed, unless cancelled before. The caller holds the row's lock and has checked that
 * no deletion is scheduled.
 */
export async function scheduleOrganizationDeletion(q: Queryable, organizationId: string, graceDays: number, scheduledBy: string): Promise<void> {
  await q.query(
    `update organizations set deletion_scheduled_at = now(), purge_after = now() + make_interval(days => $2::int), deletion_scheduled_by = $3
     where id = $1`,
    [organizationId, graceDays, scheduledBy],
  );
}

/** Cancels a scheduled deletion; a no-op when none is scheduled. */
export async function cancelOrganizationDeletion(q: Queryable, organizationId: string): Promise<void> {
  await q.query(`update organizations set deletion_scheduled_at = null, purge_after = null, deletion_scheduled_by = null where id = $1`, [organizationId]);
}

export async function organizationExists(db: Database, organizationId: string): Promise<boolean> {
  const rows = await db.query(`select 1 from organizations where id = $1`, [organizationId]);
  return rows.length > 0;
}

/** The organization's API keys, revoked ones included; never their secrets (only hashes are stored). */
export async function listApiKeys(db: Database, organizationId: string): Promise<ApiKeySummary[]> {
  const rows = await db.query<{ id: string; role: Role; scopes: string[] | null; label: string | null; created_at: Date | string; revoked_at: Date | string | null }>(
    `select id, role, scopes, label, created_at, revoked_at from credentials
     where org_id = $1 and kind = 'api_key' order by created_at, id`,
    [organizationId],
  );
  return rows.map((row) => ({
    id: row.id,
    role: row.role,
    scopes: row.scopes ?? [],
    label: row.label,
    createdAt: new Date(row.created_at),
    revokedAt: row.revoked_at === null ? null : new Date(row.revoked_at),
  }));
}

/**
 * Locks the organization row until commit. A request that can raise a count the plan caps (active machines)
 * takes this lock before counting, so two of them can never both see room under the cap.
 */
export async function lockOrganization(q: Queryable, orgId: string): Promise<void> {
  await q.query(`select id from organizations where id = $1 for no key update`, [orgId]);
}

/** The organization's name (what its documents print), read inside its own scope. */
export async function findOrganizationName(q: Queryable, orgId: string): Promise<string> {
  return (await findOrganizationLetterhead(q, orgId)).name;
}

/** What an organization's documents print with: its name and the time zone their times are in (UTC unless set). */
export async function findOrganizationLetterhead(q: Queryable, orgId: string): Promise<{ name: string; timeZone: string }> {
  const [row] = await q.query<{ name: string; timezone: string | null }>(`select name, timezone from organizations where id = $1`, [orgId]);
  return { name: row?.name ?? orgId, timeZone: row?.timezone ?? 'UTC' };
}

/** Whether `zone` is an IANA time zone name this runtime knows (Europe/Berlin, UTC). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return zone.trim() === zone && zone.length > 0;
  } catch {
    return false;
  }
}

/**
 * Sets the time zone the organization's documents print times in (an IANA name; null: back to UTC). Answers
 * false when there is no such organization.
 */
export async function setOrganizationTimeZone(db: Queryable, organizationId: string, timeZone: string | null): Promise<boolean> {
  if (timeZone !== null && !isTimeZone(timeZone)) throw new OrganizationInputError(`${timeZone} is not an IANA time zone such as Europe/Berlin.`);
  const rows = await db.query(`update organizations set timezone = $2 where id = $1 returning id`, [organizationId, timeZone]);
  return rows.length > 0;
}
