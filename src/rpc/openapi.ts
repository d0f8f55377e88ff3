import { z } from 'zod';
import { operations } from './registry.js';
import type { Operation } from './define.js';
import { surfaceOpenApiPaths } from '../http/surfaces.js';

const problemRef = { $ref: '#/components/schemas/Problem' };
const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: problemRef } } });

/** JSON Schema of what a client sends (before defaults and transforms). */
export function inputJsonSchema(op: Operation): Record<string, unknown> {
  const schema = z.toJSONSchema(op.input, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}

const errorResponses = (op: Operation) => ({
  '400': problem('Malformed JSON or invalid input; `errors` lists every offending field with its path.'),
  '401': problem('No credential, or a credential that is invalid, expired or revoked.'),
  ...(op.name === 'catalog.machine.registerMachine' ? { '402': problem("The plan's machine cap is reached.") } : {}),
  '403': problem('Permission missing (`permission_denied`), module not on the plan (`module_not_enabled`), organization mismatch, or a bridge token.'),
  '404': problem('Unknown operation, or a record that does not exist in this organization.'),
  ...(op.get ? {} : { '405': problem('GET on a POST-only operation (`Allow: POST`).') }),
  '409': problem('A rule refused the change given the current state (stock, state transition, duplicate code) or an Idempotency-Key in flight.'),
  '413': problem('Body over 1 MiB.'),
  '415': problem('Body is not application/json.'),
  '422': problem('Idempotency-Key reused with a different body.'),
  '429': problem('Rate limited; see Retry-After and RateLimit headers.'),
});

export function buildOpenApi() {
  const paths: Record<string, unknown> = {};
  for (const op of operations) {
    const schema = inputJsonSchema(op);
    const common = {
      operationId: op.name,
      summary: op.summary,
      tags: [op.name.split('.').slice(0, -1).join('.')],
      description: `Permission \`${op.permission}\`, module \`${op.module}\`.${op.emits.length ? ` Emits ${op.emits.map((e) => `\`${e}\``).join(', ')}.` : ''}`,
      'x-permission': op.permission,
      'x-module': op.module,
      security: [{ apiKey: [] }],
    };
    const ok = { '200': { description: 'The result object.', content: { 'application/json': { schema: { type: 'object' } } } } };
    paths[`/rpc/v1/${op.name}`] = {
      post: {
        ...common,
        parameters: [{ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 } }],
        requestBody: { required: true, content: { 'application/json': { schema } } },
        responses: { ...ok, ...errorResponses(op) },
      },
      ...(op.get
        ? {
            get: {
              ...common,
              operationId: `${op.name}.get`,
              parameters: [
                { name: 'input', in: 'query', required: false, content: { 'application/json': { schema } } },
                { name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' } },
              ],
              responses: { ...ok, '304': { description: 'Not modified since the ETag given.' }, ...errorResponses(op) },
            },
          }
        : {}),
    };
  }
  // The surfaces that are not RPC (health, telemetry ingest and stream, public pages) document themselves.
  Object.assign(paths, surfaceOpenApiPaths());
  return {
    openapi: '3.1.0',
    info: {
      title: 'Firstcrack API',
      version: '1.0.0',
      description:
        'Operations for coffee roasting businesses. Every operation is `POST /rpc/v1/<namespace.operation>` with a JSON body; read operations also answer GET with `?input=<URL-encoded JSON>`. Errors are RFC 9457 problem+json with a stable `code`.',
    },
    servers: [{ url: '/' }],
    paths,
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'An API key (`fck_…`), bound to one organization, carrying a role and optional scopes.' },
        machineBridge: { type: 'http', scheme: 'bearer', description: 'A machine bridge token (`fcb_…`): accepted only on /ingest/v1/ for its own machine.' },
        streamTicket: { type: 'apiKey', in: 'query', name: 'ticket', description: 'A one-time stream ticket (`fcs_…`) for GET /stream/v1/, for clients that cannot send headers.' },
      },
      schemas: {
        Problem: {
          type: 'object',
          required: ['type', 'title', 'status', 'detail', 'code'],
          properties: {
            type: { type: 'string' },
            title: { type: 'string' },
            status: { type: 'integer' },
            detail: { type: 'string' },
            code: { type: 'string' },
            errors: { type: 'array', items: { type: 'object', required: ['path', 'message'], properties: { path: { type: 'string' }, message: { type: 'string' } } } },
          },
        },
      },
    },
  };
}
