import { defineOperation } from '../../rpc/define.js';
import { conflict, invalidInput, notFound } from '../../rpc/errors.js';
import { pageOut } from '../../rpc/outputs.js';
import * as repo from './repository.js';
import { announceClientRevoked } from './authority.js';
import { beyondCaller, createOAuthClient, IdentityInputError } from './service.js';
import { ById, CreateOAuthClient, IssuedOAuthClient, ListOAuthClients, OAuthClient } from './schemas.js';

/**
 * OAuth client administration over the API: extensions (the specification manages clients nowhere). They
 * sit with webhooks, the `api` module's integration settings, under `webhooks.write`, which only the owner
 * and admin roles hold; the permission list stays the specification's.
 */
const feature = 'api' as const;
const permission = 'webhooks.write' as const;

export const identityOperations = [
  defineOperation({
    name: 'webhooks.createOAuthClient',
    extension: true,
    summary: 'Create an OAuth 2.0 client (client credentials grant) bound to this organization; the secret is shown once.',
    description:
      'An extension. The client holds `role` narrowed by `scopes` (empty: the whole role), like an API key, and gets tokens at ' +
      '`POST /api/auth/oauth2/token`. A client can never hold more than the credential creating it: a permission the caller lacks is ' +
      '403 `permission_denied`. An unknown scope, or scopes leaving the role nothing, is 400 naming `scopes`. The secret is stored as a hash.',
    permission,
    feature,
    get: false,
    input: CreateOAuthClient,
    output: IssuedOAuthClient,
    errors: [],
    async handler(ctx, input) {
      beyondCaller(ctx.principal, input.role, input.scopes ?? [], 'A client');
      try {
        const issued = await createOAuthClient(ctx.tx, ctx.orgId, input);
        return { ...issued.client, clientSecret: issued.clientSecret };
      } catch (error) {
        if (error instanceof IdentityInputError) throw invalidInput([{ path: error.field, message: error.message }], error.message);
        throw error;
      }
    },
  }),

  defineOperation({
    name: 'webhooks.listOAuthClients',
    extension: true,
    summary: 'The organization’s OAuth clients, oldest id first; never their secrets.',
    description: 'An extension. Revoked clients are left out unless `filter.includeRevoked` is true.',
    permission,
    feature,
    get: true,
    input: ListOAuthClients,
    output: pageOut(OAuthClient),
    errors: ['invalid_cursor'],
    async handler(ctx, { filter, page }) {
      return repo.listClients(ctx.tx, ctx.orgId, filter, page);
    },
  }),

  defineOperation({
    name: 'webhooks.revokeOAuthClient',
    extension: true,
    summary: 'Revoke an OAuth client: no new tokens, and its opaque tokens stop at once.',
    description:
      'An extension. Its opaque tokens stop at once (other API processes may accept one for up to a second more); its JWT access ' +
      'tokens are stateless and stay valid until they expire (at most one hour). Revoking a revoked ' +
      'client is 409 `oauth_client_revoked`; another organization’s client is 404 like a missing one.',
    permission,
    feature,
    get: false,
    input: ById,
    output: OAuthClient,
    errors: ['not_found', 'oauth_client_revoked'],
    async handler(ctx, { id }) {
      const current = await repo.findClient(ctx.tx, ctx.orgId, id, { forUpdate: true });
      if (!current) throw notFound('OAuth client', id);
      if (current.revokedAt) throw conflict('oauth_client_revoked', `OAuth client ${id} was revoked at ${current.revokedAt}.`, { from: 'revoked', to: 'revoked' });
      const revoked = (await repo.revokeClient(ctx.tx, ctx.orgId, id, new Date()))!;
      ctx.afterCommit(async () => announceClientRevoked(id));
      return revoked;
    },
  }),
];
