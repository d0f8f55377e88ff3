import type { FastifyInstance } from 'fastify';
import type { RateLimiter } from '../ratelimit/limiter.js';
import { ProblemError } from '../rpc/errors.js';

/**
 * Failed authentication is budgeted per client address, on every surface: an address is answered 401 at
 * most as often as the budget allows; the failure past it is answered 429 (with Retry-After) instead, and so
 * is everything the address sends until the window has passed, without looking its credentials up. Counted in Redis when REDIS_URL is
 * set, so the budget is shared by every API process; each process then remembers the block locally, so a
 * blocked flood costs neither a credential lookup nor a Redis round trip per request. Its windows are the
 * `failed_auth` budget (src/ratelimit/budgets.ts).
 */

/** Blocked addresses remembered per process; past this many, expired ones are swept on the next block. */
const SWEEP_AT = 10_000;

const blocked = (seconds: number) =>
  new ProblemError(429, 'rate_limited', 'Too many failed authentications from this address; wait for Retry-After seconds.', {}, {
    'Retry-After': String(seconds),
  });

export function failedAuthenticationBudget(limiter: RateLimiter) {
  const blockedUntil = new Map<string, number>();
  return (app: FastifyInstance) => {
    // Both hooks take a callback rather than returning a promise: on the hot path (an address not blocked,
    // an answer other than 401) they finish at once, and the reply is written without waiting a tick.
    app.addHook('onRequest', (request, _reply, done) => {
      const until = blockedUntil.get(request.ip);
      if (until === undefined) return done();
      const seconds = Math.ceil((until - Date.now()) / 1000);
      if (seconds <= 0) {
        blockedUntil.delete(request.ip);
        return done();
      }
      done(blocked(seconds));
    });
    // Counted before the 401 is written (onSend, not onResponse), so a client that sends again as soon as
    // it reads its answer already meets the block that answer earned. The failure the budget refuses is
    // answered 429 itself: processes sharing the budget through Redis each learn of the block only from a
    // refused draw, so only this keeps the 401s an address gets across them to the budget exactly.
    app.addHook('onSend', (request, reply, payload, done) => {
      if (reply.statusCode !== 401) return done(null, payload);
      limiter.consume(`ip:${request.ip}`).then(
        (decision) => {
          if (decision.allowed) return done(null, payload);
          if (blockedUntil.size >= SWEEP_AT) for (const [ip, until] of blockedUntil) if (until <= Date.now()) blockedUntil.delete(ip);
          const seconds = Number(decision.headers['Retry-After'] ?? 60);
          blockedUntil.set(request.ip, Date.now() + seconds * 1000);
          request.log.warn({ address: request.ip }, 'address blocked after too many failed authentications');
          const problem = blocked(seconds);
          reply.removeHeader('WWW-Authenticate');
          reply.headers(problem.headers).code(problem.status).type('application/problem+json');
          done(null, JSON.stringify(problem.toProblem()));
        },
        (error: Error) => done(error),
      );
    });
  };
}
