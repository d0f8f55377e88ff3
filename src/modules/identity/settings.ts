import { announceCredentialRevoked, ApiKeyRefusedError, createApiKey, findApiKey, liveOwnerKeyCount, pageApiKeys, revokeApiKey } from '../../auth/credentials.js';
import { lockOrganization, OrganizationInputError, renameOrganization } from '../../auth/organizations.js';
import { organizationAnswer } from './deletion.js';
import type { Role } from '../../auth/permissions.js';
import { decodeCursor, pageOf } from '../../db/paging.js';
import { defineOperation, type OperationContext } from '../../rpc/define.js';
import { conflict, invalidInput, notFound, ProblemError } from '../../rpc/errors.js';
import { pageOut } from '../../rpc/outputs.js';
import * as repo from './repository.js';
import { addMembership, beyondCaller, createUser, IdentityInputError, removeMembership } from './service.js';
import {
  AddedMember,
  AddMember,
  ApiKey,
  ApiKeyId,
  CreateApiKey,
  GetOrganization,
  IssuedApiKey,
  ListApiKeys,
  ListMembers,
  Member,
  MemberId,
  Organization,
  RenameOrganization,
  SetMemberRole,
} from './schemas.js';

/**
 * The organization's settings over the API, so the console and integrators manage keys, people and the
 * organization's name through the operations everyone uses (the CLI works on the data directory and, embedded,
 * cannot while the server holds it). Extensions in their own namespace: the specification manages none of
 * this through the API ("created in the service console under the API keys settings"). They need
 * `webhooks.write`, the integration-settings permission that exactly the owner and admin roles hold, and sit
 * in the `core` module, so every plan can manage its keys and people.
 *
 * Two rules beyond the permission: only an owner grants the owner role or changes an owner's membership or
 * key (an admin holds the same permissions, so the role is the only thing between them); and the
 * organization always keeps an owner — an owner membership or a live owner API key — so the last one can be
 * neither removed, demoted nor revoked (409 `last_owner`). Owner changes lock the organization row first, so
 * two concurrent removals cannot each see the other's owner remaining.
 */
const permission = 'webhooks.write' as const;
const feature = 'core' as const;

function requireOwnerCaller(ctx: OperationContext, what: string): void {
  if (ctx.principal.role !== 'owner') {
    throw new ProblemError(403, 'permission_denied', `Only an owner ${what}; this credential acts as ${ctx.principal.role ?? 'a machine'}.`, { permission });
  }
}

/** Refuses a change that would leave the organization no owner (it is called with the organization row locked). */
async function keepAnOwner(ctx: OperationContext, what: string): Promise<void> {
  const owners = (await repo.ownerMembershipCount(ctx.tx, ctx.orgId)) + (await liveOwnerKeyCount(ctx.tx, ctx.orgId));
  if (owners <= 1) {
    throw conflict('last_owner', `${what} would leave the organization without an owner; make another member an owner (or create an owner API key) first.`);
  }
}

export const settingsOperations = [
  defineOperation({
    name: 'identity.createApiKey',
    extension: true,
    summary: 'Create an API key with a role, optionally narrowed by scopes; the secret is answered once and never again.',
    description:
      'An extension (the console’s API keys settings). The key works at once, on every API process. It holds `role` narrowed by `scopes` ' +
      '(empty: the whole role) and never more than the credential creating it: a permission the caller lacks is 403 `permission_denied`, ' +
      'and only an owner creates an owner key. An unknown scope, or scopes leaving the role nothing, is 400 naming `scopes`. Only its SHA-256 is stored.',
    permission,
    feature,
    get: false,
    input: CreateApiKey,
    output: IssuedApiKey,
    errors: [],
    async handler(ctx, input) {
      const scopes = [...new Set(input.scopes ?? [])];
      if (input.role === 'owner') requireOwnerCaller(ctx, 'creates an owner key');
      beyondCaller(ctx.principal, input.role, scopes, 'A key');
      try {
        const issued = await createApiKey(ctx.tx, ctx.orgId, input.role, scopes, input.label);
        const key = (await findApiKey(ctx.tx, ctx.orgId, issued.id))!;
        return { ...key, apiKey: issued.apiKey };
      } catch (error) {
        if (error instanceof ApiKeyRefusedError) throw invalidInput([{ path: 'scopes', message: error.message }], error.message);
        throw error;
      }
    },
  }),

  defineOperation({
    name: 'identity.listApiKeys',
    extension: true,
    summary: 'The organization’s API keys, oldest first; never their secrets.',
    description: 'An extension. Revoked keys are left out unless `filter.includeRevoked` is true. Bridge tokens are not API keys and are not listed.',
    permission,
    feature,
    get: true,
    input: ListApiKeys,
    output: pageOut(ApiKey),
    errors: ['invalid_cursor'],
    async handler(ctx, { filter, page }) {
      const after = decodeCursor(page.cursor, 'api_keys', ['id']);
      const rows = await pageApiKeys(ctx.tx, ctx.orgId, filter.includeRevoked ?? false, after ? String(after[0]) : null, page.limit + 1);
      return pageOf(rows, page.limit, 'api_keys', (k) => [k.id]);
    },
  }),

  defineOperation({
    name: 'identity.revokeApiKey',
    extension: true,
    summary: 'Revoke an API key: refused from now on, and streams open with it end within seconds.',
    description:
      'An extension. This API process refuses the key at once and every other within 2 s (its credential cache), and a stream open with it ends at its next ' +
      'credential check (every 2 s). Revoking a revoked key is 409 `api_key_revoked`; another organization’s key is 404 like a missing one. ' +
      'Only an owner revokes an owner key, and not the organization’s last owner (409 `last_owner`).',
    permission,
    feature,
    get: false,
    input: ApiKeyId,
    output: ApiKey,
    errors: ['not_found', 'api_key_revoked', 'last_owner'],
    async handler(ctx, { id }) {
      await lockOrganization(ctx.tx, ctx.orgId);
      const key = await findApiKey(ctx.tx, ctx.orgId, id, { forUpdate: true });
      if (!key) throw notFound('API key', id);
      if (key.revokedAt) throw conflict('api_key_revoked', `API key ${id} was revoked at ${key.revokedAt}.`, { from: 'revoked', to: 'revoked' });
      if (key.role === 'owner') {
        requireOwnerCaller(ctx, 'revokes an owner key');
        await keepAnOwner(ctx, `Revoking owner key ${id}`);
      }
      const revoked = (await revokeApiKey(ctx.tx, ctx.orgId, id))!;
      ctx.afterCommit(async () => announceCredentialRevoked(id));
      return revoked;
    },
  }),

  defineOperation({
    name: 'identity.listMembers',
    extension: true,
    summary: 'The organization’s members: each user’s email and role here.',
    description: 'An extension. Ordered by user id. A user’s memberships in other organizations are not shown.',
    permission,
    feature,
    get: true,
    input: ListMembers,
    output: pageOut(Member),
    errors: ['invalid_cursor'],
    async handler(ctx, { page }) {
      return repo.listMembers(ctx.tx, ctx.orgId, page);
    },
  }),

  defineOperation({
    name: 'identity.addMember',
    extension: true,
    summary: 'Add a user to the organization by email with a role, inviting them when the email has no user yet.',
    description:
      'An extension. An email without a user creates one with a one-time login token (`loginToken`, shown once, good for 24 hours; the ' +
      'console opens it at `/app/#loginToken=…`, where the user signs in and may then set a password with the CLI); an email with a user ' +
      'adds the membership and answers `loginToken: null`. An email already a member here is 409 `already_member` (change the role with ' +
      '`identity.setMemberRole`). Only an owner adds an owner. A malformed email is 400 naming `email`.',
    permission,
    feature,
    get: false,
    input: AddMember,
    output: AddedMember,
    errors: ['already_member'],
    async handler(ctx, input) {
      if (input.role === 'owner') requireOwnerCaller(ctx, 'makes a member an owner');
      const existing = await repo.findUserByEmail(ctx.tx, input.email);
      let loginToken: string | null = null;
      let userId: string;
      try {
        if (existing) {
          if (await repo.findMember(ctx.tx, ctx.orgId, existing.id)) {
            throw conflict('already_member', `${existing.email} is a member of this organization already; change the role instead.`, {
              errors: [{ path: 'email', message: 'already a member' }],
            });
          }
          userId = existing.id;
          await addMembership(ctx.tx, { userId, orgId: ctx.orgId, role: input.role });
        } else {
          const created = await createUser(ctx.tx, { email: input.email, orgId: ctx.orgId, role: input.role });
          userId = created.userId;
          loginToken = created.loginToken ?? null;
        }
      } catch (error) {
        if (error instanceof IdentityInputError) throw invalidInput([{ path: error.field, message: error.message }], error.message);
        throw error;
      }
      return { ...(await repo.findMember(ctx.tx, ctx.orgId, userId))!, loginToken };
    },
  }),

  defineOperation({
    name: 'identity.setMemberRole',
    extension: true,
    summary: 'Change the role a member holds in the organization.',
    description:
      'An extension. The member’s sessions act with the new role from their next request; a stream open with the old role ends at its next ' +
      'credential check. Only an owner makes a member an owner or changes an owner’s role, and not the last owner’s (409 `last_owner`). ' +
      'A user who is no member here is 404.',
    permission,
    feature,
    get: false,
    input: SetMemberRole,
    output: Member,
    errors: ['not_found', 'last_owner'],
    async handler(ctx, { userId, role }) {
      await lockOrganization(ctx.tx, ctx.orgId);
      const member = await repo.findMember(ctx.tx, ctx.orgId, userId, { forUpdate: true });
      if (!member) throw notFound('member', userId, 'userId');
      if (member.role === role) return member;
      if (role === 'owner') requireOwnerCaller(ctx, 'makes a member an owner');
      if (member.role === 'owner') {
        requireOwnerCaller(ctx, 'changes an owner’s role');
        await keepAnOwner(ctx, `Making ${member.email} ${role}`);
      }
      await addMembership(ctx.tx, { userId, orgId: ctx.orgId, role: role as Role });
      return (await repo.findMember(ctx.tx, ctx.orgId, userId))!;
    },
  }),

  defineOperation({
    name: 'identity.removeMember',
    extension: true,
    summary: 'End a user’s membership in the organization; answers the membership as it was.',
    description:
      'An extension. The user’s sessions are refused here from the next request on, and streams they opened here end at their next ' +
      'credential check; their user and other memberships remain. Only an owner removes an owner, and not the last owner (409 `last_owner`). ' +
      'A user who is no member here is 404.',
    permission,
    feature,
    get: false,
    input: MemberId,
    output: Member,
    errors: ['not_found', 'last_owner'],
    async handler(ctx, { userId }) {
      await lockOrganization(ctx.tx, ctx.orgId);
      const member = await repo.findMember(ctx.tx, ctx.orgId, userId, { forUpdate: true });
      if (!member) throw notFound('member', userId, 'userId');
      if (member.role === 'owner') {
        requireOwnerCaller(ctx, 'removes an owner');
        await keepAnOwner(ctx, `Removing ${member.email}`);
      }
      await removeMembership(ctx.tx, { userId, orgId: ctx.orgId });
      return member;
    },
  }),

  defineOperation({
    name: 'identity.getOrganization',
    extension: true,
    summary: 'The organization the credential acts in: its name, plan, time zone and any scheduled deletion.',
    description: 'An extension. `deletion` is null unless an owner scheduled the organization’s deletion (identity.scheduleOrganizationDeletion): then it says when, and after which time everything the organization owns is purged.',
    permission,
    feature,
    get: true,
    input: GetOrganization,
    output: Organization,
    errors: [],
    async handler(ctx) {
      return organizationAnswer(ctx.tx, ctx.orgId);
    },
  }),

  defineOperation({
    name: 'identity.renameOrganization',
    extension: true,
    summary: 'Rename the organization (what the console and its documents show).',
    description: 'An extension. The name is trimmed, 1 to 200 characters (400 naming `name` otherwise).',
    permission,
    feature,
    get: false,
    input: RenameOrganization,
    output: Organization,
    errors: [],
    async handler(ctx, { name }) {
      try {
        await renameOrganization(ctx.tx, ctx.orgId, name);
      } catch (error) {
        if (error instanceof OrganizationInputError) throw invalidInput([{ path: 'name', message: error.message }], error.message);
        throw error;
      }
      return organizationAnswer(ctx.tx, ctx.orgId);
    },
  }),
];
