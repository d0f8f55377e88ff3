import type { Queryable } from '../db/client.js';
import { newId } from '../lib/ids.js';
import { queueWebhookDeliveries } from '../modules/webhooks/service.js';

/** Event envelope, as delivered to webhooks and the feed: `{ id, type, createdAt, organizationId, data }`. */
export interface EventEnvelope {
  id: string;
  type: string;
  createdAt: string;
  organizationId: string;
  data: Record<string, unknown>;
}

interface PendingEvent {
  id: string;
  type: string;
  data: string;
}

/** A transaction's events not yet written, per organization, and what their write will answer. */
interface Outbox {
  byOrg: Map<string, PendingEvent[]>;
  queued: Promise<number>;
  settle: (deliveries: number) => void;
}

const outboxes = new WeakMap<Queryable, Outbox>();

/**
 * Writes an event inside the caller's transaction, so it commits or rolls back with the change, and in
 * the same transaction queues its webhook deliveries (the outbox: a delivery per matching active
 * endpoint exists exactly when the event does).
 *
 * The rows are written just before COMMIT (Queryable.beforeCommit): all the transaction's events in one
 * statement per organization and their deliveries in another, so a transaction writing a hundred
 * events costs two statements rather than two hundred. Until then the event is not in the
 * events table, not even for its own transaction (nothing reads an event back in the transaction that
 * writes it). On a Queryable without beforeCommit (an autocommit connection) it is written at once.
 *
 * Resolves to the event id and `queued`: how many deliveries the transaction's events queued, settled
 * when they are written before COMMIT (await it after the commit; it never rejects, and it answers 0 when
 * the write failed).
 */
export async function writeEvent(
  tx: Queryable,
  orgId: string,
  type: string,
  data: Record<string, unknown>,
): Promise<{ id: string; queued: Promise<number> }> {
  const event: PendingEvent = { id: newId('evt'), type, data: JSON.stringify(data) };
  if (!tx.beforeCommit) {
    const deliveries = await writeEvents(tx, orgId, [event]);
    return { id: event.id, queued: Promise.resolve(deliveries) };
  }
  let outbox = outboxes.get(tx);
  if (!outbox) {
    let settle!: (deliveries: number) => void;
    const queued = new Promise<number>((resolve) => (settle = resolve));
    outbox = { byOrg: new Map(), queued, settle };
    outboxes.set(tx, outbox);
    const pending = outbox;
    tx.beforeCommit(async () => {
      outboxes.delete(tx);
      let deliveries = 0;
      try {
        for (const [org, events] of pending.byOrg) deliveries += await writeEvents(tx, org, events);
      } catch (error) {
        pending.settle(0);
        throw error;
      }
      pending.settle(deliveries);
    });
  }
  const events = outbox.byOrg.get(orgId) ?? [];
  events.push(event);
  outbox.byOrg.set(orgId, events);
  return { id: event.id, queued: outbox.queued };
}

/** Inserts events of one organization in the given order (their feed sequence) and queues their deliveries. */
async function writeEvents(tx: Queryable, orgId: string, events: PendingEvent[]): Promise<number> {
  if (events.length === 1) {
    await tx.query(`insert into events (org_id, id, type, data) values ($1, $2, $3, $4)`, [orgId, events[0].id, events[0].type, events[0].data], {
      name: 'events_insert_one',
    });
  } else {
    // Sorted by ordinality so the rows take their identity sequence numbers in the order they were written.
    await tx.query(
      `insert into events (org_id, id, type, data)
       select $1, e.id, e.type, e.data::jsonb from unnest($2::text[], $3::text[], $4::text[]) with ordinality as e (id, type, data, n) order by e.n`,
      [orgId, events.map((e) => e.id), events.map((e) => e.type), events.map((e) => e.data)],
      { name: 'events_insert_many' },
    );
  }
  return queueWebhookDeliveries(tx, orgId, events);
}
