import { configuredKeyEncryption } from '../../auth/key-encryption.js';
import { defineModule } from '../../rpc/module.js';
import { Identity, type Clock } from './authority.js';
import { identityOperations } from './operations.js';
import { settingsOperations } from './settings.js';
import { deletionOperations } from './deletion.js';
import { exportOperations, organizationExportFiles, organizationExportJob, sweepOrganizationExportsJob } from './export.js';
import { examples } from './examples.js';
import { identityAuthenticators, identitySurfaces } from './routes.js';

export default defineModule({
  name: 'identity',
  operations: [...identityOperations, ...settingsOperations, ...deletionOperations, ...exportOperations],
  examples,
  tables: ['oauth_clients', 'oauth_access_tokens', 'signing_keys', 'users', 'memberships', 'user_sessions', 'organization_exports'],
  jobs: { 'organization-export': organizationExportJob, 'sweep-organization-exports': sweepOrganizationExportsJob },
  files: [organizationExportFiles],
  surfaces: identitySurfaces,
  start: (ctx) => {
    // The authorization server: tokens, signing keys, sessions; its tokens are accepted on every surface.
    const identity = new Identity({
      db: ctx.db,
      keyEncryption: configuredKeyEncryption(ctx.config),
      // FIRSTCRACK_BASE_URL names the service as its clients reach it (the JWT issuer and audience); unset, the address it listens on.
      baseUrl: ctx.baseUrl,
      clock: ctx.settings.clock as Clock | undefined,
    });
    return {
      deps: { identity },
      resolvers: identity.resolvers(),
      authenticators: identityAuthenticators(identity),
      handle: identity,
      close: () => identity.dispose(),
    };
  },
});

/** The authorization server of a running app (its tests rotate keys through it). */
export function identityOf(app: { modules: ReadonlyMap<string, { handle?: unknown }> }): Identity {
  return app.modules.get('identity')!.handle as Identity;
}
