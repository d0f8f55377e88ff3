import { z } from 'zod';
import { defineOperation, type OperationContext } from '../../rpc/define.js';
import { conflict, invalidInput, notFound, ProblemError, throwNotFound } from '../../rpc/errors.js';
import { pageOut } from '../../rpc/outputs.js';
import type { CatalogEvent } from '../../events/define.js';
import { invalidFeedCursor, readEventFeed } from '../../events/feed.js';
import { openCursor, sealCursor } from '../../db/paging.js';
import { encryptSecret, loadSecretKey } from '../../crypto/secrets.js';
import * as repo from './repository.js';
import {
  ById,
  CreateEndpoint,
  Delivery,
  Endpoint,
  EndpointWithSecret,
  EventFeed,
  EventTypes,
  FEED_LIMIT,
  ListDeliveries,
  ListEndpoints,
  ListEvents,
  ListEventTypes,
  OVERLAP_MINUTES,
  RotateSecret,
  UpdateEndpoint,
} from './schemas.js';
import { endpointDisabled } from './events.js';
import { checkUrlShape, hostOf, resolveChecked } from './ssrf.js';
import { newSigningSecret } from './signing.js';

const feature = 'api' as const;

export const webhookOperations = [
  defineOperation({
    name: 'webhooks.createEndpoint',
    summary: 'Register a webhook endpoint; answers its signing secret, once.',
    description:
      'The URL must be https and must not resolve to a loopback, private, link-local, CGNAT, multicast, reserved or cloud metadata address ' +
      '(400 `webhook_url_refused`, naming `url`); `WEBHOOK_ALLOW_PRIVATE_URLS=true` (development, tests) also allows http and private addresses, never metadata ones. ' +
      'A host that does not resolve yet is accepted: every delivery resolves and checks it again before connecting. ' +
      '`eventTypes`: exact types from webhooks.listEventTypes or prefix wildcards (`inventory.*`, `inventory.green.*`); empty or absent subscribes to every type, ' +
      'including types added later; an unknown type or a wildcard matching no published type is 400 naming the entry. ' +
      'The secret (`whsec_` + base64 of 32 random bytes) is stored encrypted (AES-256-GCM) and no answer shows it again.',
    permission: 'webhooks.write',
    feature,
    get: false,
    input: CreateEndpoint,
    output: EndpointWithSecret,
    errors: ['webhook_url_refused'],
    async handler(ctx, input) {
      await checkUrl(ctx, input.url);
      const eventTypes = checkEventTypes(ctx.services.eventCatalog, input.eventTypes ?? []);
      const secret = newSigningSecret();
      const endpoint = await repo.insertEndpoint(ctx.tx, ctx.orgId, {
        url: input.url,
        description: input.description,
        eventTypes,
        secretEncrypted: encryptSecret(loadSecretKey(ctx.services.config), secret),
      });
      return { ...endpoint, secret };
    },
  }),

  defineOperation({
    name: 'webhooks.getEndpoint',
    summary: 'A webhook endpoint (never its secret).',
    description: 'A deleted endpoint, and another organization’s, answer 404 like a missing one; its deliveries stay listed by webhooks.listDeliveries.',
    permission: 'webhooks.read',
    feature,
    get: true,
    input: ById,
    output: Endpoint,
    errors: ['not_found'],
    async handler(ctx, { id }) {
      return (await repo.findEndpoint(ctx.tx, ctx.orgId, id)) ?? throwNotFound('webhook endpoint', id);
    },
  }),

  defineOperation({
    name: 'webhooks.listEndpoints',
    summary: 'Webhook endpoints, oldest first.',
    description: 'Filter: `status` (active, disabled). Deleted endpoints are left out.',
    permission: 'webhooks.read',
    feature,
    get: true,
    input: ListEndpoints,
    output: pageOut(Endpoint),
    errors: ['invalid_cursor'],
    async handler(ctx, { filter, page }) {
      return repo.listEndpoints(ctx.tx, ctx.orgId, filter, page);
    },
  }),

  defineOperation({
    name: 'webhooks.updateEndpoint',
    summary: 'Change an endpoint’s description, subscription or status.',
    description:
      'Only the fields given change; `description: null` clears it. `status: active` re-enables the endpoint and clears its consecutive-failure count ' +
      '(deliveries canceled while it was disabled stay canceled; webhooks.redeliver sends one again). `status: disabled` stops deliveries at once ' +
      '(pending ones are canceled) and emits `webhooks.endpoint.disabled` with reason `manual`. `eventTypes` follows the rules of createEndpoint.',
    permission: 'webhooks.write',
    feature,
    get: false,
    input: UpdateEndpoint,
    output: Endpoint,
    errors: ['not_found'],
    emits: [endpointDisabled],
    async handler(ctx, { id, ...changes }) {
      const current = (await repo.findEndpoint(ctx.tx, ctx.orgId, id, { forUpdate: true })) ?? throwNotFound('webhook endpoint', id);
      const eventTypes = changes.eventTypes && checkEventTypes(ctx.services.eventCatalog, changes.eventTypes, 'eventTypes');
      const disabling = changes.status === 'disabled' && current.status === 'active';
      const endpoint = await repo.updateEndpoint(ctx.tx, ctx.orgId, id, {
        description: changes.description,
        eventTypes,
        // Disabling a disabled endpoint keeps its reason and time.
        status: changes.status === 'disabled' && !disabling ? undefined : changes.status,
        disabledReason: 'manual',
      });
      if (disabling) {
        await repo.cancelPendingDeliveries(ctx.tx, ctx.orgId, id);
        await ctx.emit('webhooks.endpoint.disabled', { endpoint, reason: 'manual' });
      }
      return endpoint;
    },
  }),

  defineOperation({
    name: 'webhooks.deleteEndpoint',
    summary: 'Delete an endpoint: deliveries stop at once; its delivery history stays readable.',
    description: 'Pending deliveries are canceled. The endpoint answers 404 from then on (deleting twice too); webhooks.listDeliveries still lists its deliveries.',
    permission: 'webhooks.write',
    feature,
    get: false,
    input: ById,
    output: Endpoint,
    errors: ['not_found'],
    async handler(ctx, { id }) {
      (await repo.findEndpoint(ctx.tx, ctx.orgId, id, { forUpdate: true })) ?? throwNotFound('webhook endpoint', id);
      await repo.cancelPendingDeliveries(ctx.tx, ctx.orgId, id);
      return repo.deleteEndpoint(ctx.tx, ctx.orgId, id);
    },
  }),

  defineOperation({
    name: 'webhooks.rotateSecret',
    summary: 'Issue a new signing secret (answered once); the old one keeps signing during the overlap.',
    description:
      `\`overlapMinutes\` (0 to ${OVERLAP_MINUTES.max}, default ${OVERLAP_MINUTES.default}): until it ends every delivery carries two signatures, ` +
      'space-separated in Service-Signature, the new secret’s first; either verifies. 0 cuts over at once. Rotating again during an overlap ' +
      'ends that overlap: only the secret in force until now signs alongside the new one.',
    permission: 'webhooks.write',
    feature,
    get: false,
    input: RotateSecret,
    output: EndpointWithSecret,
    errors: ['not_found'],
    async handler(ctx, { id, overlapMinutes }) {
      (await repo.findEndpoint(ctx.tx, ctx.orgId, id, { forUpdate: true })) ?? throwNotFound('webhook endpoint', id);
      const secret = newSigningSecret();
      const endpoint = await repo.rotateSecret(ctx.tx, ctx.orgId, id, encryptSecret(loadSecretKey(ctx.services.config), secret), overlapMinutes);
      return { ...endpoint, secret };
    },
  }),

  defineOperation({
    name: 'webhooks.listEvents',
    summary: 'The raw event feed: every event of the organization in commit order, subscribed or not.',
    description:
      `\`limit\` 1 to ${FEED_LIMIT.max}, default ${FEED_LIMIT.default}. Extension: \`cursor\`, the \`nextCursor\` of the previous answer; a poller that ` +
      'passes it back sees every event exactly once, in commit order, even while events are written concurrently (an event is served once every ' +
      'transaction that began before its own has ended, so a long transaction on the database server delays the feed). `nextCursor` is the position after the last event served (or the cursor given when ' +
      'nothing new is there): keep polling with it. Filters: `types` (exact types or prefix wildcards such as `inventory.*`), `from` (created at ' +
      'or after) and `to` (created before); keep the same filter while following one cursor. An unreadable cursor is 400 naming `cursor`.',
    permission: 'webhooks.read',
    feature,
    get: true,
    input: ListEvents,
    output: EventFeed,
    errors: [],
    async handler(ctx, { filter, limit, cursor }) {
      // The feed's cursor is sealed for the organization as page cursors are (db/paging.ts), here rather than by the dispatcher: it is not in a page.
      const { config } = ctx.services;
      const plain = cursor === undefined ? undefined : openCursor(config, ctx.orgId, cursor, invalidFeedCursor);
      const feed = await readEventFeed(ctx.tx, ctx.orgId, { ...filter, cursor: plain, limit });
      return { ...feed, nextCursor: feed.nextCursor === null ? null : sealCursor(config, ctx.orgId, feed.nextCursor) };
    },
  }),

  defineOperation({
    name: 'webhooks.listEventTypes',
    summary: 'Every published event type, with its description and the JSON Schema of its data.',
    description: 'Read off the operations’ declarations (the event catalog); `emittedBy` names the operations that emit each type. Sorted by type.',
    permission: 'webhooks.read',
    feature,
    get: true,
    input: ListEventTypes,
    output: EventTypes,
    errors: [],
    async handler(ctx) {
      return {
        items: [...ctx.services.eventCatalog.values()].map((event) => {
          const { $schema: _, ...payloadSchema } = z.toJSONSchema(event.payload, { io: 'output', unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
          return { type: event.type, description: event.summary, payloadSchema, emittedBy: event.emittedBy };
        }),
      };
    },
  }),

  defineOperation({
    name: 'webhooks.listDeliveries',
    summary: 'Deliveries with their attempt series: when each went, the status code, latency, the first KB of the answer, the error.',
    description:
      'One delivery per event per endpoint, oldest first. Filters: `endpointId` (deleted endpoints’ deliveries too), `eventId`, `status` ' +
      '(pending, succeeded, failed: schedule spent, canceled: the endpoint was disabled or deleted first). `nextAttemptAt` is when the next ' +
      'attempt is due while pending.',
    permission: 'webhooks.read',
    feature,
    get: true,
    input: ListDeliveries,
    output: pageOut(Delivery),
    errors: ['invalid_cursor'],
    async handler(ctx, { filter, page }) {
      return repo.listDeliveries(ctx.tx, ctx.orgId, filter, page);
    },
  }),

  defineOperation({
    name: 'webhooks.redeliver',
    summary: 'Send a delivery again: its attempt schedule starts over; same event id.',
    description:
      'Any delivery, whatever its status: it becomes pending with the first attempt due now, and an attempt already in flight no longer counts. ' +
      'Its endpoint must be active (409 `endpoint_not_active` when disabled or deleted). Receivers deduplicate on Service-Event-Id.',
    permission: 'webhooks.write',
    feature,
    get: false,
    input: ById,
    output: Delivery,
    errors: ['not_found', 'endpoint_not_active'],
    async handler(ctx, { id }) {
      const delivery = (await repo.findDelivery(ctx.tx, ctx.orgId, id, { forUpdate: true })) ?? throwDeliveryNotFound(id);
      const endpoint = await repo.findEndpoint(ctx.tx, ctx.orgId, delivery.endpointId, { forUpdate: true });
      if (!endpoint || endpoint.status !== 'active') {
        throw conflict('endpoint_not_active', `Endpoint ${delivery.endpointId} is ${endpoint ? 'disabled' : 'deleted'}; re-enable it before redelivering.`);
      }
      await repo.restartDelivery(ctx.tx, ctx.orgId, id);
      ctx.afterCommit(async () => ctx.services.jobs.wake?.('webhookDelivery'));
      return (await repo.findDelivery(ctx.tx, ctx.orgId, id))!;
    },
  }),
];

/** Every pattern must name a published type, or a prefix some published type has. */
function checkEventTypes(eventCatalog: ReadonlyMap<string, CatalogEvent>, patterns: string[], path = 'eventTypes'): string[] {
  const published = [...eventCatalog.keys()];
  const errors = patterns.flatMap((pattern, i) => {
    const known = pattern.endsWith('.*') ? published.some((type) => type.startsWith(pattern.slice(0, -1))) : eventCatalog.has(pattern);
    return known ? [] : [{ path: `${path}[${i}]`, message: pattern.endsWith('.*') ? 'matches no published event type' : 'is not a published event type (see webhooks.listEventTypes)' }];
  });
  if (errors.length) throw invalidInput(errors, 'Unknown event types.');
  return [...new Set(patterns)];
}

async function checkUrl(ctx: OperationContext, url: string): Promise<void> {
  const allowPrivate = ctx.services.config.webhooks.allowPrivateUrls;
  const refuse = (message: string) => {
    throw new ProblemError(400, 'webhook_url_refused', `The webhook URL is refused: ${message}.`, { errors: [{ path: 'url', message }] });
  };
  const shape = checkUrlShape(url, allowPrivate);
  if (shape) refuse(shape);
  const resolved = await resolveChecked(hostOf(new URL(url)), allowPrivate);
  if ('refused' in resolved) refuse(`must not resolve to a private address (${resolved.refused})`);
}


function throwDeliveryNotFound(id: string): never {
  throw notFound('webhook delivery', id);
}
