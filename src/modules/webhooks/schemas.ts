import { z } from 'zod';
import { dateTime, id, page, strict, text } from '../../rpc/schemas.js';
import { idOut, out, timeOut } from '../../rpc/outputs.js';

/** A subscription pattern: an event type, or a prefix wildcard (`inventory.*`, `inventory.green.*`). */
export const EVENT_PATTERN = /^[a-z]+(\.[a-z_]+){0,2}\.\*$|^[a-z]+(\.[a-z_]+){2}$/;

const eventPattern = z
  .string()
  .max(200)
  .regex(EVENT_PATTERN, 'must be an event type such as inventory.green.lot_adjusted or a prefix wildcard such as inventory.*');

/** Exact types and wildcards; each must name a published type or prefix (checked against the catalog by the handler). */
const eventTypes = z.array(eventPattern).max(100);

export const ENDPOINT_STATUSES = ['active', 'disabled'] as const;
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'canceled'] as const;

/** Defaults and bounds the specification leaves open. */
export const OVERLAP_MINUTES = { default: 1440, max: 10_080 } as const;
export const FEED_LIMIT = { default: 100, max: 1000 } as const;

export const CreateEndpoint = strict({
  url: z.string().max(2048),
  description: text(500).optional(),
  eventTypes: eventTypes.optional(),
});

export const UpdateEndpoint = strict({
  id: id(),
  description: text(500).nullable().optional(),
  eventTypes: eventTypes.optional(),
  status: z.enum(ENDPOINT_STATUSES).optional(),
});

export const ById = strict({ id: id() });

export const RotateSecret = strict({
  id: id(),
  overlapMinutes: z.number().int().min(0).max(OVERLAP_MINUTES.max).default(OVERLAP_MINUTES.default),
});

export const ListEndpoints = strict({
  filter: strict({ status: z.enum(ENDPOINT_STATUSES).optional() }).default({}),
  page,
});

export const ListDeliveries = strict({
  filter: strict({
    endpointId: id().optional(),
    eventId: id().optional(),
    status: z.enum(DELIVERY_STATUSES).optional(),
  }).default({}),
  page,
});

export const ListEvents = strict({
  filter: strict({
    /** Exact types and prefix wildcards; none: every type. */
    types: z.array(eventPattern).min(1).max(100).optional(),
    /** Events created at or after this instant. */
    from: dateTime.optional(),
    /** Events created before this instant. */
    to: dateTime.optional(),
  }).default({}),
  limit: z.number().int().min(1).max(FEED_LIMIT.max).default(FEED_LIMIT.default),
  /** Extension: the `nextCursor` of the previous answer, to resume the feed after it. */
  cursor: z.string().min(1).max(200).optional(),
});

export const ListEventTypes = strict({});

export const Endpoint = out({
  id: idOut,
  url: z.string(),
  description: z.string().nullable(),
  eventTypes: z.array(z.string()),
  status: z.enum(ENDPOINT_STATUSES),
  /** manual (updateEndpoint) or failing (auto-disabled); null while active. */
  disabledReason: z.enum(['manual', 'failing']).nullable(),
  disabledAt: timeOut.nullable(),
  consecutiveFailures: z.number().int(),
  /** Since when every attempt has failed; null while the endpoint succeeds. */
  failingSince: timeOut.nullable(),
  /** While a rotation's overlap lasts, deliveries also carry the previous secret's signature until then. */
  previousSecretExpiresAt: timeOut.nullable(),
  createdAt: timeOut,
  updatedAt: timeOut,
  /** Set once deleted: no deliveries any more; its delivery history stays readable. */
  deletedAt: timeOut.nullable(),
}).meta({ id: 'WebhookEndpoint' });

export const EndpointWithSecret = out({
  ...Endpoint.shape,
  /** The signing secret: answered only here, once; stored encrypted and never readable again. */
  secret: z.string().regex(/^whsec_[A-Za-z0-9+/]{43}=$/),
}).meta({ id: 'WebhookEndpointWithSecret' });

export const Attempt = out({
  attempt: z.number().int(),
  startedAt: timeOut,
  latencyMs: z.number().int(),
  /** null when no answer came (refused address, connection error, timeout). */
  statusCode: z.number().int().nullable(),
  succeeded: z.boolean(),
  /** The first KB of the answer's body. */
  responseBody: z.string().nullable(),
  error: z.string().nullable(),
}).meta({ id: 'WebhookAttempt' });

export const Delivery = out({
  id: idOut,
  endpointId: idOut,
  eventId: idOut,
  eventType: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  attemptCount: z.number().int(),
  /** When the next attempt is due; null once succeeded, failed or canceled. */
  nextAttemptAt: timeOut.nullable(),
  attempts: z.array(Attempt),
  createdAt: timeOut,
  updatedAt: timeOut,
}).meta({ id: 'WebhookDelivery' });

export const EventEnvelope = out({
  id: idOut,
  type: z.string(),
  createdAt: timeOut,
  organizationId: idOut,
  data: z.record(z.string(), z.unknown()),
}).meta({ id: 'EventEnvelope' });

export const EventFeed = out({ items: z.array(EventEnvelope), nextCursor: z.string().nullable() });

export const EventType = out({
  type: z.string(),
  description: z.string(),
  /** JSON Schema of the event's `data`. */
  payloadSchema: z.record(z.string(), z.unknown()),
  emittedBy: z.array(z.string()),
}).meta({ id: 'EventType' });

export const EventTypes = out({ items: z.array(EventType) });
