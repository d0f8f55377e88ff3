import type { Queryable } from '../../db/client.js';
import type { StalledWork } from '../../jobs/leases.js';
import { iso } from '../../db/sql.js';
import { decodeCursor, pageOf } from '../../db/paging.js';
import type { Page } from '../../rpc/schemas.js';
import type { Plan } from '../../auth/plans.js';
import type { Role } from '../../auth/permissions.js';
import { newId } from '../../lib/ids.js';

// ---------------------------------------------------------------------------------------------------
// OAuth clients (organization data).

interface ClientRow {
  id: string;
  role: Role;
  scopes: string[];
  label: string | null;
  created_at: Date;
  revoked_at: Date | null;
}

export type OAuthClient = ReturnType<typeof toClient>;

const toClient = (r: ClientRow) => ({
  clientId: r.id,
  role: r.role,
  scopes: r.scopes,
  label: r.label,
  createdAt: iso(r.created_at)!,
  revokedAt: iso(r.revoked_at),
});

export async function insertClient(
  q: Queryable,
  orgId: string,
  client: { id: string; role: Role; scopes: string[]; secretHash: string; label: string | null },
): Promise<OAuthClient> {
  const [row] = await q.query<ClientRow>(
    `insert into oauth_clients (org_id, id, role, scopes, secret_hash, label) values ($1, $2, $3, $4, $5, $6)
     returning id, role, scopes, label, created_at, revoked_at`,
    [orgId, client.id, client.role, client.scopes, client.secretHash, client.label],
  );
  return toClient(row);
}

export async function listClients(q: Queryable, orgId: string, filter: { includeRevoked?: boolean }, page: Page) {
  const after = decodeCursor(page.cursor, 'oauth_clients', ['id']);
  const rows = await q.query<ClientRow>(
    `select id, role, scopes, label, created_at, revoked_at from oauth_clients
     where org_id = $1 and ($2::boolean or revoked_at is null) and ($3::text is null or id > $3)
     order by id limit $4`,
    [orgId, filter.includeRevoked ?? false, after ? String(after[0]) : null, page.limit + 1],
  );
  return pageOf(rows.map(toClient), page.limit, 'oauth_clients', (c) => [c.clientId]);
}

export async function findClient(q: Queryable, orgId: string, id: string, options: { forUpdate?: boolean } = {}): Promise<OAuthClient | undefined> {
  const [row] = await q.query<ClientRow>(
    `select id, role, scopes, label, created_at, revoked_at from oauth_clients where org_id = $1 and id = $2${options.forUpdate ? ' for update' : ''}`,
    [orgId, id],
  );
  return row && toClient(row);
}

/** Revokes the client; its opaque tokens stop with it (the token lookup joins the live client). */
export async function revokeClient(q: Queryable, orgId: string, id: string, at: Date): Promise<OAuthClient | undefined> {
  const [row] = await q.query<ClientRow>(
    `update oauth_clients set revoked_at = $3 where org_id = $1 and id = $2 and revoked_at is null
     returning id, role, scopes, label, created_at, revoked_at`,
    [orgId, id, at],
  );
  return row && toClient(row);
}

/** The organization's clients, revoked ones too: the CLI's listing (owner connection). */
export async function allClients(q: Queryable, orgId: string): Promise<OAuthClient[]> {
  const rows = await q.query<ClientRow>(
    `select id, role, scopes, label, created_at, revoked_at from oauth_clients where org_id = $1 order by created_at, id`,
    [orgId],
  );
  return rows.map(toClient);
}

// ---------------------------------------------------------------------------------------------------
// Authentication lookups: before the organization is known, through the security-definer functions.

export interface LiveClient {
  id: string;
  org_id: string;
  role: Role;
  scopes: string[];
  secret_hash: string;
  plan: Plan;
}

export async function liveClient(q: Queryable, clientId: string): Promise<LiveClient | undefined> {
  const [row] = await q.query<LiveClient>(`select * from firstcrack_oauth_client($1)`, [clientId], { name: 'identity_live_client' });
  return row;
}

export interface LiveAccessToken {
  id: string;
  org_id: string;
  client_id: string;
  role: Role;
  scope: string[];
  plan: Plan;
  issued_at: Date;
  expires_at: Date;
}

export async function liveAccessToken(q: Queryable, hash: string, at: Date): Promise<LiveAccessToken | undefined> {
  const [row] = await q.query<LiveAccessToken>(`select * from firstcrack_oauth_access_token($1, $2)`, [hash, at], { name: 'identity_live_token' });
  return row;
}

/** Of the organization's opaque tokens `ids`, those live at `at`: unexpired, their client not revoked (in the organization's transaction). */
export async function liveAccessTokenIds(q: Queryable, orgId: string, ids: string[], at: Date): Promise<string[]> {
  const rows = await q.query<{ id: string }>(
    `select t.id from oauth_access_tokens t join oauth_clients c on c.org_id = t.org_id and c.id = t.client_id
     where t.org_id = $1 and t.id = any($2::text[]) and t.expires_at > $3 and c.revoked_at is null`,
    [orgId, ids, at],
  );
  return rows.map((r) => r.id);
}

export async function organizationPlan(q: Queryable, orgId: string): Promise<Plan | undefined> {
  const [row] = await q.query<{ plan: Plan }>(`select plan from firstcrack_organization_plan($1)`, [orgId], { name: 'identity_org_plan' });
  return row?.plan;
}

export async function insertAccessToken(
  q: Queryable,
  orgId: string,
  token: { id: string; clientId: string; hash: string; scope: string[]; issuedAt: Date; expiresAt: Date },
): Promise<void> {
  await q.query(
    `insert into oauth_access_tokens (org_id, id, client_id, token_hash, scope, issued_at, expires_at) values ($1, $2, $3, $4, $5, $6, $7)`,
    [orgId, token.id, token.clientId, token.hash, token.scope, token.issuedAt, token.expiresAt],
  );
}

/** Expired tokens of the organization are of no use to anyone; swept as new ones are issued. */
export async function deleteExpiredAccessTokens(q: Queryable, orgId: string, before: Date): Promise<void> {
  await q.query(`delete from oauth_access_tokens where org_id = $1 and expires_at < $2`, [orgId, before]);
}

// ---------------------------------------------------------------------------------------------------
// Signing keys (the service's own).

export interface SigningKeyRow {
  id: string;
  alg: string;
  public_jwk: Record<string, unknown>;
  private_key_encrypted: string;
  created_at: Date;
  retired_at: Date | null;
}

/** Keys still published at `at`: live ones, and retired ones until `publishFor` after retirement. */
export async function publishedKeys(q: Queryable, at: Date, publishForSeconds: number): Promise<SigningKeyRow[]> {
  return q.query<SigningKeyRow>(
    `select * from signing_keys where retired_at is null or retired_at + make_interval(secs => $2) > $1 order by created_at desc, id desc`,
    [at, publishForSeconds],
  );
}

export async function insertSigningKey(q: Queryable, key: Omit<SigningKeyRow, 'retired_at'>): Promise<void> {
  await q.query(`insert into signing_keys (id, alg, public_jwk, private_key_encrypted, created_at) values ($1, $2, $3, $4, $5)`, [
    key.id,
    key.alg,
    JSON.stringify(key.public_jwk),
    key.private_key_encrypted,
    key.created_at,
  ]);
}

/** Retires every live key but `keep`; answers the ids retired. */
export async function retireKeysExcept(q: Queryable, keep: string, at: Date): Promise<string[]> {
  const rows = await q.query<{ id: string }>(`update signing_keys set retired_at = $2 where retired_at is null and id <> $1 returning id`, [keep, at]);
  return rows.map((r) => r.id);
}

/** Serializes key creation across processes: the first signer of an empty key set creates exactly one key. */
export async function lockSigningKeys(q: Queryable): Promise<void> {
  await q.query(`select pg_advisory_xact_lock(hashtext('firstcrack.signing_keys'))`);
}

export async function liveKeyCount(q: Queryable): Promise<number> {
  const [row] = await q.query<{ count: number }>(`select count(*)::int as count from signing_keys where retired_at is null`);
  return row.count;
}

// ---------------------------------------------------------------------------------------------------
// Users, memberships, sessions.

export interface UserRow {
  id: string;
  email: string;
  password_hash: string | null;
}

export async function findUserByEmail(q: Queryable, email: string): Promise<UserRow | undefined> {
  const [row] = await q.query<UserRow>(`select id, email, password_hash from users where lower(email) = lower($1)`, [email]);
  return row;
}

export async function findUser(q: Queryable, id: string): Promise<UserRow | undefined> {
  const [row] = await q.query<UserRow>(`select id, email, password_hash from users where id = $1`, [id]);
  return row;
}

export async function insertUser(q: Queryable, user: { id: string; email: string; passwordHash: string | null }): Promise<void> {
  await q.query(`insert into users (id, email, password_hash) values ($1, $2, $3)`, [user.id, user.email, user.passwordHash]);
}

export async function setPassword(q: Queryable, userId: string, passwordHash: string | null): Promise<boolean> {
  const rows = await q.query(`update users set password_hash = $2 where id = $1 returning id`, [userId, passwordHash]);
  return rows.length > 0;
}

export async function setLoginLink(q: Queryable, userId: string, hash: string, expiresAt: Date): Promise<void> {
  await q.query(`update users set login_link_hash = $2, login_link_expires_at = $3 where id = $1`, [userId, hash, expiresAt]);
}

/** Spends a one-time login link: answers its user once, never again. */
export async function spendLoginLink(q: Queryable, hash: string, at: Date): Promise<UserRow | undefined> {
  const [row] = await q.query<UserRow>(
    `update users set login_link_hash = null, login_link_expires_at = null
     where login_link_hash = $1 and login_link_expires_at > $2 returning id, email, password_hash`,
    [hash, at],
  );
  return row;
}

/** Adds the membership, or changes the role of an existing one. */
export async function upsertMembership(q: Queryable, orgId: string, userId: string, role: Role): Promise<void> {
  await q.query(
    `insert into memberships (org_id, user_id, role) values ($1, $2, $3) on conflict (org_id, user_id) do update set role = excluded.role`,
    [orgId, userId, role],
  );
}

export async function userMemberships(q: Queryable, userId: string): Promise<{ org_id: string; name: string; role: Role }[]> {
  return q.query(`select org_id, name, role from firstcrack_user_memberships($1)`, [userId]);
}

export async function insertSession(q: Queryable, session: { id: string; userId: string; hash: string; createdAt: Date; expiresAt: Date }): Promise<void> {
  await q.query(`insert into user_sessions (id, user_id, token_hash, created_at, expires_at) values ($1, $2, $3, $4, $5)`, [
    session.id,
    session.userId,
    session.hash,
    session.createdAt,
    session.expiresAt,
  ]);
}

export async function revokeSession(q: Queryable, hash: string, at: Date): Promise<boolean> {
  const rows = await q.query(`update user_sessions set revoked_at = $2 where token_hash = $1 and revoked_at is null and expires_at > $2 returning id`, [
    hash,
    at,
  ]);
  return rows.length > 0;
}

export interface LiveSession {
  session_id: string;
  user_id: string;
  role: Role | null;
  plan: Plan | null;
}

export async function liveSession(q: Queryable, hash: string, orgId: string, at: Date): Promise<LiveSession | undefined> {
  const [row] = await q.query<LiveSession>(`select * from firstcrack_user_session($1, $2, $3)`, [hash, orgId, at], { name: 'identity_live_session' });
  return row;
}

/** Of sessions `ids`, those live at `at` whose user is a member of the organization, with the role held there (in the organization's transaction). */
export async function liveSessionRoles(q: Queryable, orgId: string, ids: string[], at: Date): Promise<{ session_id: string; role: Role }[]> {
  return q.query(
    `select s.id as session_id, m.role from user_sessions s join memberships m on m.org_id = $1 and m.user_id = s.user_id
     where s.id = any($2::text[]) and s.revoked_at is null and s.expires_at > $3`,
    [orgId, ids, at],
  );
}

/** Ends the user's membership in the organization; answers whether there was one. */
export async function deleteMembership(q: Queryable, orgId: string, userId: string): Promise<boolean> {
  const rows = await q.query(`delete from memberships where org_id = $1 and user_id = $2 returning user_id`, [orgId, userId]);
  return rows.length > 0;
}

// ---------------------------------------------------------------------------------------------------
// Memberships as the organization's settings show them (in its own transaction).

export interface MemberRow {
  user_id: string;
  email: string;
  role: Role;
  created_at: Date;
  has_password: boolean;
}

export type Member = ReturnType<typeof toMember>;

export const toMember = (r: MemberRow) => ({
  userId: r.user_id,
  email: r.email,
  role: r.role,
  /** false: the user has only a one-time login link so far (invited, never set a password). */
  hasPassword: r.has_password,
  memberSince: iso(r.created_at)!,
});

const MEMBER_SELECT = `select m.user_id, u.email, m.role, m.created_at, u.password_hash is not null as has_password
  from memberships m join users u on u.id = m.user_id`;

export async function listMembers(q: Queryable, orgId: string, page: Page) {
  const after = decodeCursor(page.cursor, 'memberships', ['id']);
  const rows = await q.query<MemberRow>(
    `${MEMBER_SELECT} where m.org_id = $1 and ($2::text is null or m.user_id > $2) order by m.user_id limit $3`,
    [orgId, after ? String(after[0]) : null, page.limit + 1],
  );
  return pageOf(rows.map(toMember), page.limit, 'memberships', (m) => [m.userId]);
}

/** The user's membership in the organization, locked for the transaction when asked. */
export async function findMember(q: Queryable, orgId: string, userId: string, options: { forUpdate?: boolean } = {}): Promise<Member | undefined> {
  const [row] = await q.query<MemberRow>(`${MEMBER_SELECT} where m.org_id = $1 and m.user_id = $2${options.forUpdate ? ' for update of m' : ''}`, [orgId, userId]);
  return row && toMember(row);
}

export async function ownerMembershipCount(q: Queryable, orgId: string): Promise<number> {
  const [row] = await q.query<{ count: number }>(`select count(*)::int as count from memberships where org_id = $1 and role = 'owner'`, [orgId]);
  return row.count;
}

// ---------------------------------------------------------------------------------------------------
// Organization exports (export.ts): queued → building → ready | failed.

export type ExportStatus = 'queued' | 'building' | 'ready' | 'failed';

interface ExportRow {
  id: string;
  status: ExportStatus;
  failure_reason: string | null;
  blob_key: string | null;
  size_bytes: string | number | null;
  contents: { tables: Record<string, number>; blobs: number } | null;
  attempts: number;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
}

const toExport = (r: ExportRow) => ({
  id: r.id,
  status: r.status,
  failureReason: r.failure_reason,
  sizeBytes: r.size_bytes === null ? null : Number(r.size_bytes),
  contents: r.contents,
  createdAt: iso(r.created_at)!,
  startedAt: iso(r.started_at),
  completedAt: iso(r.completed_at),
});

export type OrganizationExportRecord = ReturnType<typeof toExport> & { blobKey: string | null; attempts: number };
const toStoredExport = (r: ExportRow): OrganizationExportRecord => ({ ...toExport(r), blobKey: r.blob_key, attempts: r.attempts });

export async function insertExport(q: Queryable, orgId: string, credentialId: string): Promise<OrganizationExportRecord> {
  const [row] = await q.query<ExportRow>(`insert into organization_exports (org_id, id, credential_id) values ($1, $2, $3) returning *`, [
    orgId,
    newId('oex'),
    credentialId,
  ]);
  return toStoredExport(row);
}

export async function findExport(q: Queryable, orgId: string, id: string): Promise<OrganizationExportRecord | undefined> {
  const [row] = await q.query<ExportRow>(`select * from organization_exports where org_id = $1 and id = $2`, [orgId, id]);
  return row && toStoredExport(row);
}

/**
 * Claims an export for building under a lease: queued, or building whose lease ran out (the attempt holding it
 * died), becomes building, held by `token` for `leaseSeconds`. Undefined when there is nothing to build (ready,
 * failed, gone) or another attempt holds a live lease.
 */
export async function startBuildingExport(q: Queryable, orgId: string, id: string, token: string, leaseSeconds: number): Promise<OrganizationExportRecord | undefined> {
  const [row] = await q.query<ExportRow>(
    `update organization_exports set status = 'building', started_at = coalesce(started_at, now()), updated_at = now(), attempts = attempts + 1,
            lease_token = $3, lease_expires_at = now() + make_interval(secs => $4)
     where org_id = $1 and id = $2
       and (status = 'queued' or (status = 'building' and (lease_expires_at is null or lease_expires_at <= now())))
     returning *`,
    [orgId, id, token, leaseSeconds],
  );
  return row && toStoredExport(row);
}

/** Extends the lease while the attempt holding `token` still holds it (0 seconds lets it go at once); answers whether it did. */
export async function renewExportLease(q: Queryable, orgId: string, id: string, token: string, leaseSeconds: number): Promise<boolean> {
  const rows = await q.query(
    `update organization_exports set lease_expires_at = now() + make_interval(secs => $4)
     where org_id = $1 and id = $2 and status = 'building' and lease_token = $3 returning id`,
    [orgId, id, token, leaseSeconds],
  );
  return rows.length === 1;
}

/** Marks the export ready, only for the attempt holding its lease: one attempt's archive is the export's. */
export async function markExportReady(
  q: Queryable,
  orgId: string,
  id: string,
  token: string,
  archive: { blobKey: string; sizeBytes: number; contents: { tables: Record<string, number>; blobs: number } },
): Promise<boolean> {
  const rows = await q.query(
    `update organization_exports set status = 'ready', blob_key = $4, size_bytes = $5, contents = $6, completed_at = now(), updated_at = now(),
            lease_token = null, lease_expires_at = null
     where org_id = $1 and id = $2 and status = 'building' and lease_token = $3 returning id`,
    [orgId, id, token, archive.blobKey, archive.sizeBytes, JSON.stringify(archive.contents)],
  );
  return rows.length === 1;
}

export async function markExportFailed(q: Queryable, orgId: string, id: string, reason: string): Promise<void> {
  await q.query(
    `update organization_exports set status = 'failed', failure_reason = $3, completed_at = now(), updated_at = now(), lease_token = null, lease_expires_at = null
     where org_id = $1 and id = $2 and status in ('queued', 'building')`,
    [orgId, id, reason.slice(0, 2000)],
  );
}

/**
 * Across organizations (the owner's connection): exports that may not be built by themselves. Building ones
 * whose lease ran out (the worker died mid-build), and queued ones untouched for `queuedForSeconds` (the sweep
 * checks whether a job is still coming for them). Locked for the caller's transaction; one sweeper takes each.
 */
export async function findStalledExports(q: Queryable, queuedForSeconds: number, limit: number): Promise<StalledWork[]> {
  const rows = await q.query<{ org_id: string; id: string; attempts: number; status: string }>(
    `select org_id, id, attempts, status from organization_exports
     where (status = 'building' and (lease_expires_at is null or lease_expires_at <= now()))
        or (status = 'queued' and updated_at < now() - make_interval(secs => $1))
     order by updated_at limit $2 for update skip locked`,
    [queuedForSeconds, limit],
  );
  return rows.map((r) => ({ orgId: r.org_id, id: r.id, attempts: r.attempts, queued: r.status === 'queued' }));
}

/** Puts a stalled export back in the queue (its job is sent in the same transaction). */
export async function requeueExport(q: Queryable, orgId: string, id: string): Promise<void> {
  await q.query(
    `update organization_exports set status = 'queued', lease_token = null, lease_expires_at = null, updated_at = now()
     where org_id = $1 and id = $2 and status in ('queued', 'building')`,
    [orgId, id],
  );
}
