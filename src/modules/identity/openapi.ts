import { ACCESS_TOKEN_SECONDS, SESSION_SECONDS } from './authority.js';
import { LOGIN_ACCOUNT_WINDOWS, LOGIN_ADDRESS_WINDOWS } from './routes.js';

/** The authorization server's paths for the OpenAPI document (/docs): written beside the routes, as they are not RPC operations. */
export function identityOpenApiPaths(): Record<string, unknown> {
  const tags = ['authentication'];
  const json = (description: string, schema: Record<string, unknown>, example?: unknown) => ({
    description,
    content: { 'application/json': { schema, ...(example !== undefined ? { example } : {}) } },
  });
  const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } });
  const oauthError = (description: string, errors: string[]) =>
    json(description, {
      type: 'object',
      required: ['error'],
      properties: { error: { enum: errors }, error_description: { type: 'string' } },
    });
  const form = (properties: Record<string, unknown>, required: string[], example: Record<string, string>) => ({
    required: true,
    content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', properties, required }, example } },
  });
  const clientAuth = {
    client_id: { type: 'string', description: 'client_secret_post only (with client_secret); otherwise HTTP Basic client_id:client_secret.' },
    client_secret: { type: 'string' },
  };
  const security = [{ clientBasic: [] }, {}];
  const perAccount = LOGIN_ACCOUNT_WINDOWS.map((w) => `${w.points} per ${w.seconds / 60} min`).join(', ');
  const perAddress = LOGIN_ADDRESS_WINDOWS.map((w) => `${w.points} per ${w.seconds / 60} min`).join(', ');

  return {
    '/api/auth/oauth2/token': {
      post: {
        operationId: 'auth.token',
        tags,
        summary: 'OAuth 2.0 client credentials grant (RFC 6749 §4.4): an access token for a client.',
        description:
          'Client authentication: HTTP Basic (`client_secret_basic`, id and secret form-encoded first) or `client_id` and `client_secret` ' +
          'in the body (`client_secret_post`), never both. `grant_type=client_credentials` only; no refresh tokens. `scope` (space-separated ' +
          'permission names or patterns) may only narrow the client’s scopes. With `resource` equal to this service’s base URL the token ' +
          `is an RFC 9068 JWT (\`typ: at+jwt\`, ES256, claims iss, aud, sub, client_id, org, scope, roles, iat, exp, jti) verified statelessly ` +
          `with the JWKS; any other resource is \`invalid_target\` (RFC 8707). Without \`resource\` the token is opaque (\`fco_…\`), stored ` +
          `hashed and checked on each request. Tokens live ${ACCESS_TOKEN_SECONDS} s. Answers carry \`Cache-Control: no-store\`; errors are ` +
          'RFC 6749 §5.2 JSON. `invalid_client` is 401 with `WWW-Authenticate: Basic`. (`invalid_grant` does not arise: the client credentials ' +
          'grant has no grant to be invalid.) Token requests count against the client’s API rate limit.',
        security,
        requestBody: form(
          {
            grant_type: { const: 'client_credentials' },
            scope: { type: 'string', example: 'inventory.green.read catalog.*' },
            resource: { type: 'string', format: 'uri', description: 'This service’s base URL, for a JWT.' },
            ...clientAuth,
          },
          ['grant_type'],
          { grant_type: 'client_credentials', resource: 'https://firstcrack.example', scope: 'inventory.green.read' },
        ),
        responses: {
          '200': json(
            'The access token.',
            {
              type: 'object',
              required: ['access_token', 'token_type', 'expires_in', 'scope'],
              properties: { access_token: { type: 'string' }, token_type: { const: 'Bearer' }, expires_in: { type: 'integer' }, scope: { type: 'string' } },
            },
            { access_token: 'fco_3kT9…', token_type: 'Bearer', expires_in: ACCESS_TOKEN_SECONDS, scope: 'inventory.*' },
          ),
          '400': oauthError('A malformed request (`invalid_request`: a missing or repeated parameter, not a form), another grant type, a scope beyond the client’s, or a resource that is not this service.', [
            'invalid_request',
            'unsupported_grant_type',
            'invalid_scope',
            'invalid_target',
          ]),
          '401': oauthError('Client authentication failed: unknown client, wrong secret, revoked client.', ['invalid_client']),
          '429': problem('The client’s rate limit is spent; see Retry-After.'),
        },
      },
    },
    '/api/auth/oauth2/introspect': {
      post: {
        operationId: 'auth.introspect',
        tags,
        summary: 'Token introspection (RFC 7662): whether a token is active, and its claims.',
        description:
          'Client-authenticated like the token endpoint. Opaque and JWT access tokens of the asking client’s organization answer ' +
          '`active: true` with scope, client_id, token_type, exp, iat, sub, iss, org (and aud, jti for JWTs). Anything else — unknown, ' +
          'expired, a revoked client’s opaque token, another organization’s token, an API key — answers `{ "active": false }`. A revoked ' +
          'client’s JWTs stay active until they expire (they are stateless).',
        security,
        requestBody: form({ token: { type: 'string' }, token_type_hint: { type: 'string', description: 'accepted and ignored' }, ...clientAuth }, ['token'], { token: 'fco_3kT9…' }),
        responses: {
          '200': json('Active with claims, or inactive.', { type: 'object', required: ['active'], properties: { active: { type: 'boolean' } } }, {
            active: true,
            scope: 'inventory.*',
            client_id: 'ocl_01jq…',
            token_type: 'Bearer',
            exp: 1795000000,
            iat: 1794996400,
            sub: 'ocl_01jq…',
            iss: 'https://firstcrack.example',
            org: 'org_01jq…',
          }),
          '400': oauthError('No token parameter, or a malformed request.', ['invalid_request']),
          '401': oauthError('Client authentication failed.', ['invalid_client']),
        },
      },
    },
    '/api/auth/oauth2/jwks': {
      get: {
        operationId: 'auth.jwks',
        tags,
        summary: 'The JSON Web Key Set that verifies JWT access tokens.',
        description:
          'Public keys only (ES256, `use: sig`, each with its `kid`). After `firstcrack keys rotate` the new key signs and the old one stays ' +
          'published until every token it signed has expired. Cacheable for 5 minutes; refetch on an unknown `kid`.',
        security: [],
        responses: {
          '200': json('The key set.', { type: 'object', required: ['keys'], properties: { keys: { type: 'array', items: { type: 'object' } } } }, {
            keys: [{ kty: 'EC', crv: 'P-256', x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU', y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0', kid: 'kid_01jq…', alg: 'ES256', use: 'sig' }],
          }),
        },
      },
    },
    '/.well-known/oauth-authorization-server': {
      get: {
        operationId: 'auth.metadata',
        tags,
        summary: 'Authorization server metadata (RFC 8414).',
        description:
          'issuer (the base URL: FIRSTCRACK_BASE_URL, or the address the service listens on), token_endpoint, jwks_uri, introspection_endpoint, ' +
          'grant_types_supported, token endpoint and introspection authentication methods, scopes_supported (the permissions).',
        security: [],
        responses: {
          '200': json('The metadata document.', { type: 'object', required: ['issuer', 'token_endpoint', 'jwks_uri'] }, {
            issuer: 'https://firstcrack.example',
            token_endpoint: 'https://firstcrack.example/api/auth/oauth2/token',
            jwks_uri: 'https://firstcrack.example/api/auth/oauth2/jwks',
            introspection_endpoint: 'https://firstcrack.example/api/auth/oauth2/introspect',
            grant_types_supported: ['client_credentials'],
            response_types_supported: [],
            token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
            introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
            scopes_supported: ['cafe.ingest', 'cafe.read', '…'],
            service_documentation: 'https://firstcrack.example/docs',
          }),
        },
      },
    },
    '/api/auth/login': {
      post: {
        operationId: 'auth.login',
        tags,
        summary: 'Log a user in: a session token for the user’s organizations.',
        description:
          'Body `{ "email", "password" }`, or `{ "loginToken" }` from a one-time login link (`…/app/#loginToken=fcl_…`, opened in the console, printed by ' +
          '`firstcrack user create` without --password; spent on first use, good for 24 hours). The session token (`fcu_…`) lives ' +
          `${SESSION_SECONDS / 3600} hours unless logged out; send it as \`Authorization: Bearer\` with \`X-Service-Org\` naming the organization ` +
          'to act in: without the header 400 `organization_required`; an organization the user is not a member of is 404 ' +
          '`organization_not_found`, the same as one that does not exist. The request acts with that membership’s role and counts against ' +
          `the user’s rate limit. Attempts are slowed per account (${perAccount}) and per client address (${perAddress}): past either, 429 ` +
          'with Retry-After, whether the password is right or not. Failures and throttling are logged.',
        security: [],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                oneOf: [
                  { type: 'object', required: ['email', 'password'], additionalProperties: false, properties: { email: { type: 'string' }, password: { type: 'string' } } },
                  { type: 'object', required: ['loginToken'], additionalProperties: false, properties: { loginToken: { type: 'string' } } },
                ],
              },
              example: { email: 'roaster@example.com', password: 'correct horse battery staple' },
            },
          },
        },
        responses: {
          '200': json(
            'The session.',
            {
              type: 'object',
              required: ['token', 'expiresAt', 'organizations'],
              properties: {
                token: { type: 'string' },
                expiresAt: { type: 'string', format: 'date-time' },
                organizations: {
                  type: 'array',
                  items: { type: 'object', required: ['id', 'name', 'role'], properties: { id: { type: 'string' }, name: { type: 'string' }, role: { type: 'string' } } },
                },
              },
            },
            { token: 'fcu_Qm2…', expiresAt: '2026-11-25T20:00:00.000Z', organizations: [{ id: 'org_01jq…', name: 'My roastery', role: 'admin' }] },
          ),
          '400': problem('Neither {email, password} nor {loginToken}, or other fields (`invalid_input` naming the field).'),
          '401': problem('Wrong email or password (the two are not told apart), or an unknown, used or expired login link.'),
          '429': problem('Too many attempts for this account or address; see Retry-After.'),
        },
      },
    },
    '/api/auth/logout': {
      post: {
        operationId: 'auth.logout',
        tags,
        summary: 'End a user session at once.',
        description: 'Send the session token as `Authorization: Bearer`; no X-Service-Org needed. Every process refuses it from then on (sessions are not cached).',
        security: [{ userSession: [] }],
        responses: { '204': { description: 'The session is ended.' }, '401': problem('No live session token.') },
      },
    },
  };
}
