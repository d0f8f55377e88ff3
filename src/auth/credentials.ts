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
   * another role now. Read afresh, never from a cache: open streams ask it every STREAM_CREDENTIAL_CHECK_MS (src/streaming/fan-out.ts).
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

/**
 * API keys and bridge tokens: random secrets, looked up by SHA-256 (they carry 256 bits of entropy).
 * A resolved credential is remembered for `cacheMs` (2 s by default), which saves a database round
 * trip on nearly every request; in exchange a revocation takes up to that long to reach every process.
 * Unknown tokens are not cached, so a new key works at once.
 */
export class StoredCredentialResolver implements CredentialResolver {
  private readonly cache = new Map<string, { principal: Principal; until: number }>();

  constructor(
    private readonly db: Database,
    private readonly cacheMs = 2000,
  ) {}

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
