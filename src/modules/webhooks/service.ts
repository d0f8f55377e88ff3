import type { Queryable } from '../../db/client.js';
import type { EventsWrittenHook } from '../../events/emit.js';
import * as repo from './repository.js';

/**
 * The outbox (the manifest registers it with src/events/emit.ts: it runs with a transaction's events, in
 * that transaction, just before it commits): a delivery row, due now, for every active endpoint subscribed to each event's type. The
 * deliveries table is the delivery queue (delivery.ts), so a delivery exists exactly when the event does:
 * a rolled-back event is never sent and a committed one is sent even if the process dies right after the commit. Endpoints are matched here, in the event's
 * transaction, rather than by a later fan-out job: an organization without endpoints pays one indexed
 * read per transaction and nothing in the queue, and the subscription that counts is the one in force
 * when the event happened. Resolves to the deliveries queued.
 */
export const queueWebhookDeliveries: EventsWrittenHook = async (tx: Queryable, orgId: string, events) => {
  if (events.length === 0) return 0;
  // Matching and inserting in one statement for the first few endpoints of every event (the usual case:
  // one round trip for all the transaction's events).
  const candidateIds = Array.from({ length: OUTBOX_CANDIDATES * events.length }, repo.newDeliveryId);
  const deliveries = await repo.insertSubscribedDeliveries(tx, orgId, events, OUTBOX_CANDIDATES, candidateIds);
  const used = new Map<string, Set<string>>();
  for (const d of deliveries) used.set(d.eventId, (used.get(d.eventId) ?? new Set()).add(d.endpointId));
  for (const event of events) {
    const taken = used.get(event.id);
    if (!taken || taken.size < OUTBOX_CANDIDATES) continue;
    const rest = (await repo.subscribedEndpointIds(tx, orgId, event.type))
      .filter((endpointId) => !taken.has(endpointId))
      .map((endpointId) => ({ id: repo.newDeliveryId(), endpointId, eventId: event.id }));
    if (rest.length > 0) await repo.insertDeliveries(tx, orgId, event, rest);
    deliveries.push(...rest);
  }
  return deliveries.length;
};

/** How many endpoints of each event the outbox's single statement covers. */
const OUTBOX_CANDIDATES = 4;
