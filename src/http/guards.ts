import type { FastifyReply, FastifyRequest } from 'fastify';
import { resolvePrincipal, type CredentialResolver, type Principal } from '../auth/credentials.js';
import { requireGrant } from '../auth/grant.js';
import type { Permission } from '../auth/permissions.js';
import type { Feature } from '../auth/plans.js';
import type { RateLimiter } from '../ratelimit/limiter.js';
import { ProblemError } from '../rpc/errors.js';

/**
 * The one guard chain every HTTP surface runs before it does any work: authenticate → limit → grant.
 * /rpc/v1/ composes it here (guardChain); every other surface's is built from its declaration (src/http/surface.ts:
 * the credentials it takes, the budgets it draws on, what must be granted). No surface checks a credential,
 * counts a request or checks a permission any other way.
 */

/** Who a request is counted and granted as, once authenticated. */
export interface Caller {
  /** Absent for an anonymous caller (public pages). */
  principal?: Principal;
  /** The key the request is counted under; absent when this use was counted already (a stream ticket's issue). */
  budgetKey?: string;
  /** What an authenticator resolved that is not a principal: the OAuth client at the token and introspection endpoints. */
  subject?: unknown;
}

/** Turns a request into its caller, or throws the problem (401, 403) that refuses it. */
export type Authenticate = (request: FastifyRequest) => Promise<Caller>;

/** What the caller's plan and credential must grant: the plan feature enabled and the permission held. */
export interface Requirement {
  feature: Feature;
  permission: Permission;
}

export interface GuardChain<R extends FastifyRequest = FastifyRequest> {
  authenticate: Authenticate;
  limiter: RateLimiter;
  /** The requirement of this request, or null when being authenticated is all it needs. May refuse itself (404, 405). */
  grant: (request: R, caller: Caller) => Requirement | null;
  /**
   * The points this request draws, as far as they are known before its body is read (1 when absent): a
   * request refused for its cost is refused before its body is parsed.
   */
  points?: (request: R) => number;
}

/**
 * The composed chain: answers the admitted caller (and sets request.principal), or throws the first
 * refusal. The RateLimit headers go on the reply whatever follows.
 */
export function guardChain<R extends FastifyRequest = FastifyRequest>(chain: GuardChain<R>) {
  return async function admit(request: R, reply: FastifyReply): Promise<Caller> {
    const caller = await chain.authenticate(request);
    if (caller.budgetKey !== undefined) {
      await limit(chain.limiter, caller.budgetKey, chain.points?.(request) ?? 1, caller.principal ? 'credential' : 'address', reply);
    }
    const requirement = chain.grant(request, caller);
    if (requirement) {
      if (!caller.principal) throw unauthorized('This request needs a credential.');
      requireGrant(caller.principal, requirement.feature, requirement.permission);
    }
    request.principal = caller.principal;
    return caller;
  };
}

// ---------------------------------------------------------------------------------------------------
// Authentication: the kinds of caller a surface can take.

export const unauthorized = (detail: string) =>
  new ProblemError(401, 'unauthenticated', detail, {}, { 'WWW-Authenticate': 'Bearer realm="firstcrack"' });

/** RFC 6750 §3.1: a token was sent and is not valid (unknown, expired, revoked, a bad signature). */
const invalidToken = (detail: string) =>
  new ProblemError(401, 'unauthenticated', detail, {}, { 'WWW-Authenticate': 'Bearer realm="firstcrack", error="invalid_token"' });

export interface BearerPolicy {
  /** The credential kinds this surface takes. */
  accepts: (kind: Principal['kind']) => boolean;
  /** The problem a valid credential of another kind gets. */
  refusal: (kind: Principal['kind']) => ProblemError;
}

/**
 * A credential in `Authorization: Bearer <token>`, counted under its own id: 401 when there is none or it is
 * not valid, the policy's refusal when it is of a kind the surface does not take, 403 organization_mismatch
 * when X-Service-Org names another organization than a machine credential's (never a switch). A user
 * credential acts in the organization X-Service-Org names: its resolver answers 400 organization_required
 * without the header and 404 organization_not_found when the user is not a member there.
 */
export function bearerCredential(resolvers: readonly CredentialResolver[], policy: BearerPolicy): Authenticate {
  return async (request) => {
    const header = request.headers.authorization;
    const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match) throw unauthorized('Send a credential as Authorization: Bearer <API key or access token>.');
    const orgHeader = request.headers['x-service-org'];
    const principal = await resolvePrincipal(resolvers, match[1], typeof orgHeader === 'string' ? orgHeader : undefined);
    if (!principal) throw invalidToken('The credential is not valid, expired or revoked.');
    if (!policy.accepts(principal.kind)) throw policy.refusal(principal.kind);
    if (orgHeader !== undefined && orgHeader !== principal.orgId) {
      throw new ProblemError(403, 'organization_mismatch', 'This credential is bound to another organization than X-Service-Org names.');
    }
    return { principal, budgetKey: principal.credentialId };
  };
}

/** The API's own callers: any credential but a machine bridge token, which may only post telemetry. */
export const API_CALLERS: BearerPolicy = {
  accepts: (kind) => kind !== 'machine_bridge',
  refusal: () => new ProblemError(403, 'bridge_token_not_allowed', 'A machine bridge token may only post telemetry to /ingest/v1/.'),
};

/** No credential: counted per client address (as fastify's trustProxy setting determines it). */
export const anonymousByAddress: Authenticate = async (request) => ({ budgetKey: `ip:${request.ip}` });

// ---------------------------------------------------------------------------------------------------
// Limiting.

/**
 * Draws `points` from `limiter` for one request whose whole cost is `cost` (more than `points` when part of it
 * was drawn already); the RateLimit headers (and RateLimit-Cost, when more than 1) go on every answer, 429 past
 * the budget.
 */
export async function limit(
  limiter: RateLimiter,
  key: string,
  points: number,
  countedPer: string,
  reply: FastifyReply,
  cost = points,
): Promise<void> {
  // More than a whole window holds is never admitted, however long the caller waits: a 413, not a 429 to retry.
  if (cost > limiter.capacity) {
    throw new ProblemError(413, 'request_too_costly', `This request costs ${cost} points, more than the ${limiter.capacity} this ${countedPer}'s budget holds per window; send a smaller one.`, { cost });
  }
  const decision = await limiter.consume(key, points);
  reply.headers(decision.headers);
  if (cost > 1) reply.header('RateLimit-Cost', String(cost));
  if (!decision.allowed) {
    const retryAfter = decision.headers['Retry-After'];
    const detail =
      cost > 1
        ? `This request costs ${cost} points, more than this ${countedPer} has left; wait for Retry-After seconds.`
        : `Too many requests for this ${countedPer}; wait for Retry-After seconds.`;
    throw new ProblemError(429, 'rate_limited', detail, cost > 1 ? { cost } : {}, retryAfter ? { 'Retry-After': retryAfter } : {});
  }
}
