import type { Queryable } from '../../db/client.js';
import type { JobSender } from '../../jobs/queue.js';
import { newSecret } from '../../lib/ids.js';
import * as repo from './repository.js';

/**
 * The outbox (called by src/events/emit.ts for every event, in the event's transaction): a delivery row
 * and a delivery job for every active endpoint subscribed to the event's type. Both exist exactly when the
 * event commits, so a rolled-back event is never sent and a committed one is sent even if the process dies
 * right after the commit. Endpoints are matched here, at commit, rather than by a later fan-out job: an
 * organization without endpoints pays one indexed read per event and nothing in the queue, and the
 * subscription that counts is the one in force when the event happened. Resolves to the deliveries queued.
 */
export async function queueWebhookDeliveries(tx: Queryable, jobs: JobSender, orgId: string, event: { id: string; type: string }): Promise<number> {
  // Matching and inserting in one statement for the first few endpoints (the usual case: one round trip).
  const candidates = Array.from({ length: OUTBOX_CANDIDATES }, () => ({ id: repo.newDeliveryId(), token: newSecret(12) }));
  const deliveries = await repo.insertSubscribedDeliveries(tx, orgId, event, candidates);
  if (deliveries.length === candidates.length) {
    const taken = new Set(deliveries.map((d) => d.endpointId));
    const rest = (await repo.subscribedEndpointIds(tx, orgId, event.type))
      .filter((endpointId) => !taken.has(endpointId))
      .map((endpointId) => ({ id: repo.newDeliveryId(), endpointId, token: newSecret(12) }));
    if (rest.length > 0) await repo.insertDeliveries(tx, orgId, event, rest);
    deliveries.push(...rest);
  }
  for (const delivery of deliveries) await jobs.send(tx, 'webhookDelivery', { orgId, deliveryId: delivery.id, token: delivery.token });
  return deliveries.length;
}

/** How many endpoints of an event the outbox's single statement covers. */
const OUTBOX_CANDIDATES = 4;
