import type { Queryable } from '../db/client.js';
import { newId } from '../lib/ids.js';
import type { JobSender } from '../jobs/queue.js';
import { queueWebhookDeliveries } from '../modules/webhooks/service.js';

/** Event envelope, as delivered to webhooks and the feed: `{ id, type, createdAt, organizationId, data }`. */
export interface EventEnvelope {
  id: string;
  type: string;
  createdAt: string;
  organizationId: string;
  data: Record<string, unknown>;
}

/**
 * Writes an event row inside the caller's transaction, so it commits or rolls back with the change, and
 * in the same transaction queues its webhook deliveries (the outbox: a delivery job per matching active
 * endpoint exists exactly when the event does). Resolves to the event id and how many deliveries were queued.
 */
export async function writeEvent(
  tx: Queryable,
  jobs: JobSender,
  orgId: string,
  type: string,
  data: Record<string, unknown>,
): Promise<{ id: string; deliveries: number }> {
  const id = newId('evt');
  await tx.query(
    `insert into events (org_id, id, type, data) values ($1, $2, $3, $4)`,
    [orgId, id, type, JSON.stringify(data)],
  );
  const deliveries = await queueWebhookDeliveries(tx, jobs, orgId, { id, type });
  return { id, deliveries };
}
