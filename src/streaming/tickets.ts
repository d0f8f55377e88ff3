import type { FastifyRequest } from 'fastify';
import type { Database } from '../db/client.js';
import { unauthorized, type Authenticate } from '../http/guards.js';
import { endedSources, hashSecret, type CredentialResolver, type CredentialSource, type Principal } from '../auth/credentials.js';
import type { Permission, Role } from '../auth/permissions.js';
import type { Plan } from '../auth/plans.js';
import { newId, newSecret } from '../lib/ids.js';
import { iso } from '../db/sql.js';

/**
 * Stream tickets (migrations/0008_stream_tickets.sql): what a browser's EventSource, which cannot send an
 * Authorization header, presents instead of the API key: one batch, one connection, 60 seconds.
 */
export const STREAM_TICKET_PREFIX = 'fcs_';
export const STREAM_TICKET_TTL_SECONDS = 60;

export async function issueStreamTicket(
  db: Database,
  principal: Principal,
  batchId: string,
  ttlSeconds = STREAM_TICKET_TTL_SECONDS,
): Promise<{ ticket: string; expiresAt: string }> {
  const ticket = STREAM_TICKET_PREFIX + newSecret();
  return db.transaction(
    async (tx) => {
      // Swept here rather than by a job: the table only ever holds about a minute of an organization's tickets.
      await tx.query(`delete from stream_tickets where org_id = $1 and expires_at < now()`, [principal.orgId]);
      const [row] = await tx.query<{ expires_at: Date }>(
        `insert into stream_tickets (org_id, id, batch_id, credential_id, kind, role, permissions, source, secret_hash, expires_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, now() + make_interval(secs => $10))
         returning expires_at`,
        [
          principal.orgId,
          newId('stk'),
          batchId,
          principal.credentialId,
          principal.kind,
          principal.role,
          [...principal.permissions],
          JSON.stringify(principal.source),
          hashSecret(ticket),
          ttlSeconds,
        ],
      );
      return { ticket, expiresAt: iso(row.expires_at)! };
    },
    { orgId: principal.orgId },
  );
}

/**
 * Spends the ticket and answers the principal that asked for it, as it stood then, or null when the ticket
 * is unknown, for another batch, expired, already spent, or the token it was asked for with has ended since
 * (revoked, expired, its OAuth client revoked).
 */
export async function redeemStreamTicket(db: Database, resolvers: readonly CredentialResolver[], ticket: string, batchId: string): Promise<Principal | null> {
  if (!ticket.startsWith(STREAM_TICKET_PREFIX)) return null;
  const [row] = await db.query<{ id: string; org_id: string; kind: Principal['kind']; role: Role | null; permissions: Permission[]; plan: Plan; source: CredentialSource }>(
    `select * from firstcrack_redeem_stream_ticket_principal($1, $2)`,
    [hashSecret(ticket), batchId],
  );
  if (!row || (await endedSources(resolvers, row.org_id, [row.source])).size > 0) return null;
  return { credentialId: row.id, kind: row.kind, orgId: row.org_id, plan: row.plan, role: row.role, permissions: new Set(row.permissions), machineId: null, source: row.source };
}

/**
 * The guard chain's authentication by `?ticket=` for the batch in the path. The ticket's issue was counted
 * against its key's API budget, so the caller carries no budget key: redeeming it is not counted again.
 */
export function streamTicket(db: Database, resolvers: readonly CredentialResolver[]): Authenticate {
  return async (request: FastifyRequest) => {
    const ticket = (request.query as Record<string, unknown>).ticket;
    const batchId = (request.params as { batchId: string }).batchId;
    const principal = typeof ticket === 'string' ? await redeemStreamTicket(db, resolvers, ticket, batchId) : null;
    if (!principal) throw unauthorized('The stream ticket is not valid: unknown, for another batch, expired or already used.');
    return { principal };
  };
}
