import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { API_CREDENTIALS, defineSurface } from '../../../../http/surface.js';
import { OFF_THREAD_POST_BYTES, INGEST_POINT_BYTES, announcedPoints, resumePoint } from './http.js';
import { MAX_SESSION_MESSAGES } from '../../../../streaming/live.js';
import { ROAST_EVENT_TYPES, TelemetryPost } from './schemas.js';
import { STREAM_TICKET_TTL_SECONDS } from '../../../../streaming/tickets.js';

/**
 * The telemetry channel's surfaces (DESIGN.md, "The telemetry channel"): machine bridges post samples to
 * /ingest/v1/, watchers follow them on /stream/v1/. The work behind them is the channel's (./http.ts).
 */

type BatchRequest = FastifyRequest<{ Params: { batchId: string }; Querystring: Record<string, unknown> }>;

/** What the examples show: one batch on one machine, two seconds after charge. */
const EXAMPLE_BATCH = 'rb_01jq3k8m7v5x2n4p6r8t0w2y4a';
const EXAMPLE_STREAM =
  'id: 41\nevent: roast_event\ndata: {"type":"charge","t":0}\n\n' +
  'id: 42\nevent: sample\ndata: {"t":1000,"bt":182.4,"et":231,"channels":{"inlet":251.3,"burner":65}}\n\n' +
  ': heartbeat\n\n';

const BatchParams = z.strictObject({ batchId: z.string().describe('The roast batch (`rb_…`).') });
const Stored = z.strictObject({ accepted: z.number().int().min(0), seq: z.number().int() });
const Duplicate = z.strictObject({ accepted: z.literal(0), seq: z.number().int(), duplicate: z.literal(true) });
const Ticket = z.strictObject({ ticket: z.string(), expiresAt: z.iso.datetime() });

/** Watching a batch, live or through a ticket, is reading the roast. */
const READ_ROASTS = { feature: 'roasting', permission: 'production.roast.read' } as const;

export const telemetrySurfaces = [
  defineSurface({
    name: 'telemetry.postSamples',
    method: 'POST',
    path: '/ingest/v1/roast/:batchId/samples',
    tag: 'telemetry',
    summary: 'Post live samples and roast events of a batch in the drum, from its machine’s bridge.',
    description:
      'Only the bridge token of the machine the batch roasts on. `seq` is the bridge’s own counter, one per post: a post whose seq ' +
      'was stored before is acknowledged (200, `duplicate: true`) and stores nothing, so a bridge resends freely. A post is stored ' +
      'whole or not at all: any invalid value (temperatures outside −50…700 °C, non-numbers, more than 2,000 samples) refuses it ' +
      'with 400 naming each path. Samples out of order are placed by `t` in the curve. The batch must be live (409 `batch_not_live` ' +
      `with its \`state\` otherwise); a post that would take the session past ${MAX_SESSION_MESSAGES.toLocaleString('en')} samples and ` +
      `events is 409 \`live_session_full\`. A post draws a point per started ${INGEST_POINT_BYTES / 1024} KiB of its body (a few samples: 1; ` +
      '2,000 samples: about 10), shown in RateLimit-Cost when more than 1.',
    credentials: ['machine_bridge'],
    // Drawn before the body is read, as far as Content-Length announces it; the rest once it is read.
    rate: [{ budget: 'ingest', per: 'credential', points: announcedPoints }],
    params: BatchParams,
    body: { contentType: 'application/json', schema: TelemetryPost, required: true },
    answers: {
      200: { description: 'A repeated seq: nothing stored.', schema: Duplicate },
      202: { description: 'Stored; `accepted` samples are in the buffer and on their way to watchers.', schema: Stored },
    },
    errors: ['invalid_input', 'wrong_machine', 'not_found', 'batch_not_live', 'live_session_full'],
    examples: {
      params: { batchId: EXAMPLE_BATCH },
      request: {
        seq: 42,
        samples: [
          { t: 1000, bt: 182.4, et: 231.0, channels: { inlet: 251.3, burner: 65 } },
          { t: 2000, bt: 181.9, et: 231.4 },
        ],
        events: [{ type: 'charge', t: 0 }],
      },
      answers: { 200: { accepted: 0, seq: 42, duplicate: true }, 202: { accepted: 2, seq: 42 } },
    },
    config: { parsesBodiesOver: OFF_THREAD_POST_BYTES },
    handler: (request, reply, { deps, limiter }) => deps.telemetry.postSamples(request as BatchRequest, reply, limiter('ingest')),
  }),
  defineSurface({
    name: 'telemetry.streamBatch',
    method: 'GET',
    path: '/stream/v1/roast/:batchId',
    tag: 'telemetry',
    summary: 'Follow a live batch as Server-Sent Events.',
    description:
      '`text/event-stream` of `event: sample` (data: one sample as posted), `event: roast_event` (data: `{ "type", "t" }`, type one of ' +
      `${ROAST_EVENT_TYPES.join(', ')}) and \`event: status\` (data: \`{ "state" }\`; after \`completed\` or \`aborted\` the stream ends). Every ` +
      'message has an `id:`, increasing per batch; reconnecting with `Last-Event-ID` (or `?lastEventId=`) resumes after it without ' +
      'gaps, from the start of the roast when absent. A comment line is sent every 15 s. A stream ended by the service gets a last ' +
      '`event: closed` (data: `{ "reason", "detail" }`; reason `too_far_behind` when the watcher stopped reading, `credential_revoked`). ' +
      'At most 20 open streams per credential and 100 per organization (per API process, unless the operator set other caps). From a browser EventSource, authenticate ' +
      'with `?ticket=` from the tickets endpoint; a ticket’s connection is not counted again.',
    credentials: [...API_CREDENTIALS, 'stream_ticket'],
    rate: [{ budget: 'api', per: 'credential' }],
    grant: READ_ROASTS,
    // Read before a ticket is spent on a request that would be refused for its form.
    precheck: (request) => void resumePoint(request as BatchRequest),
    params: BatchParams,
    query: z.strictObject({
      ticket: z.string().optional().describe('A stream ticket (`fcs_…`), used once.'),
      lastEventId: z.string().regex(/^\d+$/).optional().describe('The id of the last message received, where Last-Event-ID cannot be sent.'),
    }),
    headers: z.strictObject({ 'Last-Event-ID': z.string().regex(/^\d+$/).optional().describe('The id of the last message received (an EventSource reconnecting).') }),
    answers: { 200: { description: 'The event stream.', contentType: 'text/event-stream', schema: z.string() } },
    errors: ['invalid_last_event_id', 'not_found', 'batch_not_live', 'too_many_streams'],
    examples: { params: { batchId: EXAMPLE_BATCH }, query: { lastEventId: '40' }, answers: { 200: EXAMPLE_STREAM } },
    handler: (request, reply, { deps }) => deps.telemetry.stream(request as BatchRequest, reply),
  }),
  defineSurface({
    name: 'telemetry.createStreamTicket',
    method: 'POST',
    path: '/stream/v1/roast/:batchId/tickets',
    tag: 'telemetry',
    summary: 'A one-time ticket to open the batch’s stream where no Authorization header can be sent (browser EventSource).',
    description:
      `The ticket is valid for this batch only, for ${STREAM_TICKET_TTL_SECONDS} s, for one connection (it sits in a URL, where logs keep ` +
      'it); any API process accepts it. A dropped stream reconnects with a new ticket and `?lastEventId=`. Issued to API keys and OAuth ' +
      'access tokens, not to user sessions (`user_session_not_allowed`): a console user reads the stream with its own Authorization.',
    // A console user's session reads the stream with fetch, sending Authorization and X-Service-Org like every call,
    // so it is never exchanged for a ticket (a bearer secret that ends up in URLs).
    credentials: ['api_key', 'oauth_token'],
    rate: [{ budget: 'api', per: 'credential' }],
    grant: READ_ROASTS,
    params: BatchParams,
    body: { contentType: 'application/json', schema: z.strictObject({}), required: false },
    answers: { 201: { description: `The ticket; open the stream with \`GET /stream/v1/roast/${EXAMPLE_BATCH}?ticket=<ticket>\`.`, schema: Ticket } },
    errors: ['invalid_input', 'not_found', 'batch_not_live'],
    examples: {
      params: { batchId: EXAMPLE_BATCH },
      request: {},
      answers: { 201: { ticket: 'fcs_1EIp2sG4hnH33LnWQMv6d_IDkduMJD_IUXLObxGeyC8', expiresAt: '2026-03-14T09:26:53.000Z' } },
    },
    handler: (request, reply, { deps }) => deps.telemetry.createTicket(request as BatchRequest, reply),
  }),
];
