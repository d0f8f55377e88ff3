import { timingSafeEqual } from 'node:crypto';
import { SignJWT, exportJWK, exportPKCS8, generateKeyPair, importJWK, importPKCS8, jwtVerify, errors as joseErrors, type JWTPayload } from 'jose';
import type { Database } from '../../db/client.js';
import { newId, newSecret } from '../../lib/ids.js';
import { hashSecret, type CredentialResolver, type CredentialSource, type Principal } from '../../auth/credentials.js';
import { effectivePermissions, isValidPattern, ROLES, ROLE_PERMISSIONS, type Role } from '../../auth/permissions.js';
import type { Plan } from '../../auth/plans.js';
import { EncryptionKeyError, type KeyEncryption } from '../../auth/key-encryption.js';
import { ProblemError } from '../../rpc/errors.js';
import * as repo from './repository.js';
import { verifyPassword } from './passwords.js';

/** The service's clock; tests move it to expire tokens and keys without waiting. */
export type Clock = () => Date;

/** RFC 6749 §4.4 access tokens live one hour (the specification's limit); there is no refresh. */
export const ACCESS_TOKEN_SECONDS = 3600;
/**
 * How far the clock of the process that issued a JWT may run ahead of the one checking it: a token issued
 * more than this far in the future was not issued by this service.
 */
export const JWT_CLOCK_SKEW_SECONDS = 30;
/** A user session lives 12 hours unless logged out sooner. */
export const SESSION_SECONDS = 12 * 3600;
/** A retired signing key stays published this long: every token it signed has expired by then, also one signed by a process that had not yet seen the rotation (its key cache lives KEY_CACHE_MS). */
export const RETIRED_KEY_PUBLISHED_SECONDS = ACCESS_TOKEN_SECONDS + 300;
const KEY_CACHE_MS = 60_000;
/** How stale an organization's plan may be for a JWT's principal (the token does not carry it). */
const PLAN_CACHE_MS = 30_000;
const JWT_ALG = 'ES256';
/**
 * How long a process remembers a resolved opaque token. Revoking a client in this process forgets its
 * tokens at once (see announceClientRevoked); another API process may accept them for up to this long after.
 * Introspection never uses the cache, so it answers inactive at once everywhere.
 */
export const OPAQUE_CACHE_MS = 1000;

const revocationListeners = new Set<(clientId: string) => void>();

/** Tells every Identity in this process that a client was revoked, so none keeps its opaque tokens cached. */
export function announceClientRevoked(clientId: string): void {
  for (const listener of revocationListeners) listener(clientId);
}

export const OPAQUE_TOKEN_PREFIX = 'fco_';
export const SESSION_TOKEN_PREFIX = 'fcu_';
export const LOGIN_LINK_PREFIX = 'fcl_';
export const CLIENT_SECRET_PREFIX = 'fccs_';
const JWT_SHAPE = /^eyJ[\w-]*\.[\w-]+\.[\w-]+$/;

/** An RFC 6749 §5.2 error: `{ error, error_description }` with its status (401 with WWW-Authenticate for invalid_client). */
export class OAuthError extends Error {
  constructor(
    readonly status: number,
    readonly error: 'invalid_request' | 'invalid_client' | 'invalid_grant' | 'unsupported_grant_type' | 'invalid_scope' | 'invalid_target' | 'unauthorized_client',
    description: string,
  ) {
    super(description);
  }
}

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
}

interface PublishedKey {
  row: repo.SigningKeyRow;
  verify: CryptoKey | Uint8Array;
}

interface KeySet {
  loadedAt: number;
  published: Map<string, PublishedKey>;
  /** The newest live key and its private half; undefined when no key exists yet. */
  signer?: { kid: string; privateKey: CryptoKey };
}

export interface IdentityOptions {
  db: Database;
  keyEncryption: KeyEncryption;
  /** This service's base URL: the JWT issuer and the only resource tokens are issued for. */
  baseUrl: () => string;
  clock?: Clock;
}

const trimSlash = (url: string) => url.replace(/\/+$/, '');

/** Whether scope pattern `wanted` asks for nothing beyond what `held` grants. */
function covered(wanted: string, held: string): boolean {
  if (held === '*' || wanted === held) return true;
  return held.endsWith('.*') && wanted !== '*' && wanted.startsWith(held.slice(0, -1));
}

/**
 * The authorization server: client authentication, token issuance (JWT and opaque), introspection, signing
 * keys and their publication, user login and sessions, and the resolvers that turn each kind of token into a
 * Principal on every request.
 */
export class Identity {
  readonly now: Clock;
  private keys?: KeySet;
  private keysLoading?: Promise<KeySet>;
  private readonly verified = new Map<string, { principal: Principal; claims: JWTPayload; exp: number }>();
  private readonly plans = new Map<string, { plan: Plan; until: number }>();
  private readonly opaque = new Map<string, { principal: Principal; until: number; expiresAt: number }>();
  private readonly forgetClient = (clientId: string) => {
    for (const [hash, entry] of this.opaque) if (entry.principal.credentialId === clientId) this.opaque.delete(hash);
  };

  constructor(private readonly options: IdentityOptions) {
    this.now = options.clock ?? (() => new Date());
    revocationListeners.add(this.forgetClient);
  }

  /** Stops listening for revocations (the app's close). */
  dispose(): void {
    revocationListeners.delete(this.forgetClient);
  }

  issuer(): string {
    return trimSlash(this.options.baseUrl());
  }

  // -------------------------------------------------------------------------------------------------
  // Clients and tokens

  /** The live client whose secret this is, or invalid_client (401). Compared in constant time. */
  async authenticateClient(clientId: string, secret: string): Promise<repo.LiveClient> {
    const client = clientId.length <= 64 ? await repo.liveClient(this.options.db, clientId) : undefined;
    const given = Buffer.from(hashSecret(secret), 'hex');
    const expected = Buffer.from(client?.secret_hash ?? hashSecret('no client'), 'hex');
    if (!client || !timingSafeEqual(given, expected)) throw new OAuthError(401, 'invalid_client', 'Client authentication failed: unknown client, wrong secret or revoked client.');
    return client;
  }

  /**
   * The scope a token gets: the requested patterns, each within the client's scopes (narrowing only,
   * else invalid_scope); without a request, the client's own scopes (`*` when it has none).
   */
  grantedScope(client: repo.LiveClient, requested: string | undefined): string[] {
    const held = client.scopes.length ? client.scopes : ['*'];
    if (requested === undefined) return held;
    const wanted = requested.split(' ');
    if (requested === '' || wanted.some((w) => w === '')) throw new OAuthError(400, 'invalid_scope', 'scope is a space-separated list of permission names or patterns.');
    const unknown = wanted.filter((w) => !isValidPattern(w));
    if (unknown.length) throw new OAuthError(400, 'invalid_scope', `Unknown scope ${unknown.join(', ')}: use permission names or patterns such as inventory.*.`);
    const beyond = wanted.filter((w) => !held.some((h) => covered(w, h)));
    if (beyond.length) throw new OAuthError(400, 'invalid_scope', `The scope ${beyond.join(', ')} exceeds the client's scopes (${held.join(' ')}); a token can only be narrowed.`);
    if (effectivePermissions(client.role, wanted).size === 0) {
      throw new OAuthError(400, 'invalid_scope', `The scope ${requested} leaves a ${client.role} client no permission.`);
    }
    return [...new Set(wanted)];
  }

  /** RFC 6749 §4.4.3: a JWT when `resource` names this service (RFC 8707, RFC 9068), an opaque token without one. */
  async issueToken(client: repo.LiveClient, request: { scope?: string; resource?: string }): Promise<TokenResponse> {
    const scope = this.grantedScope(client, request.scope);
    const issuedAt = this.now();
    const expiresAt = new Date(issuedAt.getTime() + ACCESS_TOKEN_SECONDS * 1000);
    if (request.resource !== undefined) {
      if (trimSlash(request.resource) !== this.issuer()) {
        throw new OAuthError(400, 'invalid_target', `Tokens are issued only for this service, resource=${this.issuer()}.`);
      }
      const { kid, privateKey } = await this.signer();
      const iat = Math.floor(issuedAt.getTime() / 1000);
      const token = await new SignJWT({ client_id: client.id, org: client.org_id, scope: scope.join(' '), roles: [client.role] })
        .setProtectedHeader({ alg: JWT_ALG, typ: 'at+jwt', kid })
        .setIssuer(this.issuer())
        .setAudience(this.issuer())
        .setSubject(client.id)
        .setIssuedAt(iat)
        .setExpirationTime(iat + ACCESS_TOKEN_SECONDS)
        .setJti(newId('jti'))
        .sign(privateKey);
      return { access_token: token, token_type: 'Bearer', expires_in: ACCESS_TOKEN_SECONDS, scope: scope.join(' ') };
    }
    const token = OPAQUE_TOKEN_PREFIX + newSecret();
    await this.options.db.transaction(
      async (tx) => {
        await repo.deleteExpiredAccessTokens(tx, client.org_id, issuedAt);
        await repo.insertAccessToken(tx, client.org_id, { id: newId('oat'), clientId: client.id, hash: hashSecret(token), scope, issuedAt, expiresAt });
      },
      { orgId: client.org_id },
    );
    return { access_token: token, token_type: 'Bearer', expires_in: ACCESS_TOKEN_SECONDS, scope: scope.join(' ') };
  }

  /**
   * RFC 7662: `{ active: false }` for anything but a live token of the asking client's organization (another
   * organization's token is none of its business); otherwise the token's claims.
   */
  async introspect(token: string, asking: repo.LiveClient): Promise<Record<string, unknown>> {
    const inactive = { active: false };
    if (token.startsWith(OPAQUE_TOKEN_PREFIX)) {
      const row = await repo.liveAccessToken(this.options.db, hashSecret(token), this.now());
      if (!row || row.org_id !== asking.org_id) return inactive;
      return {
        active: true,
        scope: row.scope.join(' '),
        client_id: row.client_id,
        token_type: 'Bearer',
        exp: Math.floor(new Date(row.expires_at).getTime() / 1000),
        iat: Math.floor(new Date(row.issued_at).getTime() / 1000),
        sub: row.client_id,
        iss: this.issuer(),
        org: row.org_id,
      };
    }
    if (JWT_SHAPE.test(token)) {
      const claims = await this.verifyJwt(token);
      if (!claims || claims.org !== asking.org_id) return inactive;
      return {
        active: true,
        scope: claims.scope,
        client_id: claims.client_id,
        token_type: 'Bearer',
        exp: claims.exp,
        iat: claims.iat,
        sub: claims.sub,
        aud: claims.aud,
        iss: claims.iss,
        jti: claims.jti,
        org: claims.org,
      };
    }
    return inactive;
  }

  // -------------------------------------------------------------------------------------------------
  // Signing keys

  /** RFC 7517 JWK Set of every published key (live, and retired ones until their tokens have expired). */
  async jwks(): Promise<{ keys: Record<string, unknown>[] }> {
    // The first key is made here when it can be; without an encryption key the published ones are still served.
    const set = await this.keySet({ ensureSigner: true }).catch(async (error) => {
      if (error instanceof EncryptionKeyError) return this.keySet();
      throw error;
    });
    return { keys: [...set.published.values()].map((k) => k.row.public_jwk) };
  }

  /** RFC 8414 authorization server metadata. */
  metadata(): Record<string, unknown> {
    const issuer = this.issuer();
    return {
      issuer,
      token_endpoint: `${issuer}/api/auth/oauth2/token`,
      jwks_uri: `${issuer}/api/auth/oauth2/jwks`,
      introspection_endpoint: `${issuer}/api/auth/oauth2/introspect`,
      grant_types_supported: ['client_credentials'],
      response_types_supported: [],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      scopes_supported: [...ROLE_PERMISSIONS.owner].sort(),
      service_documentation: `${issuer}/docs`,
    };
  }

  /** Adds a signing key that signs from now on; the others stop signing and stay published until their tokens have expired. */
  async rotateKeys(): Promise<{ kid: string; retired: string[] }> {
    const result = await this.options.db.transaction(async (tx) => {
      await repo.lockSigningKeys(tx);
      const kid = await this.createKey(tx);
      return { kid, retired: await repo.retireKeysExcept(tx, kid, this.now()) };
    });
    this.keys = undefined;
    return result;
  }

  private async createKey(tx: Parameters<typeof repo.insertSigningKey>[0]): Promise<string> {
    const { publicKey, privateKey } = await generateKeyPair(JWT_ALG, { extractable: true });
    const kid = newId('kid');
    const jwk = { ...(await exportJWK(publicKey)), kid, alg: JWT_ALG, use: 'sig' };
    await repo.insertSigningKey(tx, {
      id: kid,
      alg: JWT_ALG,
      public_jwk: jwk,
      private_key_encrypted: this.options.keyEncryption.encrypt(await exportPKCS8(privateKey)),
      created_at: this.now(),
    });
    return kid;
  }

  private async signer(): Promise<{ kid: string; privateKey: CryptoKey }> {
    const set = await this.keySet({ ensureSigner: true });
    return set.signer!;
  }

  /** The published keys, cached for a minute; reloaded sooner when a token names an unknown key. */
  private async keySet(options: { ensureSigner?: boolean; unknownKid?: string } = {}): Promise<KeySet> {
    const fresh = this.keys && Date.now() - this.keys.loadedAt < KEY_CACHE_MS;
    const stale = !fresh || (options.ensureSigner && !this.keys!.signer) || (options.unknownKid && !this.keys!.published.has(options.unknownKid) && Date.now() - this.keys!.loadedAt > 1000);
    if (!stale) return this.keys!;
    this.keysLoading ??= this.loadKeys(options.ensureSigner ?? false).finally(() => (this.keysLoading = undefined));
    this.keys = await this.keysLoading;
    if (options.ensureSigner && !this.keys.signer) this.keys = await this.loadKeys(true);
    return this.keys;
  }

  private async loadKeys(ensureSigner: boolean): Promise<KeySet> {
    const db = this.options.db;
    let rows = await repo.publishedKeys(db, this.now(), RETIRED_KEY_PUBLISHED_SECONDS);
    if (ensureSigner && !rows.some((r) => r.retired_at === null)) {
      // The first signer creates the first key; the lock makes concurrent first signers agree on one.
      await db.transaction(async (tx) => {
        await repo.lockSigningKeys(tx);
        if ((await repo.liveKeyCount(tx)) === 0) await this.createKey(tx);
      });
      rows = await repo.publishedKeys(db, this.now(), RETIRED_KEY_PUBLISHED_SECONDS);
    }
    const published = new Map<string, PublishedKey>();
    for (const row of rows) published.set(row.id, { row, verify: await importJWK(row.public_jwk, row.alg) });
    const live = rows.find((r) => r.retired_at === null);
    const signer = live ? { kid: live.id, privateKey: await importPKCS8(this.options.keyEncryption.decrypt(live.private_key_encrypted), live.alg) } : undefined;
    return { loadedAt: Date.now(), published, signer };
  }

  /**
   * The claims of a JWT access token this service issued that is valid now (RFC 9068 §4), or null: its
   * signature by a published key, issuer, audience, type, algorithm, the claims it is issued with, not
   * expired, issued no later than now + JWT_CLOCK_SKEW_SECONDS, and living no longer than
   * ACCESS_TOKEN_SECONDS (a token claiming more is not one this service issued, whatever key signed it).
   */
  async verifyJwt(token: string): Promise<(JWTPayload & { client_id: string; org: string; scope: string; roles: string[] }) | null> {
    try {
      const { payload } = await jwtVerify(
        token,
        async (header) => {
          const kid = header.kid ?? '';
          const key = (await this.keySet()).published.get(kid) ?? (await this.keySet({ unknownKid: kid })).published.get(kid);
          if (!key) throw new joseErrors.JWKSNoMatchingKey();
          return key.verify;
        },
        {
          issuer: this.issuer(),
          audience: this.issuer(),
          typ: 'at+jwt',
          algorithms: [JWT_ALG],
          currentDate: this.now(),
          requiredClaims: ['iss', 'aud', 'sub', 'exp', 'iat', 'jti', 'client_id', 'org', 'scope'],
        },
      );
      if (typeof payload.client_id !== 'string' || typeof payload.org !== 'string' || typeof payload.scope !== 'string') return null;
      const nowSeconds = this.now().getTime() / 1000;
      if (payload.iat! > nowSeconds + JWT_CLOCK_SKEW_SECONDS || payload.exp! - payload.iat! > ACCESS_TOKEN_SECONDS) return null;
      if (!Array.isArray(payload.roles) || !ROLES.includes(payload.roles[0])) return null;
      return payload as JWTPayload & { client_id: string; org: string; scope: string; roles: string[] };
    } catch (error) {
      if (error instanceof joseErrors.JOSEError) return null;
      throw error;
    }
  }

  private async planOf(orgId: string): Promise<Plan | undefined> {
    const cached = this.plans.get(orgId);
    if (cached && cached.until > Date.now()) return cached.plan;
    const plan = await repo.organizationPlan(this.options.db, orgId);
    if (plan) {
      if (this.plans.size >= 10_000) this.plans.delete(this.plans.keys().next().value!);
      this.plans.set(orgId, { plan, until: Date.now() + PLAN_CACHE_MS });
    }
    return plan;
  }

  // -------------------------------------------------------------------------------------------------
  // Users

  /** A user by email and password, or null (the same time either way). */
  async userByPassword(email: string, password: string): Promise<repo.UserRow | null> {
    const user = await repo.findUserByEmail(this.options.db, email);
    const ok = await verifyPassword(password, user?.password_hash);
    return ok && user ? user : null;
  }

  async userByLoginLink(token: string): Promise<repo.UserRow | null> {
    if (!token.startsWith(LOGIN_LINK_PREFIX)) return null;
    return (await repo.spendLoginLink(this.options.db, hashSecret(token), this.now())) ?? null;
  }

  /** Opens a session for the user: its token (shown once), expiry, and the organizations it may act in. */
  async openSession(user: repo.UserRow): Promise<{ token: string; expiresAt: string; organizations: { id: string; name: string; role: Role }[] }> {
    const token = SESSION_TOKEN_PREFIX + newSecret();
    const createdAt = this.now();
    const expiresAt = new Date(createdAt.getTime() + SESSION_SECONDS * 1000);
    await repo.insertSession(this.options.db, { id: newId('ses'), userId: user.id, hash: hashSecret(token), createdAt, expiresAt });
    const memberships = await repo.userMemberships(this.options.db, user.id);
    return { token, expiresAt: expiresAt.toISOString(), organizations: memberships.map((m) => ({ id: m.org_id, name: m.name, role: m.role })) };
  }

  /** Ends the session; answers whether it was live. */
  async logout(token: string): Promise<boolean> {
    if (!token.startsWith(SESSION_TOKEN_PREFIX)) return false;
    return repo.revokeSession(this.options.db, hashSecret(token), this.now());
  }

  // -------------------------------------------------------------------------------------------------
  // Resolvers: each kind of token to a Principal, on every request.

  resolvers(): CredentialResolver[] {
    return [
      { accepts: (token) => JWT_SHAPE.test(token), resolve: (token) => this.resolveJwt(token), ended: async (_org, sources) => this.expiredJwts(sources) },
      { accepts: (token) => token.startsWith(OPAQUE_TOKEN_PREFIX), resolve: (token) => this.resolveOpaque(token), ended: (org, sources) => this.endedOpaque(org, sources) },
      {
        accepts: (token) => token.startsWith(SESSION_TOKEN_PREFIX),
        resolve: (token, org) => this.resolveSession(token, org),
        ended: (org, sources) => this.endedSessions(org, sources),
      },
    ];
  }

  /** A JWT ends only when it expires: revoking its client does not reach it (it is stateless). */
  private expiredJwts(sources: readonly CredentialSource[]): CredentialSource[] {
    const nowSeconds = this.now().getTime() / 1000;
    return sources.filter((s) => s.kind === 'jwt' && s.expiresAt <= nowSeconds);
  }

  /** Opaque tokens expired, or whose client was revoked. */
  private async endedOpaque(orgId: string, sources: readonly CredentialSource[]): Promise<CredentialSource[]> {
    const tokens = sources.filter((s) => s.kind === 'oauth_token');
    if (tokens.length === 0) return [];
    const db = this.options.db;
    const live = new Set(await db.transaction((tx) => repo.liveAccessTokenIds(tx, orgId, [...new Set(tokens.map((s) => s.id))], this.now()), { orgId, readOnly: true }));
    return tokens.filter((s) => !live.has(s.id));
  }

  /** Sessions logged out or expired, or whose user is no longer a member of the organization with the role the session acted with. */
  private async endedSessions(orgId: string, sources: readonly CredentialSource[]): Promise<CredentialSource[]> {
    const sessions = sources.filter((s) => s.kind === 'user_session');
    if (sessions.length === 0) return [];
    const db = this.options.db;
    const live = await db.transaction((tx) => repo.liveSessionRoles(tx, orgId, [...new Set(sessions.map((s) => s.id))], this.now()), { orgId, readOnly: true });
    const roles = new Map(live.map((r) => [r.session_id, r.role]));
    return sessions.filter((s) => roles.get(s.id) !== s.role);
  }

  /**
   * Stateless: signature, issuer, audience, type and expiry. A verified token is remembered (until it
   * expires) so its signature is checked once per process, not per request. Revoking the client does not
   * end its JWTs before they expire (at most one hour); opaque tokens end at once.
   */
  private async resolveJwt(token: string): Promise<Principal | null> {
    const nowSeconds = this.now().getTime() / 1000;
    const cached = this.verified.get(token);
    if (cached && cached.exp > nowSeconds) return this.withPlan(cached.principal);
    if (cached) this.verified.delete(token);
    const claims = await this.verifyJwt(token);
    if (!claims) return null;
    const role = claims.roles[0] as Role;
    const principal: Principal = {
      credentialId: claims.client_id,
      kind: 'oauth_client',
      orgId: claims.org,
      plan: 'free',
      role,
      permissions: effectivePermissions(role, claims.scope.split(' ')),
      machineId: null,
      source: { kind: 'jwt', id: String(claims.jti), expiresAt: claims.exp! },
    };
    if (this.verified.size >= 10_000) this.verified.delete(this.verified.keys().next().value!);
    this.verified.set(token, { principal, claims, exp: claims.exp! });
    return this.withPlan(principal);
  }

  private async withPlan(principal: Principal): Promise<Principal | null> {
    const plan = await this.planOf(principal.orgId);
    return plan ? { ...principal, plan } : null;
  }

  /**
   * Looked up in the database and remembered for OPAQUE_CACHE_MS (never past the token's expiry by the
   * service clock); a revocation in this process forgets the client's tokens at once.
   */
  private async resolveOpaque(token: string): Promise<Principal | null> {
    const hash = hashSecret(token);
    const cached = this.opaque.get(hash);
    if (cached && cached.until > Date.now() && cached.expiresAt > this.now().getTime()) return cached.principal;
    this.opaque.delete(hash);
    const row = await repo.liveAccessToken(this.options.db, hash, this.now());
    if (!row) return null;
    const principal: Principal = {
      credentialId: row.client_id,
      kind: 'oauth_client',
      orgId: row.org_id,
      plan: row.plan,
      role: row.role,
      permissions: effectivePermissions(row.role, row.scope),
      machineId: null,
      source: { kind: 'oauth_token', id: row.id },
    };
    if (this.opaque.size >= 10_000) this.opaque.delete(this.opaque.keys().next().value!);
    this.opaque.set(hash, { principal, until: Date.now() + OPAQUE_CACHE_MS, expiresAt: new Date(row.expires_at).getTime() });
    return principal;
  }

  /**
   * A user session acts in the organization X-Service-Org names, with the user's role there: 400
   * organization_required without the header, 404 organization_not_found when the user is no member there
   * (whether or not the organization exists, as for any other organization's ids).
   */
  private async resolveSession(token: string, orgHeader: string | undefined): Promise<Principal | null> {
    const row = await repo.liveSession(this.options.db, hashSecret(token), orgHeader ?? '', this.now());
    if (!row) return null;
    if (!orgHeader) {
      throw new ProblemError(400, 'organization_required', 'A user credential acts in one of its organizations: name it in X-Service-Org.');
    }
    if (!row.role || !row.plan) {
      throw new ProblemError(404, 'organization_not_found', `The user is not a member of an organization ${orgHeader}.`);
    }
    return {
      credentialId: row.user_id,
      kind: 'user',
      orgId: orgHeader,
      plan: row.plan,
      role: row.role,
      permissions: ROLE_PERMISSIONS[row.role],
      machineId: null,
      source: { kind: 'user_session', id: row.session_id, role: row.role },
    };
  }
}
