import type { Queryable } from '../../db/client.js';
import { newId, newSecret } from '../../lib/ids.js';
import { hashSecret, type Principal } from '../../auth/credentials.js';
import { ProblemError } from '../../rpc/errors.js';
import { effectivePermissions, isValidPattern, type Role } from '../../auth/permissions.js';
import * as repo from './repository.js';
import { CLIENT_SECRET_PREFIX, LOGIN_LINK_PREFIX } from './authority.js';
import { hashPassword, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './passwords.js';

/**
 * Identity commands for the CLI and the admin operations: OAuth clients and users. Each takes the
 * connection it runs on (the owner connection for the CLI, the request's transaction for operations).
 */

/** Input refused before anything changed: a scope naming no permission, a client or key left no permission, a weak password, a taken email. */
export class IdentityInputError extends Error {
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(message);
  }
}

export interface IssuedClient {
  clientId: string;
  /** Shown once; only its SHA-256 is stored. */
  clientSecret: string;
  client: repo.OAuthClient;
}

/** Validates scopes as API keys do: each names a permission, and the role narrowed by them keeps at least one. */
export function checkScopes(role: Role, scopes: string[]): void {
  const unknown = scopes.filter((scope) => !isValidPattern(scope));
  if (unknown.length) throw new IdentityInputError(`Unknown scope ${unknown.join(', ')}: use permission names or patterns such as inventory.*`, 'scopes');
  if (effectivePermissions(role, scopes).size === 0) {
    throw new IdentityInputError(`The scopes ${scopes.join(',')} leave a ${role} client no permission; choose scopes the ${role} role holds.`, 'scopes');
  }
}

/**
 * Refuses (403 permission_denied) a credential that would hold a permission its creator lacks: a key or
 * client never holds more than the credential creating it.
 */
export function beyondCaller(caller: Principal, role: Role, scopes: string[], what: string): void {
  const beyond = [...effectivePermissions(role, scopes)].filter((p) => !caller.permissions.has(p));
  if (beyond.length) {
    throw new ProblemError(403, 'permission_denied', `${what} cannot hold more than the credential creating it; this one lacks ${beyond.slice(0, 5).join(', ')}${beyond.length > 5 ? ', …' : ''}.`, {
      permission: beyond[0],
    });
  }
}

export async function createOAuthClient(q: Queryable, orgId: string, input: { role: Role; scopes?: string[]; label?: string | null }): Promise<IssuedClient> {
  const scopes = [...new Set(input.scopes ?? [])];
  checkScopes(input.role, scopes);
  const clientId = newId('ocl');
  const clientSecret = CLIENT_SECRET_PREFIX + newSecret();
  const client = await repo.insertClient(q, orgId, { id: clientId, role: input.role, scopes, secretHash: hashSecret(clientSecret), label: input.label ?? null });
  return { clientId, clientSecret, client };
}

export const listAllOAuthClients = repo.allClients;

/** Answers the revoked client, or undefined when there is no live client of that id in the organization. */
export const revokeOAuthClient = (q: Queryable, orgId: string, clientId: string, at = new Date()) => repo.revokeClient(q, orgId, clientId, at);

function checkPassword(password: string): void {
  if (password.length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH) {
    throw new IdentityInputError(`The password must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters.`, 'password');
  }
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** One-time login links work for 24 hours. */
export const LOGIN_LINK_SECONDS = 24 * 3600;

/**
 * Creates a user with a membership: with a password, or (without one) a one-time login link answered as
 * `loginToken`, good for 24 hours.
 */
export async function createUser(
  q: Queryable,
  input: { email: string; orgId: string; role: Role; password?: string },
): Promise<{ userId: string; loginToken?: string }> {
  const email = input.email.trim();
  if (!EMAIL.test(email) || email.length > 320) throw new IdentityInputError(`${input.email} is not an email address.`, 'email');
  if (input.password !== undefined) checkPassword(input.password);
  if (await repo.findUserByEmail(q, email)) throw new IdentityInputError(`A user with the email ${email} exists already; add a membership to it instead.`, 'email');
  const userId = newId('usr');
  await repo.insertUser(q, { id: userId, email, passwordHash: input.password === undefined ? null : await hashPassword(input.password) });
  await repo.upsertMembership(q, input.orgId, userId, input.role);
  if (input.password !== undefined) return { userId };
  return { userId, loginToken: await issueLoginLink(q, userId) };
}

export async function issueLoginLink(q: Queryable, userId: string, now = new Date()): Promise<string> {
  const token = LOGIN_LINK_PREFIX + newSecret();
  await repo.setLoginLink(q, userId, hashSecret(token), new Date(now.getTime() + LOGIN_LINK_SECONDS * 1000));
  return token;
}

/** Adds the user to an organization with a role, or changes the role they hold there. */
export async function addMembership(q: Queryable, input: { userId: string; orgId: string; role: Role }): Promise<void> {
  if (!(await repo.findUser(q, input.userId))) throw new IdentityInputError(`No user ${input.userId}.`, 'user');
  await repo.upsertMembership(q, input.orgId, input.userId, input.role);
}

/** Ends the user's membership in the organization: its sessions are refused there from the next request on. */
export async function removeMembership(q: Queryable, input: { userId: string; orgId: string }): Promise<void> {
  if (!(await repo.deleteMembership(q, input.orgId, input.userId))) {
    throw new IdentityInputError(`User ${input.userId} is not a member of ${input.orgId}.`, 'user');
  }
}

/** Sets a new password, or (without one) clears it and answers a one-time login link. */
export async function resetPassword(q: Queryable, input: { userId: string; password?: string }): Promise<{ loginToken?: string }> {
  if (input.password !== undefined) checkPassword(input.password);
  const hash = input.password === undefined ? null : await hashPassword(input.password);
  if (!(await repo.setPassword(q, input.userId, hash))) throw new IdentityInputError(`No user ${input.userId}.`, 'user');
  return input.password === undefined ? { loginToken: await issueLoginLink(q, input.userId) } : {};
}
