import { configuredKeyEncryption } from '../../auth/key-encryption.js';
import { defineModule, type SurfaceRuntime } from '../../rpc/module.js';
import { Identity, type Clock } from './authority.js';
import { identityOperations } from './operations.js';
import { identityOpenApiPaths } from './openapi.js';
import { LOGIN_ACCOUNT_WINDOWS, LOGIN_ADDRESS_WINDOWS, identityRoutes } from './routes.js';

export default defineModule({
  name: 'identity',
  operations: identityOperations,
  tables: ['oauth_clients', 'oauth_access_tokens', 'signing_keys', 'users', 'memberships', 'user_sessions'],
  surfaces: {
    openApiPaths: identityOpenApiPaths,
    start: (ctx): SurfaceRuntime => {
      // The authorization server: tokens, signing keys, sessions; its tokens are accepted on every surface.
      const identity = new Identity({
        db: ctx.db,
        keyEncryption: configuredKeyEncryption(ctx.config),
        baseUrl: ctx.baseUrl,
        clock: ctx.settings.clock as Clock | undefined,
      });
      const routes = identityRoutes({
        identity,
        apiRateLimiter: ctx.apiRateLimiter,
        loginAccountLimiter: ctx.limiter('login-account', LOGIN_ACCOUNT_WINDOWS),
        loginAddressLimiter: ctx.limiter('login-address', LOGIN_ADDRESS_WINDOWS),
      });
      return { resolvers: identity.resolvers(), routes: (app) => routes(app), handle: identity, close: () => identity.dispose() };
    },
  },
});

/** The authorization server of a running app (its tests rotate keys through it). */
export function identityOf(app: { surfaces: ReadonlyMap<string, SurfaceRuntime> }): Identity {
  return app.surfaces.get('identity')!.handle as Identity;
}
