import { z } from 'zod';
import { INGEST_POINT_BYTES, INGEST_WINDOWS } from './http.js';
import { MAX_SESSION_MESSAGES } from '../../../../streaming/live.js';
import { ROAST_EVENT_TYPES, TelemetryPost } from './schemas.js';
import { STREAM_TICKET_TTL_SECONDS } from '../../../../streaming/tickets.js';

/** What the examples below show: one batch on one machine, two seconds after charge. */
const EXAMPLE_BATCH = 'rb_01jq3k8m7v5x2n4p6r8t0w2y4a';
const EXAMPLE_POST = {
  seq: 42,
  samples: [
    { t: 1000, bt: 182.4, et: 231.0, channels: { inlet: 251.3, burner: 65 } },
    { t: 2000, bt: 181.9, et: 231.4 },
  ],
  events: [{ type: 'charge', t: 0 }],
};
const EXAMPLE_STREAM =
  'id: 41\nevent: roast_event\ndata: {"type":"charge","t":0}\n\n' +
  'id: 42\nevent: sample\ndata: {"t":1000,"bt":182.4,"et":231,"channels":{"inlet":251.3,"burner":65}}\n\n' +
  ': heartbeat\n\n';

/** The telemetry channel's paths for the OpenAPI document: written beside it, as they are not RPC operations. */
export function telemetryOpenApiPaths(): Record<string, unknown> {
  const problem = (description: string, example?: Record<string, unknown>) => ({
    description,
    content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' }, ...(example ? { example } : {}) } },
  });
  const json = (description: string, schema: Record<string, unknown>, example?: unknown) => ({
    description,
    content: { 'application/json': { schema, ...(example !== undefined ? { example } : {}) } },
  });
  const batchId = { name: 'batchId', in: 'path', required: true, schema: { type: 'string' }, description: 'The roast batch (`rb_…`).' };
  const postSchema = z.toJSONSchema(TelemetryPost, { io: 'input', target: 'draft-2020-12' }) as Record<string, unknown>;
  delete postSchema.$schema;
  const budget = INGEST_WINDOWS.map((w) => `${w.points} per ${w.seconds} s`).join(' and ');
  const tags = ['telemetry'];

  return {
    '/ingest/v1/roast/{batchId}/samples': {
      post: {
        operationId: 'telemetry.postSamples',
        tags,
        summary: 'Post live samples and roast events of a batch in the drum, from its machine’s bridge.',
        description:
          'Only the bridge token of the machine the batch roasts on. `seq` is the bridge’s own counter, one per post: a post whose seq ' +
          'was stored before is acknowledged (200, `duplicate: true`) and stores nothing, so a bridge resends freely. A post is stored ' +
          'whole or not at all: any invalid value (temperatures outside −50…700 °C, non-numbers, more than 2,000 samples) refuses it ' +
          'with 400 naming each path. Samples out of order are placed by `t` in the curve. ' +
          `Rate limit per bridge token, apart from the API’s: ${budget}, with the same RateLimit headers; a post draws a point per ` +
          `started ${INGEST_POINT_BYTES / 1024} KiB of its body (a few samples: 1; 2,000 samples: about 10), shown in RateLimit-Cost when more than 1.`,
        security: [{ machineBridge: [] }],
        parameters: [batchId],
        requestBody: { required: true, content: { 'application/json': { schema: postSchema, example: EXAMPLE_POST } } },
        responses: {
          '200': json(
            'A repeated seq: nothing stored.',
            { type: 'object', properties: { accepted: { const: 0 }, seq: { type: 'integer' }, duplicate: { const: true } } },
            { accepted: 0, seq: 42, duplicate: true },
          ),
          '202': json(
            'Stored; `accepted` samples are in the buffer and on their way to watchers.',
            { type: 'object', properties: { accepted: { type: 'integer' }, seq: { type: 'integer' } } },
            { accepted: 2, seq: 42 },
          ),
          '400': problem('Malformed JSON or invalid post; `errors` names each path (`samples[3].bt`). Nothing was stored.', {
            type: 'https://firstcrack.dev/problems/invalid-input',
            title: 'Bad Request',
            status: 400,
            detail: 'The post is not valid; nothing of it was stored.',
            code: 'invalid_input',
            errors: [{ path: 'samples[1].bt', message: 'must be between -50 and 700 °C' }],
          }),
          '401': problem('No credential, or one that is invalid, expired or revoked.'),
          '403': problem('An API key (`bridge_token_required`), or the token of another machine than the batch’s (`wrong_machine`).'),
          '404': problem('No such batch in the token’s organization.'),
          '409': problem(
            'The batch exists but is not live (`batch_not_live`, with its `state`): it completed, was aborted or was imported, or is being completed or aborted (`completing`). ' +
              `Or the post would take the session past ${MAX_SESSION_MESSAGES.toLocaleString('en')} samples and events, far more than any roast (\`live_session_full\`, with its \`limit\`); nothing of it is stored.`,
          ),
          '413': problem('Body over 1 MiB.'),
          '415': problem('Body is not application/json.'),
          '429': problem('Ingest budget exhausted; see Retry-After.'),
        },
      },
    },
    '/stream/v1/roast/{batchId}': {
      get: {
        operationId: 'telemetry.streamBatch',
        tags,
        summary: 'Follow a live batch as Server-Sent Events.',
        description:
          '`text/event-stream` of `event: sample` (data: one sample as posted), `event: roast_event` (data: `{ "type", "t" }`, type one of ' +
          `${ROAST_EVENT_TYPES.join(', ')}) and \`event: status\` (data: \`{ "state" }\`; after \`completed\` or \`aborted\` the stream ends). Every ` +
          'message has an `id:`, increasing per batch; reconnecting with `Last-Event-ID` (or `?lastEventId=`) resumes after it without ' +
          'gaps, from the start of the roast when absent. A comment line is sent every 15 s. A stream ended by the service gets a last ' +
          '`event: closed` (data: `{ "reason", "detail" }`; reason `too_far_behind` when the watcher stopped reading, `credential_revoked`). ' +
          'At most 20 open streams per credential and 100 per organization (per API process). Authenticate with an API key holding ' +
          '`production.roast.read` (module roasting), or, from a browser EventSource, with `?ticket=` from the tickets endpoint.',
        security: [{ apiKey: [] }, { streamTicket: [] }],
        parameters: [
          batchId,
          { name: 'ticket', in: 'query', required: false, schema: { type: 'string' }, description: 'A stream ticket (`fcs_…`), used once.' },
          { name: 'Last-Event-ID', in: 'header', required: false, schema: { type: 'string', pattern: '^\\d+$' } },
          { name: 'lastEventId', in: 'query', required: false, schema: { type: 'string', pattern: '^\\d+$' } },
        ],
        responses: {
          '200': { description: 'The event stream.', content: { 'text/event-stream': { schema: { type: 'string' }, example: EXAMPLE_STREAM } } },
          '400': problem('Last-Event-ID is not a message id (`invalid_last_event_id`).'),
          '401': problem('No credential, or an invalid, expired, spent or other batch’s ticket.'),
          '403': problem('Permission or module missing, or a bridge token.'),
          '404': problem('No such batch in this organization.'),
          '409': problem('The batch exists but is not live (`batch_not_live`).'),
          '429': problem('Rate limited (API budget; a ticket’s connection is not counted again), or too many open streams (`too_many_streams`).'),
        },
      },
    },
    '/stream/v1/roast/{batchId}/tickets': {
      post: {
        operationId: 'telemetry.createStreamTicket',
        tags,
        summary: 'A one-time ticket to open the batch’s stream where no Authorization header can be sent (browser EventSource).',
        description:
          `Permission \`production.roast.read\`, module \`roasting\`. The ticket is valid for this batch only, for ${STREAM_TICKET_TTL_SECONDS} s, ` +
          'for one connection (it sits in a URL, where logs keep it); any API process accepts it. A dropped stream reconnects with a new ' +
          'ticket and `?lastEventId=`.',
        security: [{ apiKey: [] }],
        parameters: [batchId],
        requestBody: { required: false, content: { 'application/json': { schema: { type: 'object', additionalProperties: false }, example: {} } } },
        responses: {
          '201': json(
            `The ticket; open the stream with \`GET /stream/v1/roast/${EXAMPLE_BATCH}?ticket=<ticket>\`.`,
            { type: 'object', properties: { ticket: { type: 'string' }, expiresAt: { type: 'string', format: 'date-time' } } },
            { ticket: 'fcs_1EIp2sG4hnH33LnWQMv6d_IDkduMJD_IUXLObxGeyC8', expiresAt: '2026-03-14T09:26:53.000Z' },
          ),
          '401': problem('No credential, or an invalid one.'),
          '403': problem('Permission or module missing, or a bridge token.'),
          '404': problem('No such batch in this organization.'),
          '409': problem('The batch exists but is not live (`batch_not_live`).'),
          '429': problem('Rate limited; see Retry-After.'),
        },
      },
    },
  };
}
