import type { Queryable } from '../db/client.js';
import { newId } from '../lib/ids.js';

/** Event envelope, as delivered to webhooks and the feed: `{ id, type, createdAt, organizationId, data }`. */
export interface EventEnvelope {
  id: string;
  type: string;
  createdAt: string;
  organizationId: string;
  data: Record<string, unknown>;
}

/** Writes an event row inside the caller's transaction, so it commits or rolls back with the change. */
export async function writeEvent(tx: Queryable, orgId: string, type: string, data: Record<string, unknown>): Promise<string> {
  const id = newId('evt');
  await tx.query(`insert into events (org_id, id, type, data) values ($1, $2, $3, $4)`, [orgId, id, type, JSON.stringify(data)]);
  return id;
}
