import { FirstcrackClient, FirstcrackError, type OperationInput, type OperationName, type OperationOutput } from '../../clients/typescript/src/index.ts';
import { ROLE_PERMISSIONS, type Permission, type Role } from '../../src/auth/permissions.ts';

/**
 * Who is signed in and how the console calls the service. A user signs in with email and password
 * (POST /api/auth/login answers a token and the organizations with the user's role in each); an API key can be
 * used instead (for development and integrations). Either way every call goes through the typed client to
 * /rpc/v1/, like any other client.
 */
export interface Organization {
  id: string;
  name: string;
  role: Role;
}

export interface Session {
  kind: 'user' | 'api_key';
  token: string;
  expiresAt?: string;
  email?: string;
  organizations: Organization[];
  /** The organization the console works in (X-Service-Org). */
  orgId: string | null;
  /**
   * What the credential may do. For a user, the role's permissions (src/auth/permissions.ts, the service's own
   * table). For an API key, whose role and scopes the service does not tell, the write permissions the console
   * offers were asked of the service at sign-in: each probe is a call with an empty input, which the service
   * refuses with 403 before reading the input when the permission is missing, and with 400 otherwise.
   */
  permissions: Permission[];
}

const STORAGE_KEY = 'firstcrack.console.session';

export function loadSession(): Session | null {
  try {
    const text = sessionStorage.getItem(STORAGE_KEY);
    if (!text) return null;
    const session = JSON.parse(text) as Session;
    if (session.expiresAt && Date.parse(session.expiresAt) <= Date.now()) return null;
    return session;
  } catch {
    return null;
  }
}

export function saveSession(session: Session | null): void {
  if (session) sessionStorage.setItem(STORAGE_KEY, JSON.stringify(session));
  else sessionStorage.removeItem(STORAGE_KEY);
}

export function roleOf(session: Session): Role | null {
  return session.organizations.find((o) => o.id === session.orgId)?.role ?? null;
}

export function permissionsForRole(role: Role): Permission[] {
  return [...ROLE_PERMISSIONS[role]];
}

export function can(session: Session | null, permission: Permission): boolean {
  return !!session && session.permissions.includes(permission);
}

export function clientFor(session: Session): FirstcrackClient {
  return new FirstcrackClient({ baseUrl: location.origin, token: session.token, organizationId: session.orgId ?? undefined, maxRetries: 2 });
}

/** Calls an operation; a credential that has expired or been revoked (401) signs the console out. */
export async function call<N extends OperationName>(session: Session, name: N, input: OperationInput<N>): Promise<OperationOutput<N>> {
  try {
    return await clientFor(session).call(name, input);
  } catch (error) {
    if (error instanceof FirstcrackError && error.status === 401) {
      saveSession(null);
      location.reload();
    }
    throw error;
  }
}

export class LoginError extends Error {
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

/** Email and password: POST /api/auth/login (the identity contract). */
export function loginWithPassword(email: string, password: string): Promise<Session> {
  return login({ email, password }, email);
}

/** A one-time login link (`/app/#loginToken=fcl_…`): the token is spent on first use. */
export function loginWithLink(loginToken: string): Promise<Session> {
  return login({ loginToken });
}

/** Ends a user session on the service (an API key has none); the console forgets it either way. */
export async function logout(session: Session): Promise<void> {
  saveSession(null);
  if (session.kind !== 'user') return;
  await fetch('/api/auth/logout', { method: 'POST', headers: { authorization: `Bearer ${session.token}` } }).catch(() => {});
}

async function login(body: Record<string, string>, email?: string): Promise<Session> {
  const response = await fetch('/api/auth/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  let answer: any = {};
  try {
    answer = text ? JSON.parse(text) : {};
  } catch {
    // not JSON: described below
  }
  if (!response.ok) {
    if (response.status === 404 && answer.code === 'route_not_found') throw new LoginError('This service does not offer user sign-in yet; use an API key.');
    const field = answer.errors?.[0]?.path;
    throw new LoginError(answer.errors?.[0]?.message ? `${field}: ${answer.errors[0].message}` : answer.detail ?? `Sign-in failed (${response.status}).`, field);
  }
  const organizations = (answer.organizations ?? []) as Organization[];
  const first = organizations[0] ?? null;
  return {
    kind: 'user',
    token: answer.token,
    expiresAt: answer.expiresAt,
    email,
    organizations,
    orgId: first?.id ?? null,
    permissions: first ? permissionsForRole(first.role) : [],
  };
}

/** The write permission each console action needs, and an operation of that permission to probe it with. */
const PROBES: [Permission, OperationName][] = [
  ['inventory.green.write', 'inventory.green.adjustGreenLotQuantity'],
  ['production.roast.write', 'production.roast.completeRoastBatch'],
  ['orders.write', 'orders.allocateOrder'],
  ['webhooks.write', 'identity.createApiKey'],
];
const READS: [Permission, OperationName][] = [
  ['inventory.green.read', 'inventory.green.listGreenLots'],
  ['inventory.roast.read', 'inventory.roast.listRoastedLots'],
  ['inventory.material.read', 'inventory.material.listMaterials'],
  ['catalog.location.read', 'catalog.location.listLocations'],
  ['catalog.machine.read', 'catalog.machine.listMachines'],
  ['production.roast.read', 'production.roast.listRoastBatches'],
  ['production.profile.read', 'production.profile.listProfiles'],
  ['orders.read', 'orders.listOrders'],
  ['traceability.read', 'traceability.listCertificates'],
  ['reporting.read', 'reporting.listReports'],
];

/** An API key: checked with a read, then its permissions probed (see Session.permissions). */
export async function loginWithApiKey(token: string, orgId: string): Promise<Session> {
  const base: Session = { kind: 'api_key', token: token.trim(), organizations: [], orgId: orgId.trim() || null, permissions: [] };
  const client = clientFor(base);
  const allowed = async ([permission, operation]: [Permission, OperationName], reading: boolean): Promise<Permission | null> => {
    try {
      await client.call(operation, (reading ? { page: { limit: 1 } } : {}) as never);
      return permission;
    } catch (error) {
      if (error instanceof FirstcrackError) {
        if (error.status === 401) throw new LoginError('The API key is unknown, expired or revoked.', 'token');
        if (error.code === 'organization_mismatch') throw new LoginError(error.problem.detail, 'orgId');
        if (error.status === 403) return null;
        if (error.status === 400 || error.status === 404 || error.status === 409) return permission;
      }
      throw error;
    }
  };
  const reads = await Promise.all(READS.map((probe) => allowed(probe, true)));
  const writes = await Promise.all(PROBES.map((probe) => allowed(probe, false)));
  const permissions = [...reads, ...writes].filter((p): p is Permission => p !== null);
  // An API key is bound to its organization: there is nothing to switch to, and its role is not told.
  return { ...base, permissions };
}

export function switchOrganization(session: Session, orgId: string): Session {
  const org = session.organizations.find((o) => o.id === orgId);
  if (!org || session.kind !== 'user') return session;
  return { ...session, orgId, permissions: permissionsForRole(org.role) };
}

/** The problem's message for each field it names (`deltaKg`, `fromLocationId`, …), and what no field names. */
export function problemFields(error: unknown, within = ''): { byField: Record<string, string>; general: string | null } {
  if (!(error instanceof FirstcrackError)) return { byField: {}, general: error instanceof Error ? error.message : String(error) };
  const byField: Record<string, string> = {};
  for (const e of error.errors) {
    // `within` ('parameters.') names fields of a nested object by their own names.
    const path = within && e.path.startsWith(within) ? e.path.slice(within.length) : e.path;
    const key = path.split(/[.[]/)[0] || '';
    // A 400 names what is wrong with the field; a 409 states the rule in `detail`, shown at the field it names.
    if (key && !byField[key]) byField[key] = error.status === 400 ? e.message : `${error.problem.detail} (${e.message})`;
  }
  return { byField, general: Object.keys(byField).length > 0 ? null : error.problem.detail };
}
