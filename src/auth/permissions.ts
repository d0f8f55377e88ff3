/**
 * The closed list of permissions, `namespace.action`, exactly those the specification names. The
 * dispatcher checks them; handlers never do. A test proves this list equals the specification's.
 */
export const PERMISSIONS = [
  'cafe.ingest', 'cafe.read', 'cafe.write',
  'catalog.location.read', 'catalog.location.write',
  'catalog.machine.read', 'catalog.machine.write',
  'catalog.party.read', 'catalog.party.write',
  'catalog.product.read', 'catalog.product.write',
  'inventory.blend.read', 'inventory.blend.write',
  'inventory.green.read', 'inventory.green.write',
  'inventory.material.read', 'inventory.material.write',
  'inventory.roast.read', 'inventory.roast.write',
  'orders.read', 'orders.write',
  'production.profile.read', 'production.profile.write',
  'production.roast.read', 'production.roast.write',
  'production.schedule.approve', 'production.schedule.read', 'production.schedule.write',
  'quality.cupping.read', 'quality.cupping.write',
  'quality.grading.read', 'quality.grading.write',
  'reporting.read',
  'sourcing.contract.approve', 'sourcing.contract.read', 'sourcing.contract.write',
  'sourcing.sample.approve', 'sourcing.sample.read', 'sourcing.sample.write',
  'traceability.read',
  'webhooks.read', 'webhooks.write',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

export const ROLES = ['owner', 'admin', 'roaster', 'quality', 'sales', 'cafe', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/**
 * A permission pattern: an exact permission, a prefix ending in `.*` (`inventory.*`,
 * `inventory.green.*`), or `*`. Patterns are also what API key scopes are written in.
 */
export function matchesPattern(permission: string, pattern: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('.*')) return permission.startsWith(pattern.slice(0, -1));
  return permission === pattern;
}

export function isValidPattern(pattern: string): boolean {
  return PERMISSIONS.some((p) => matchesPattern(p, pattern));
}

const expand = (patterns: string[]): Set<Permission> =>
  new Set(PERMISSIONS.filter((p) => patterns.some((pattern) => matchesPattern(p, pattern))));

const everyRead = PERMISSIONS.filter((p) => p.endsWith('.read'));

/**
 * What each role may do. owner and admin hold everything (owner additionally manages keys and billing
 * outside this API); the working roles hold what their job needs plus read access around it.
 */
export const ROLE_PERMISSIONS: Record<Role, ReadonlySet<Permission>> = {
  owner: expand(['*']),
  admin: expand(['*']),
  roaster: expand([
    ...everyRead.filter((p) => !p.startsWith('webhooks.') && !p.startsWith('cafe.')),
    'inventory.green.write', 'inventory.roast.write', 'inventory.blend.write', 'inventory.material.write',
    'production.*', 'catalog.machine.write', 'catalog.product.write',
  ]),
  quality: expand([
    ...everyRead.filter((p) => !p.startsWith('webhooks.') && !p.startsWith('cafe.') && !p.startsWith('orders.')),
    'quality.*', 'sourcing.sample.*',
  ]),
  sales: expand([
    'orders.*', 'catalog.party.*', 'catalog.product.read', 'catalog.location.read',
    'inventory.roast.read', 'inventory.blend.read', 'inventory.green.read',
    'production.schedule.read', 'traceability.read', 'reporting.read',
  ]),
  cafe: expand(['cafe.*', 'catalog.location.read', 'catalog.product.read', 'inventory.roast.read', 'reporting.read']),
  viewer: expand(everyRead),
};

/** Effective permissions: the role's, narrowed by scopes when the key has any (scoped down, never up). */
export function effectivePermissions(role: Role, scopes: string[] | null | undefined): ReadonlySet<Permission> {
  const granted = ROLE_PERMISSIONS[role];
  if (!scopes || scopes.length === 0) return granted;
  return new Set([...granted].filter((p) => scopes.some((s) => matchesPattern(p, s))));
}
