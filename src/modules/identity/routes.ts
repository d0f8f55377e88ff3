import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { unauthorized, type Authenticate } from '../../http/guards.js';
import { defineSurface, type SurfaceAuthenticators } from '../../http/surface.js';
import { ProblemError } from '../../rpc/errors.js';
import { ACCESS_TOKEN_SECONDS, SESSION_SECONDS, type Identity, OAuthError } from './authority.js';
import type { LiveClient } from './repository.js';

/**
 * The authorization server's HTTP surfaces: the token and introspection endpoints (RFC 6749 §4.4, RFC 7662),
 * the JWK Set, the RFC 8414 metadata document, and user login and logout. OAuth endpoints answer RFC 6749
 * §5.2 errors (`{ error, error_description }`), not problem documents, because OAuth clients parse those.
 */

declare module '../../http/surface.js' {
  interface SurfaceDeps {
    /** The authorization server: tokens, signing keys, sessions. */
    identity: Identity;
  }
}

const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };
const FORM = /^application\/x-www-form-urlencoded\s*(;|$)/i;

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
async function authenticateClient(identity: Identity, request: FastifyRequest, form: URLSearchParams): Promise<LiveClient> {
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
  return identity.authenticateClient(clientId, secret);
}

const bearerToken = (request: FastifyRequest) => /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];

/**
 * The credentials only the authorization server can resolve: an OAuth client by its own id and secret (read
 * from the form, so its surfaces are guarded once the body is read; counted on the API budget under the
 * client's id, like its API calls), and a user session token to end, which needs no organization.
 */
export function identityAuthenticators(identity: Identity): SurfaceAuthenticators {
  const oauthClient: Authenticate = async (request) => {
    const client = await authenticateClient(identity, request, formOf(request));
    return { budgetKey: client.id, subject: client };
  };
  const sessionToken: Authenticate = async (request) => {
    const token = bearerToken(request);
    if (!token) throw unauthorized('Send the live session token as Authorization: Bearer <token>.');
    return { subject: token };
  };
  return { oauth_client: oauthClient, session_token: sessionToken };
}

/** OAuth's own refusals, in the form OAuth clients parse. */
function sendOAuthError(error: unknown, reply: FastifyReply): boolean {
  if (!(error instanceof OAuthError)) return false;
  const headers: Record<string, string> = { ...NO_STORE };
  if (error.status === 401) headers['WWW-Authenticate'] = 'Basic realm="firstcrack", charset="UTF-8"';
  reply.code(error.status).headers(headers).type('application/json; charset=utf-8').send({ error: error.error, error_description: error.message });
  return true;
}

const oauthErrorOf = (...errors: [OAuthError['error'], ...OAuthError['error'][]]) => z.strictObject({ error: z.enum(errors), error_description: z.string() });

const clientAuth = {
  client_id: z.string().optional().describe('client_secret_post only (with client_secret); otherwise HTTP Basic client_id:client_secret.'),
  client_secret: z.string().optional(),
};

const TokenForm = z.object({
  grant_type: z.literal('client_credentials'),
  scope: z.string().optional().describe('Space-separated permission names or patterns, narrowing the client’s scopes.'),
  resource: z.url().optional().describe('This service’s base URL, for a JWT.'),
  ...clientAuth,
});
const AccessToken = z.strictObject({ access_token: z.string(), token_type: z.literal('Bearer'), expires_in: z.number().int(), scope: z.string() });

const IntrospectForm = z.object({ token: z.string(), token_type_hint: z.string().optional().describe('accepted and ignored'), ...clientAuth });
const Introspection = z.discriminatedUnion('active', [
  z.strictObject({ active: z.literal(false) }),
  z.strictObject({
    active: z.literal(true),
    scope: z.string(),
    client_id: z.string(),
    token_type: z.literal('Bearer'),
    exp: z.number().int(),
    iat: z.number().int(),
    sub: z.string(),
    iss: z.string(),
    org: z.string(),
    aud: z.union([z.string(), z.array(z.string())]).optional().describe('JWTs only'),
    jti: z.string().optional().describe('JWTs only'),
  }),
]);

const Jwk = z.object({ kty: z.literal('EC'), crv: z.literal('P-256'), x: z.string(), y: z.string(), kid: z.string(), alg: z.literal('ES256'), use: z.literal('sig') });
const KeySet = z.strictObject({ keys: z.array(Jwk) });

const Metadata = z.strictObject({
  issuer: z.string(),
  token_endpoint: z.string(),
  jwks_uri: z.string(),
  introspection_endpoint: z.string(),
  grant_types_supported: z.array(z.string()),
  response_types_supported: z.array(z.string()),
  token_endpoint_auth_methods_supported: z.array(z.string()),
  introspection_endpoint_auth_methods_supported: z.array(z.string()),
  scopes_supported: z.array(z.string()),
  service_documentation: z.string(),
});

const Login = z.union([z.strictObject({ email: z.string(), password: z.string() }), z.strictObject({ loginToken: z.string() })]);
const Session = z.strictObject({
  token: z.string(),
  expiresAt: z.iso.datetime(),
  organizations: z.array(z.strictObject({ id: z.string(), name: z.string(), role: z.string() })),
});

const EXAMPLE_ISSUER = 'https://roastery.example';
const EXAMPLE_CLIENT = 'ocl_01jq4a7bc9de2fg5hj8km3np6q';
const EXAMPLE_ORG = 'org_01jq3k8m7v5x2n4p6r8t0w2y4a';

/** The account a password login names, counted on its own budget; a login link names none. */
const loginAccount = (request: FastifyRequest) => {
  const body = request.body as { email?: unknown; password?: unknown; loginToken?: unknown } | undefined;
  return typeof body?.email === 'string' && body.loginToken === undefined ? `account:${body.email.trim().toLowerCase()}` : null;
};

export const identitySurfaces = [
  defineSurface({
    name: 'auth.token',
    method: 'POST',
    path: '/api/auth/oauth2/token',
    tag: 'authentication',
    summary: 'OAuth 2.0 client credentials grant (RFC 6749 §4.4): an access token for a client.',
    description:
      'Client authentication: HTTP Basic (`client_secret_basic`, id and secret form-encoded first) or `client_id` and `client_secret` ' +
      'in the body (`client_secret_post`), never both. `grant_type=client_credentials` only; no refresh tokens. `scope` (space-separated ' +
      'permission names or patterns) may only narrow the client’s scopes. With `resource` equal to this service’s base URL the token ' +
      `is an RFC 9068 JWT (\`typ: at+jwt\`, ES256, claims iss, aud, sub, client_id, org, scope, roles, iat, exp, jti) verified statelessly ` +
      `with the JWKS; any other resource is \`invalid_target\` (RFC 8707). Without \`resource\` the token is opaque (\`fco_…\`), stored ` +
      `hashed and checked on each request. Tokens live ${ACCESS_TOKEN_SECONDS} s. Answers carry \`Cache-Control: no-store\`; errors are ` +
      'RFC 6749 §5.2 JSON. `invalid_client` is 401 with `WWW-Authenticate: Basic`. Token requests count against the client’s API budget.',
    credentials: ['oauth_client'],
    rate: [{ budget: 'api', per: 'credential' }],
    guardAfterBody: true,
    body: { contentType: 'application/x-www-form-urlencoded', schema: TokenForm, required: true },
    answers: {
      200: { description: 'The access token.', schema: AccessToken },
      400: {
        description: 'A malformed request (`invalid_request`: a missing or repeated parameter, not a form), another grant type, a scope beyond the client’s, or a resource that is not this service.',
        schema: oauthErrorOf('invalid_request', 'unsupported_grant_type', 'invalid_scope', 'invalid_target'),
      },
      401: { description: 'Client authentication failed: unknown client, wrong secret, revoked client.', schema: oauthErrorOf('invalid_client') },
    },
    errors: [],
    examples: {
      request: { grant_type: 'client_credentials', resource: EXAMPLE_ISSUER, scope: 'inventory.green.read production.roast.read' },
      answers: {
        200: { access_token: 'fco_3kT9vQ2mX8pL5rW1nB7cY4hJ6dF0sA9e', token_type: 'Bearer', expires_in: ACCESS_TOKEN_SECONDS, scope: 'inventory.green.read production.roast.read' },
        400: { error: 'invalid_scope', error_description: 'The scope quality.cupping.write is beyond this client’s scopes.' },
        401: { error: 'invalid_client', error_description: 'Unknown client or wrong secret.' },
      },
    },
    renderError: sendOAuthError,
    async handler(request, reply, { deps, caller }) {
      const form = formOf(request);
      const grantType = form.get('grant_type');
      if (!grantType) throw new OAuthError(400, 'invalid_request', 'grant_type is required.');
      if (grantType !== 'client_credentials') throw new OAuthError(400, 'unsupported_grant_type', `Only grant_type=client_credentials is supported, not ${grantType}.`);
      const token = await deps.identity.issueToken(caller.subject as LiveClient, { scope: form.get('scope') ?? undefined, resource: form.get('resource') ?? undefined });
      return reply.code(200).headers(NO_STORE).send(token);
    },
  }),
  defineSurface({
    name: 'auth.introspect',
    method: 'POST',
    path: '/api/auth/oauth2/introspect',
    tag: 'authentication',
    summary: 'Token introspection (RFC 7662): whether a token is active, and its claims.',
    description:
      'Client-authenticated like the token endpoint. Opaque and JWT access tokens of the asking client’s organization answer ' +
      '`active: true` with scope, client_id, token_type, exp, iat, sub, iss, org (and aud, jti for JWTs). Anything else — unknown, ' +
      'expired, a revoked client’s opaque token, another organization’s token, an API key — answers `{ "active": false }`. A revoked ' +
      'client’s JWTs stay active until they expire (they are stateless).',
    credentials: ['oauth_client'],
    rate: [{ budget: 'api', per: 'credential' }],
    guardAfterBody: true,
    body: { contentType: 'application/x-www-form-urlencoded', schema: IntrospectForm, required: true },
    answers: {
      200: { description: 'Active with claims, or inactive.', schema: Introspection },
      400: { description: 'No token parameter, or a malformed request.', schema: oauthErrorOf('invalid_request') },
      401: { description: 'Client authentication failed.', schema: oauthErrorOf('invalid_client') },
    },
    errors: [],
    examples: {
      request: { token: 'fco_3kT9vQ2mX8pL5rW1nB7cY4hJ6dF0sA9e' },
      answers: {
        200: {
          active: true,
          scope: 'inventory.green.read production.roast.read',
          client_id: EXAMPLE_CLIENT,
          token_type: 'Bearer',
          exp: 1795000000,
          iat: 1794996400,
          sub: EXAMPLE_CLIENT,
          iss: EXAMPLE_ISSUER,
          org: EXAMPLE_ORG,
        },
        400: { error: 'invalid_request', error_description: 'token is required.' },
        401: { error: 'invalid_client', error_description: 'Unknown client or wrong secret.' },
      },
    },
    renderError: sendOAuthError,
    async handler(request, reply, { deps, caller }) {
      const token = formOf(request).get('token');
      if (!token) throw new OAuthError(400, 'invalid_request', 'token is required.');
      return reply.code(200).headers(NO_STORE).send(await deps.identity.introspect(token, caller.subject as LiveClient));
    },
  }),
  defineSurface({
    name: 'auth.jwks',
    method: 'GET',
    path: '/api/auth/oauth2/jwks',
    tag: 'authentication',
    summary: 'The JSON Web Key Set that verifies JWT access tokens.',
    description:
      'Public keys only (ES256, `use: sig`, each with its `kid`). After `firstcrack keys rotate` the new key signs and the old one stays ' +
      'published until every token it signed has expired. Cacheable for 5 minutes; refetch on an unknown `kid`.',
    credentials: ['none'],
    rate: [],
    answers: { 200: { description: 'The key set.', contentType: 'application/jwk-set+json', schema: KeySet } },
    errors: [],
    examples: {
      answers: {
        200: {
          keys: [{ kty: 'EC', crv: 'P-256', x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU', y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0', kid: 'kid_01jq5r7t9v1x3z5b7d9f1h3k5m', alg: 'ES256', use: 'sig' }],
        },
      },
    },
    handler: async (_request, reply, { deps }) => reply.header('Cache-Control', 'public, max-age=300').type('application/jwk-set+json').send(await deps.identity.jwks()),
  }),
  defineSurface({
    name: 'auth.metadata',
    method: 'GET',
    path: '/.well-known/oauth-authorization-server',
    tag: 'authentication',
    summary: 'Authorization server metadata (RFC 8414).',
    description: 'The issuer is the base URL: FIRSTCRACK_BASE_URL, or the address the service listens on. `scopes_supported` lists the permissions.',
    credentials: ['none'],
    rate: [],
    answers: { 200: { description: 'The metadata document.', schema: Metadata } },
    errors: [],
    examples: {
      answers: {
        200: {
          issuer: EXAMPLE_ISSUER,
          token_endpoint: `${EXAMPLE_ISSUER}/api/auth/oauth2/token`,
          jwks_uri: `${EXAMPLE_ISSUER}/api/auth/oauth2/jwks`,
          introspection_endpoint: `${EXAMPLE_ISSUER}/api/auth/oauth2/introspect`,
          grant_types_supported: ['client_credentials'],
          response_types_supported: [],
          token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
          introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
          scopes_supported: ['cafe.ingest', 'cafe.read', 'inventory.green.read', 'production.roast.read'],
          service_documentation: `${EXAMPLE_ISSUER}/docs`,
        },
      },
    },
    handler: async (_request, reply, { deps }) => reply.header('Cache-Control', 'public, max-age=3600').send(deps.identity.metadata()),
  }),
  defineSurface({
    name: 'auth.login',
    method: 'POST',
    path: '/api/auth/login',
    tag: 'authentication',
    summary: 'Log a user in: a session token for the user’s organizations.',
    description:
      'Body `{ "email", "password" }`, or `{ "loginToken" }` from a one-time login link (`…/app/#loginToken=fcl_…`, opened in the console, printed by ' +
      '`firstcrack user create` without --password; spent on first use, good for 24 hours). The session token (`fcu_…`) lives ' +
      `${SESSION_SECONDS / 3600} hours unless logged out; send it as \`Authorization: Bearer\` with \`X-Service-Org\` naming the organization ` +
      'to act in: without the header 400 `organization_required`; an organization the user is not a member of is 404 ' +
      '`organization_not_found`, the same as one that does not exist. The request acts with that membership’s role and counts against ' +
      'the user’s rate limit. Attempts are slowed per client address and per account before any password is checked: past either, 429 ' +
      'with Retry-After, whether the password is right or not. Failures and throttling are logged.',
    credentials: ['none'],
    rate: [
      { budget: 'login_address', per: 'address' },
      { budget: 'login_account', per: loginAccount },
    ],
    guardAfterBody: true,
    body: { contentType: 'application/json', schema: Login, required: true },
    answers: { 200: { description: 'The session.', schema: Session } },
    errors: ['invalid_input', 'unauthenticated'],
    examples: {
      request: { email: 'head.roaster@bluehillroastery.example', password: 'first crack at 9:40' },
      answers: { 200: { token: 'fcu_Qm2xV8kP4rT1nL7wB3cY9hJ5dF0sA6eG', expiresAt: '2026-11-25T20:00:00.000Z', organizations: [{ id: EXAMPLE_ORG, name: 'Blue Hill Roastery', role: 'admin' }] } },
    },
    async handler(request, reply, { deps }) {
      const body = (request.body ?? {}) as Record<string, unknown>;
      const parsed = Login.safeParse(body);
      if (!parsed.success) {
        const extra = Object.keys(body).filter((k) => !['email', 'password', 'loginToken'].includes(k));
        throw new ProblemError(400, 'invalid_input', 'Send {"email","password"} or {"loginToken"}.', {
          errors: [{ path: extra[0] ?? (body.email === undefined ? 'email' : 'password'), message: 'expected {"email","password"} or {"loginToken"}' }],
        });
      }
      const login = parsed.data;
      const byPassword = 'email' in login;
      const account = byPassword ? login.email.trim().toLowerCase() : undefined;
      const user = byPassword ? await deps.identity.userByPassword(login.email, login.password) : await deps.identity.userByLoginLink(login.loginToken);
      if (!user) {
        request.log.warn({ event: 'login_failed', ip: request.ip, account }, 'login failed');
        throw new ProblemError(401, 'unauthenticated', byPassword ? 'Wrong email or password.' : 'The login link is unknown, used or expired.', {}, {
          'WWW-Authenticate': 'Bearer realm="firstcrack"',
        });
      }
      request.log.info({ event: 'login', userId: user.id }, 'user logged in');
      return reply.code(200).headers(NO_STORE).send(await deps.identity.openSession(user));
    },
  }),
  defineSurface({
    name: 'auth.logout',
    method: 'POST',
    path: '/api/auth/logout',
    tag: 'authentication',
    summary: 'End a user session at once.',
    description: 'Send the session token as `Authorization: Bearer`; no X-Service-Org needed. Every process refuses it from then on (sessions are not cached).',
    credentials: ['session_token'],
    rate: [],
    answers: { 204: { description: 'The session is ended.' } },
    errors: [],
    examples: { answers: {} },
    async handler(_request, reply, { deps, caller }) {
      if (!(await deps.identity.logout(caller.subject as string))) throw unauthorized('Send the live session token as Authorization: Bearer <token>.');
      return reply.code(204).send();
    },
  }),
];
