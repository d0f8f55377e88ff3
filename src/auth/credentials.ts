import { createHash } from 'node:crypto';
import type { Database, Queryable } from '../db/client.js';
import { newId, newSecret } from '../lib/ids.js';
import { effectivePermissions, isValidPattern, type Permission, type Role } from './permissions.js';
import type { Plan } from './plans.js';

export type CredentialKind = 'api_key' | 'machine_bridge' | 'oauth_client' | 'user';

/** Who is calling, resolved from the credential before anything else runs. */
export interface Principal {
  /**
   * What the request is counted and remembered under (rate limits, idempotency keys, ledger authorship):
   * the key, the bridge token, the OAuth client (every token it holds), or the user.
   */
  credentialId: string;
  kind: CredentialKind;
  /** The organization a machine credential is permanently bound to. */
  orgId: string;
  plan: Plan;
  role: Role | null;
  permissions: ReadonlySet<Permission>;
  /** Set for bridge tokens: the one machine whose telemetry this credential may post. */
  machineId: string | null;
  /** The one token the principal was resolved from, which an open stream checks again while it lasts. */
  source: CredentialSource;
}

/**
 * A token as its resolver looks it up again (CredentialResolver.ended): a stored credential (API key, bridge
 * token), an OAuth opaque token, a user session acting with `role` in the principal's organization, or a
 * stateless JWT (its jti), which ends only when it expires (`expiresAt`, epoch seconds).
 */
export type CredentialSource =
  | { kind: 'stored'; id: string }
  | { kind: 'oauth_token'; id: string }
  | { kind: 'user_session'; id: string; role: Role }
  | { kind: 'jwt'; id: string; expiresAt: number };

/**
 * Turns a bearer token into a principal. API keys and bridge tokens are resolved here; OAuth
 * client-credentials tokens and console user sessions plug in as further resolvers (chosen by token
 * prefix), and handlers never see the difference: they get a Principal.
 */
export interface CredentialResolver {
  accepts(token: string): boolean;
  /**
   * The principal, or null for a token that is unknown, expired or revoked. `orgHeader` is X-Service-Org:
   * a user credential acts in the organization it names (and may throw the problem refusing it).
   */
  resolve(token: string, orgHeader?: string): Promise<Principal | null>;
  /**
   * Of `sources` (of principals acting in organization `orgId`), those of the kinds this resolver issues
   * that no longer hold: revoked, expired, logged out, or a session whose membership there is gone or has
   * another role now. Read afresh, never from a cache: open streams ask it every STREAM_CREDENTIAL_CHECK_MS.
   */
  ended?(orgId: string, sources: readonly CredentialSource[]): Promise<CredentialSource[]>;
}

/** Of `sources` in organization `orgId`, those that no longer hold, asked of every resolver at once. */
export async function endedSources(resolvers: readonly CredentialResolver[], orgId: string, sources: readonly CredentialSource[]): Promise<Set<CredentialSource>> {
  const answers = await Promise.all(resolvers.map((r) => r.ended?.(orgId, sources) ?? []));
  return new Set(answers.flat());
}

export const API_KEY_PREFIX = 'fck_';
export const BRIDGE_TOKEN_PREFIX = 'fcb_';

export const hashSecret = (token: string) => createHash('sha256').update(token).digest('hex');

export interface CredentialRow {
  id: string;
  org_id: string;
  kind: 'api_key' | 'machine_bridge';
  role: Role | null;
  scopes: string[] | null;
  machine_id: string | null;
  plan: Plan;
}

const storedRevocationListeners = new Set<(credentialId: string) => void>();

/**
 * Tells every StoredCredentialResolver in this process that a key was revoked, so none keeps it cached: the
 * revocation holds at once in this process, and within the cache time (2 s) in the others.
 */
export function announceCredentialRevoked(credentialId: string): void {
  for (const listener of storedRevocationListeners) listener(credentialId);
}

/**
 * API keys and bridge tokens: random secrets, looked up by SHA-256 (they carry 256 bits of entropy).
 * A resolved credential is remembered for `cacheMs` (2 s by default), which saves a database round
 * trip on nearly every request; in exchange a revocation takes up to that long to reach every process.
 * Unknown tokens are not cached, so a new key works at once.
 */
export class StoredCredentialResolver implements CredentialResolver {
  private readonly cache = new Map<string, { principal: Principal; until: number }>();

  private readonly forget = (credentialId: string) => {
    for (const [hash, entry] of this.cache) if (entry.principal.credentialId === credentialId) this.cache.delete(hash);
  };

  constructor(
    private readonly db: Database,
    private readonly cacheMs = 2000,
  ) {
    storedRevocationListeners.add(this.forget);
  }

  /** Stops listening for revocations (the app's close). */
  dispose(): void {
    storedRevocationListeners.delete(this.forget);
  }

  accepts(token: string): boolean {
    return token.startsWith(API_KEY_PREFIX) || token.startsWith(BRIDGE_TOKEN_PREFIX);
  }

  async resolve(token: string): Promise<Principal | null> {
    const hash = hashSecret(token);
    const now = Date.now();
    const cached = this.cache.get(hash);
    if (cached && cached.until > now) return cached.principal;
    this.cache.delete(hash);
    const [row] = await this.db.query<CredentialRow>(`select * from firstcrack_credential_by_hash($1)`, [hash]);
    if (!row) return null;
    const principal = toPrincipal(row);
    if (this.cacheMs > 0) {
      if (this.cache.size >= 10_000) this.cache.delete(this.cache.keys().next().value!); // oldest first
      this.cache.set(hash, { principal, until: now + this.cacheMs });
    }
    return principal;
  }

  async ended(orgId: string, sources: readonly CredentialSource[]): Promise<CredentialSource[]> {
    const stored = sources.filter((s) => s.kind === 'stored');
    if (stored.length === 0) return [];
    const ended = await this.db.transaction(
      (tx) =>
        tx.query<{ id: string }>(
          `select id from credentials where org_id = $1 and id = any($2::text[]) and (revoked_at is not null or expires_at <= now())`,
          [orgId, [...new Set(stored.map((s) => s.id))]],
        ),
      { orgId, readOnly: true },
    );
    const gone = new Set(ended.map((r) => r.id));
    return stored.filter((s) => gone.has(s.id));
  }
}

export function toPrincipal(row: CredentialRow): Principal {
  return {
    credentialId: row.id,
    kind: row.kind,
    orgId: row.org_id,
    plan: row.plan,
    role: row.role,
    permissions: row.kind === 'api_key' && row.role ? effectivePermissions(row.role, row.scopes) : new Set(),
    machineId: row.machine_id,
    source: { kind: 'stored', id: row.id },
  };
}

export async function resolvePrincipal(resolvers: readonly CredentialResolver[], token: string, orgHeader?: string): Promise<Principal | null> {
  const resolver = resolvers.find((r) => r.accepts(token));
  return resolver ? resolver.resolve(token, orgHeader) : null;
}

export interface IssuedApiKey {
  id: string;
  apiKey: string;
  role: Role;
  scopes: string[];
}

/** A key that could not be used as asked: a scope names no permission, or the scopes leave the role nothing. */
export class ApiKeyRefusedError extends Error {}

/**
 * Every key must be able to do something: its effective permissions (the role's, narrowed by its scopes)
 * are never empty, and every scope names at least one permission.
 */
export async function createApiKey(q: Queryable, orgId: string, role: Role, scopes: string[] = [], label?: string): Promise<IssuedApiKey> {
  const unknown = scopes.filter((scope) => !isValidPattern(scope));
  if (unknown.length) {
    throw new ApiKeyRefusedError(`Unknown scope ${unknown.join(', ')}: use permission names or patterns such as inventory.*`);
  }
  if (effectivePermissions(role, scopes).size === 0) {
    throw new ApiKeyRefusedError(
      `The scopes ${scopes.join(',')} leave a ${role} key no permission (a key holds its role's permissions narrowed by its scopes); ` +
        `choose scopes the ${role} role holds, or another role.`,
    );
  }
  const id = newId('key');
  const apiKey = API_KEY_PREFIX + newSecret();
  await q.query(
    `insert into credentials (org_id, id, kind, role, scopes, secret_hash, label) values ($1, $2, 'api_key', $3, $4, $5, $6)`,
    [orgId, id, role, scopes, hashSecret(apiKey), label ?? null],
  );
  return { id, apiKey, role, scopes };
}

/** Which of the organization's credentials `ids` were revoked or have expired. */
export async function endedCredentials(q: Queryable, orgId: string, ids: readonly string[]): Promise<Set<string>> {
  const rows = await q.query<{ id: string }>(
    `select id from credentials where org_id = $1 and id = any($2::text[]) and (revoked_at is not null or expires_at <= now())`,
    [orgId, [...ids]],
  );
  return new Set(rows.map((r) => r.id));
}

/** Revokes by id; answers whether a live credential was revoked. */
export async function revokeCredential(q: Queryable, credentialId: string): Promise<boolean> {
  const rows = await q.query(`update credentials set revoked_at = now() where id = $1 and revoked_at is null returning id`, [credentialId]);
  return rows.length > 0;
}

export async function issueBridgeToken(q: Queryable, orgId: string, machineId: string, expiresAt: Date): Promise<{ id: string; token: string }> {
  const id = newId('brt');
  const token = BRIDGE_TOKEN_PREFIX + newSecret();
  await q.query(
    `insert into credentials (org_id, id, kind, machine_id, secret_hash, expires_at) values ($1, $2, 'machine_bridge', $3, $4, $5)`,
    [orgId, id, machineId, hashSecret(token), expiresAt],
  );
  return { id, token };
}

/** Ends every live bridge token of a machine; answers how many were live. */
export async function revokeBridgeTokens(q: Queryable, orgId: string, machineId: string): Promise<number> {
  const rows = await q.query(
    `update credentials set revoked_at = now()
     where org_id = $1 and kind = 'machine_bridge' and machine_id = $2 and revoked_at is null and (expires_at is null or expires_at > now())
     returning id`,
    [orgId, machineId],
  );
  return rows.length;
}

// ---------------------------------------------------------------------------------------------------
// API key administration over the API (the identity module's settings operations), in the request's
// transaction: every query names the organization first.

export interface ApiKeyRecord {
  id: string;
  role: Role;
  /** Empty: the key holds all of its role's permissions. */
  scopes: string[];
  label: string | null;
  createdAt: string;
  revokedAt: string | null;
}

interface ApiKeyRow {
  id: string;
  role: Role;
  scopes: string[] | null;
  label: string | null;
  created_at: Date | string;
  revoked_at: Date | string | null;
}

const toApiKey = (r: ApiKeyRow): ApiKeyRecord => ({
  id: r.id,
  role: r.role,
  scopes: r.scopes ?? [],
  label: r.label,
  createdAt: new Date(r.created_at).toISOString(),
  revokedAt: r.revoked_at === null ? null : new Date(r.revoked_at).toISOString(),
});

const API_KEY_COLUMNS = 'id, role, scopes, label, created_at, revoked_at';

/** One page of the organization's API keys, oldest id first (ids are time-sortable); revoked ones only when asked. */
export async function pageApiKeys(q: Queryable, orgId: string, includeRevoked: boolean, after: string | null, limit: number): Promise<ApiKeyRecord[]> {
  const rows = await q.query<ApiKeyRow>(
    `select ${API_KEY_COLUMNS} from credentials
     where org_id = $1 and kind = 'api_key' and ($2::boolean or revoked_at is null) and ($3::text is null or id > $3)
     order by id limit $4`,
    [orgId, includeRevoked, after, limit],
  );
  return rows.map(toApiKey);
}

/** The organization's API key `id` (a bridge token is not one), locked for the request's transaction when asked. */
export async function findApiKey(q: Queryable, orgId: string, id: string, options: { forUpdate?: boolean } = {}): Promise<ApiKeyRecord | undefined> {
  const [row] = await q.query<ApiKeyRow>(
    `select ${API_KEY_COLUMNS} from credentials where org_id = $1 and id = $2 and kind = 'api_key'${options.forUpdate ? ' for update' : ''}`,
    [orgId, id],
  );
  return row && toApiKey(row);
}

/** Revokes the organization's live API key; undefined when it has no live key of that id. */
export async function revokeApiKey(q: Queryable, orgId: string, id: string): Promise<ApiKeyRecord | undefined> {
  const [row] = await q.query<ApiKeyRow>(
    `update credentials set revoked_at = now() where org_id = $1 and id = $2 and kind = 'api_key' and revoked_at is null returning ${API_KEY_COLUMNS}`,
    [orgId, id],
  );
  return row && toApiKey(row);
}

/** How many live API keys of the organization carry the owner role. */
export async function liveOwnerKeyCount(q: Queryable, orgId: string): Promise<number> {
  const [row] = await q.query<{ count: number }>(
    `select count(*)::int as count from credentials where org_id = $1 and kind = 'api_key' and role = 'owner' and revoked_at is null and (expires_at is null or expires_at > now())`,
    [orgId],
  );
  return row.count;
}
