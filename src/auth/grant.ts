import { ProblemError } from '../rpc/errors.js';
import type { Principal } from './credentials.js';
import type { Permission } from './permissions.js';
import { PLAN_TERMS, type Feature } from './plans.js';

/**
 * The plan must enable the feature and the credential must hold the permission (when one is named: a machine
 * token holds none, and its surfaces need only the feature). Checked in one place, the
 * guard chain's grant step (src/http/guards.ts), for every operation and every surface that requires it.
 */
export function requireGrant(principal: Principal, feature: Feature, permission?: Permission): void {
  if (!PLAN_TERMS[principal.plan].features.has(feature)) {
    // The API calls plan features modules.
    throw new ProblemError(403, 'module_not_enabled', `The ${feature} module is not enabled on the ${principal.plan} plan.`, { module: feature });
  }
  if (permission !== undefined && !principal.permissions.has(permission)) {
    // RFC 6750 §3.1: the scope a token would need is named, for OAuth clients that ask for a narrower token.
    throw new ProblemError(403, 'permission_denied', `This credential lacks the permission ${permission}.`, { permission }, {
      'WWW-Authenticate': `Bearer realm="firstcrack", error="insufficient_scope", scope="${permission}"`,
    });
  }
}
