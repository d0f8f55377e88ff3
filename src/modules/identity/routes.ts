import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RateLimiter, RateWindow } from '../../ratelimit/limiter.js';
import { ProblemError } from '../../rpc/errors.js';
import { Identity, OAuthError } from './authority.js';
import type { LiveClient } from './repository.js';

/**
 * The authorization server's HTTP surface: the token and introspection endpoints (RFC 6749 §4.4, RFC 7662),
 * the JWK Set, the RFC 8414 metadata document, and user login and logout. OAuth endpoints answer RFC 6749
 * §5.2 errors (`{ error, error_description }`), not problem documents, because OAuth clients parse those.
 */

/** Login attempts per account (email) and per client address; past either, 429 with Retry-After. */
export const LOGIN_ACCOUNT_WINDOWS: RateWindow[] = [{ name: 'account', points: 10, seconds: 900 }];
export const LOGIN_ADDRESS_WINDOWS: RateWindow[] = [{ name: 'address', points: 100, seconds: 900 }];

export interface IdentityRoutesDeps {
  identity: Identity;
  /** The API budget: token and introspection requests are counted against the authenticated client, like its API calls. */
  apiRateLimiter: RateLimiter;
  loginAccountLimiter: RateLimiter;
  loginAddressLimiter: RateLimiter;
}

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };
const FORM = /^application\/x-www-form-urlencoded\s*(;|$)/i;

export function identityRoutes(deps: IdentityRoutesDeps) {
  const { identity } = deps;

  /** The form's parameters, each at most once (RFC 6749 §3.2); invalid_request otherwise. */
  function formOf(request: FastifyRequest): URLSearchParams {
    if (!FORM.test(request.headers['content-type'] ?? '')) {
      throw new OAuthError(400, 'invalid_request', 'Send the parameters as application/x-www-form-urlencoded.');
    }
    const form = new URLSearchParams(typeof request.body === 'string' ? request.body : '');
    const seen = new Set<string>();
    for (const name of form.keys()) {
      if (seen.has(name)) throw new OAuthError(400, 'invalid_request', `The parameter ${name} is given more than once.`);
      seen.add(name);
    }
    return form;
  }

  /** RFC 6749 §2.3.1: HTTP Basic (client_secret_basic) or client_id and client_secret in the form (client_secret_post), never both. */
  async function authenticateClient(request: FastifyRequest, form: URLSearchParams, reply: FastifyReply): Promise<LiveClient> {
    const header = request.headers.authorization;
    const inForm = form.has('client_id') || form.has('client_secret');
    let clientId: string | null;
    let secret: string | null;
    if (header !== undefined) {
      if (inForm) throw new OAuthError(400, 'invalid_request', 'Authenticate the client one way: HTTP Basic or client_id/client_secret in the body, not both.');
      const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
      const decoded = basic ? Buffer.from(basic[1], 'base64').toString('utf8') : '';
      const colon = decoded.indexOf(':');
      if (!basic || colon < 0) throw new OAuthError(401, 'invalid_client', 'The Authorization header must be HTTP Basic with client_id:client_secret.');
      // The id and secret are form-encoded before Basic encoding (RFC 6749 §2.3.1).
      try {
        clientId = decodeURIComponent(decoded.slice(0, colon).replaceAll('+', ' '));
        secret = decodeURIComponent(decoded.slice(colon + 1).replaceAll('+', ' '));
      } catch {
        throw new OAuthError(401, 'invalid_client', 'The Basic credentials are not form-encoded correctly.');
      }
    } else {
      clientId = form.get('client_id');
      secret = form.get('client_secret');
      if (!clientId || !secret) throw new OAuthError(401, 'invalid_client', 'Authenticate the client with HTTP Basic (client_id:client_secret) or client_secret_post.');
    }
    const client = await identity.authenticateClient(clientId, secret);
    const decision = await deps.apiRateLimiter.consume(client.id);
    reply.headers(decision.headers);
    if (!decision.allowed) {
      throw new ProblemError(429, 'rate_limited', 'Too many requests for this client; wait for Retry-After seconds.', {}, { 'Retry-After': decision.headers['Retry-After'] ?? '1' });
    }
    return client;
  }

  function sendOAuthError(reply: FastifyReply, error: OAuthError) {
    const headers: Record<string, string> = { ...NO_STORE };
    if (error.status === 401) headers['WWW-Authenticate'] = 'Basic realm="firstcrack", charset="UTF-8"';
    return reply.code(error.status).headers(headers).type('application/json; charset=utf-8').send({ error: error.error, error_description: error.message });
  }

  const oauth = (work: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>) => async (request: FastifyRequest, reply: FastifyReply) => {
    try {
      return await work(request, reply);
    } catch (error) {
      if (error instanceof OAuthError) return sendOAuthError(reply, error);
      throw error;
    }
  };

  return async (app: FastifyInstance) => {
    await app.register(async (scope) => {
      // Form bodies here only (the API itself takes JSON alone); any other type is kept as text so the
      // endpoint answers invalid_request rather than a 415 problem document.
      scope.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));

      scope.post(
        '/api/auth/oauth2/token',
        oauth(async (request, reply) => {
          const form = formOf(request);
          const client = await authenticateClient(request, form, reply);
          const grantType = form.get('grant_type');
          if (!grantType) throw new OAuthError(400, 'invalid_request', 'grant_type is required.');
          if (grantType !== 'client_credentials') throw new OAuthError(400, 'unsupported_grant_type', `Only grant_type=client_credentials is supported, not ${grantType}.`);
          const token = await identity.issueToken(client, { scope: form.get('scope') ?? undefined, resource: form.get('resource') ?? undefined });
          return reply.code(200).headers(NO_STORE).send(token);
        }),
      );

      scope.post(
        '/api/auth/oauth2/introspect',
        oauth(async (request, reply) => {
          const form = formOf(request);
          const client = await authenticateClient(request, form, reply);
          const token = form.get('token');
          if (!token) throw new OAuthError(400, 'invalid_request', 'token is required.');
          return reply.code(200).headers(NO_STORE).send(await identity.introspect(token, client));
        }),
      );
    });

    app.get('/api/auth/oauth2/jwks', async (_request, reply) =>
      reply.header('Cache-Control', 'public, max-age=300').type('application/jwk-set+json').send(await identity.jwks()),
    );
    app.get('/.well-known/oauth-authorization-server', async (_request, reply) => reply.header('Cache-Control', 'public, max-age=3600').send(identity.metadata()));

    app.post('/api/auth/login', async (request, reply) => {
      const body = (request.body ?? {}) as Record<string, unknown>;
      const byPassword = typeof body.email === 'string' && typeof body.password === 'string' && body.loginToken === undefined;
      const byLink = typeof body.loginToken === 'string' && body.email === undefined && body.password === undefined;
      const extra = Object.keys(body).filter((k) => !['email', 'password', 'loginToken'].includes(k));
      if ((!byPassword && !byLink) || extra.length) {
        throw new ProblemError(400, 'invalid_input', 'Send {"email","password"} or {"loginToken"}.', {
          errors: [{ path: extra[0] ?? (body.email === undefined ? 'email' : 'password'), message: 'expected {"email","password"} or {"loginToken"}' }],
        });
      }
      // Slowed per address and per account before any password is checked; refusals are logged.
      const account = byPassword ? String(body.email).trim().toLowerCase() : 'link';
      for (const [limiter, key, what] of [
        [deps.loginAddressLimiter, `ip:${request.ip}`, 'address'],
        ...(byPassword ? [[deps.loginAccountLimiter, `account:${account}`, 'account'] as const] : []),
      ] as const) {
        const decision = await limiter.consume(key);
        if (!decision.allowed) {
          request.log.warn({ event: 'login_throttled', per: what, ip: request.ip, account: byPassword ? account : undefined }, 'login attempts throttled');
          throw new ProblemError(429, 'rate_limited', `Too many login attempts for this ${what}; wait for Retry-After seconds.`, {}, { 'Retry-After': decision.headers['Retry-After'] ?? '60' });
        }
      }
      const user = byPassword ? await identity.userByPassword(String(body.email), String(body.password)) : await identity.userByLoginLink(String(body.loginToken));
      if (!user) {
        request.log.warn({ event: 'login_failed', ip: request.ip, account: byPassword ? account : undefined }, 'login failed');
        throw new ProblemError(401, 'unauthenticated', byPassword ? 'Wrong email or password.' : 'The login link is unknown, used or expired.', {}, {
          'WWW-Authenticate': 'Bearer realm="firstcrack"',
        });
      }
      request.log.info({ event: 'login', userId: user.id }, 'user logged in');
      return reply.code(200).headers(NO_STORE).send(await identity.openSession(user));
    });

    app.post('/api/auth/logout', async (request, reply) => {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
      if (!match || !(await identity.logout(match[1]))) {
        throw new ProblemError(401, 'unauthenticated', 'Send the live session token as Authorization: Bearer <token>.', {}, { 'WWW-Authenticate': 'Bearer realm="firstcrack"' });
      }
      return reply.code(204).send();
    });
  };
}
