import type { FastifyReply, FastifyRequest } from 'fastify';
import { resolvePrincipal, type CredentialResolver, type Principal } from '../auth/credentials.js';
import type { RateLimiter } from '../ratelimit/limiter.js';
import { ProblemError } from '../rpc/errors.js';

/**
 * The checks every HTTP entry point runs before it does any work: who is calling, on whose behalf, and
 * within which budget. /rpc/v1/, /ingest/v1/ and /stream/v1/ compose them; none re-implements them.
 */

export const unauthorized = (detail: string) =>
  new ProblemError(401, 'unauthenticated', detail, {}, { 'WWW-Authenticate': 'Bearer realm="firstcrack"' });

/** The principal behind `Authorization: Bearer <token>`, of any kind; 401 when there is none or it is not valid. */
export async function authenticateBearer(resolvers: CredentialResolver[], request: FastifyRequest): Promise<Principal> {
  const header = request.headers.authorization;
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (!match) throw unauthorized('Send a credential as Authorization: Bearer <API key>.');
  const principal = await resolvePrincipal(resolvers, match[1]);
  if (!principal) throw unauthorized('The credential is not valid, expired or revoked.');
  return principal;
}

/** A credential is permanently bound to its organization: an X-Service-Org naming another is refused, never switched. */
export function requireBoundOrganization(principal: Principal, request: FastifyRequest): void {
  const orgHeader = request.headers['x-service-org'];
  if (orgHeader !== undefined && orgHeader !== principal.orgId) {
    throw new ProblemError(403, 'organization_mismatch', 'This credential is bound to another organization than X-Service-Org names.');
  }
}

/** The API's own callers: anything but a machine bridge token, which may only post telemetry. */
export async function authenticateApiCaller(resolvers: CredentialResolver[], request: FastifyRequest): Promise<Principal> {
  const principal = await authenticateBearer(resolvers, request);
  if (principal.kind === 'machine_bridge') {
    throw new ProblemError(403, 'bridge_token_not_allowed', 'A machine bridge token may only post telemetry to /ingest/v1/.');
  }
  requireBoundOrganization(principal, request);
  return principal;
}

/** Counts one request against `limiter` for the credential; the RateLimit headers go on every answer, 429 past the budget. */
export async function consumeRateLimit(limiter: RateLimiter, principal: Principal, reply: FastifyReply): Promise<void> {
  const decision = await limiter.consume(principal.credentialId);
  reply.headers(decision.headers);
  if (!decision.allowed) {
    throw new ProblemError(429, 'rate_limited', 'Too many requests for this credential; wait for Retry-After seconds.');
  }
}
