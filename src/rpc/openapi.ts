import { PERMISSIONS } from '../auth/permissions.js';
import { z } from 'zod';
import type { Registry } from './registry.js';
import type { Operation } from './define.js';
import { PIPELINE_CODES, PROBLEM_CODES, type ProblemCode } from './problem-codes.js';
import { surfaceOpenApiPaths, type Surface } from '../http/surface.js';

const problemRef = { $ref: '#/components/schemas/Problem' };

/** JSON Schema of what a client sends (before defaults and transforms). */
export function inputJsonSchema(op: Operation): Record<string, unknown> {
  const schema = z.toJSONSchema(op.input, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}

/** JSON Schema of an operation's answer, as served. */
export function outputJsonSchema(op: Operation): Record<string, unknown> {
  const schema = z.toJSONSchema(op.output, { io: 'output', unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}

/** The problem codes an operation can answer, by status: the pipeline's own plus those it declares. */
export function problemCodesOf(op: Operation): Map<number, ProblemCode[]> {
  const codes = new Set<ProblemCode>([...PIPELINE_CODES, ...op.errors]);
  if (op.get) codes.delete('method_not_allowed');
  const byStatus = new Map<number, ProblemCode[]>();
  for (const code of codes) {
    const status = PROBLEM_CODES[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return new Map([...byStatus.entries()].sort(([a], [b]) => a - b));
}

function errorResponses(op: Operation) {
  const responses: Record<string, unknown> = {};
  for (const [status, codes] of problemCodesOf(op)) {
    responses[String(status)] = {
      description: codes.map((code) => `\`${code}\`: ${PROBLEM_CODES[code].meaning}`).join('\n'),
      content: { 'application/problem+json': { schema: { allOf: [problemRef, { type: 'object', properties: { code: { enum: codes } } }] } } },
    };
  }
  return responses;
}

/** The event catalog as OpenAPI webhooks: what a subscriber receives for each type. */
function eventWebhooks(eventCatalog: Registry['eventCatalog'], toComponents: (schema: Record<string, unknown>, suffix: string) => Record<string, unknown>) {
  const webhooks: Record<string, unknown> = {};
  for (const event of eventCatalog.values()) {
    const { $schema: _, ...payload } = z.toJSONSchema(event.payload, { io: 'output', unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
    const data = toComponents(payload, '');
    webhooks[event.type] = {
      post: {
        operationId: `event.${event.type}`,
        tags: ['events'],
        summary: event.summary,
        description: `Emitted by ${event.emittedBy.map((name) => `\`${name}\``).join(', ')}. Sent with \`service-event-id\`, \`service-timestamp\` and \`service-signature\` (\`v1,<base64 HMAC-SHA256 of "<timestamp>.<body>">\` under the endpoint's signing secret).`,
        // The service calls the subscriber: the request carries a signature, not a credential the subscriber issued.
        security: [],
        requestBody: {
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['id', 'type', 'createdAt', 'organizationId', 'data'],
                properties: {
                  id: { type: 'string' },
                  type: { const: event.type },
                  createdAt: { type: 'string', format: 'date-time' },
                  organizationId: { type: 'string' },
                  data,
                },
              },
            },
          },
        },
        responses: { '2XX': { description: 'Received; any other answer is retried.' } },
      },
    };
  }
  return webhooks;
}

type JsonSchema = Record<string, unknown>;

/**
 * Moves a schema's named definitions (`$defs`, from `.meta({ id })`) into `shared`, renamed with `suffix`,
 * and points its references at `${refBase}<name><suffix>`: a document then defines each named schema once
 * (the OpenAPI components, the client's types). Two different schemas under one name are refused.
 */
export function hoistDefinitions(schema: JsonSchema, suffix: string, shared: Record<string, JsonSchema>, refBase: string): JsonSchema {
  const { $defs, ...rest } = schema as JsonSchema & { $defs?: Record<string, JsonSchema> };
  const rename = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rename);
    if (node && typeof node === 'object') {
      const out: JsonSchema = {};
      for (const [key, value] of Object.entries(node)) {
        out[key] = key === '$ref' && typeof value === 'string' ? value.replace(/^#\/\$defs\/(.+)$/, `${refBase}$1${suffix}`) : rename(value);
      }
      return out;
    }
    return node;
  };
  for (const [name, definition] of Object.entries($defs ?? {})) {
    const key = `${name}${suffix}`;
    const renamed = { ...(rename(definition) as JsonSchema), title: key };
    if (shared[key] && JSON.stringify(shared[key]) !== JSON.stringify(renamed)) {
      throw new Error(`Two different schemas are named ${name}; give one another meta id`);
    }
    shared[key] = renamed;
  }
  return rename(rest) as JsonSchema;
}

/**
 * The document: every operation of the registry (with its example, when its module gives one), every
 * surface given (the app's: the platform's and every module's, src/http/surfaces.ts) and every event.
 */
export function buildOpenApi(registry: Registry, surfaces: readonly Surface[]) {
  const examples = registry.examples;
  const named: Record<string, JsonSchema> = {};
  const toComponents = (schema: JsonSchema, suffix: string) => hoistDefinitions(schema, suffix, named, '#/components/schemas/');
  const paths: Record<string, unknown> = {};
  for (const op of registry.operations) {
    const schema = toComponents(inputJsonSchema(op), 'Input');
    const emits = op.emits.map((e) => e.type);
    const common = {
      operationId: op.name,
      summary: op.summary,
      tags: [op.name.split('.').slice(0, -1).join('.')],
      description: [
        op.description,
        op.extension ? 'An extension: registered beyond the specification’s operations.' : undefined,
        op.cost ? `Costs ${op.cost} rate-limit points a call and runs in the heavy lane.` : undefined,
        `Permission \`${op.permission}\`, module \`${op.feature}\`.${emits.length ? ` Emits ${emits.map((e) => `\`${e}\``).join(', ')}.` : ''}`,
      ]
        .filter(Boolean)
        .join('\n\n'),
      'x-permission': op.permission,
      'x-module': op.feature,
      ...(op.extension ? { 'x-extension': true } : {}),
      ...(op.cost ? { 'x-rate-limit-cost': op.cost } : {}),
      ...(emits.length ? { 'x-emits': emits } : {}),
      security: [{ apiKey: [] }, { oauth2: [op.permission] }, { userSession: [] }],
    };
    const example = examples[op.name];
    const ok = {
      '200': {
        description: 'The result object.',
        content: { 'application/json': { schema: toComponents(outputJsonSchema(op), ''), ...(example ? { example: example.output } : {}) } },
      },
    };
    paths[`/rpc/v1/${op.name}`] = {
      post: {
        ...common,
        parameters: [{ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 } }],
        requestBody: { required: true, content: { 'application/json': { schema, ...(example ? { example: example.input } : {}) } } },
        responses: { ...ok, ...errorResponses(op) },
      },
      ...(op.get
        ? {
            get: {
              ...common,
              operationId: `${op.name}.get`,
              parameters: [
                { name: 'input', in: 'query', required: false, content: { 'application/json': { schema, ...(example ? { example: example.input } : {}) } } },
                { name: 'If-None-Match', in: 'header', required: false, schema: { type: 'string' } },
              ],
              responses: { ...ok, '304': { description: 'Not modified since the ETag given.' }, ...errorResponses(op) },
            },
          }
        : {}),
    };
  }
  // The surfaces that are not RPC are documented from their declarations.
  Object.assign(paths, surfaceOpenApiPaths(surfaces, (schema) => toComponents(schema, '')));
  // Each tag with what it holds: a namespace's operations, or the paths of the surfaces tagged with it.
  const tagged = new Map<string, Set<string>>();
  for (const [path, item] of Object.entries(paths)) {
    for (const op of Object.values(item as Record<string, { tags: string[] }>)) {
      for (const tag of op.tags) tagged.set(tag, (tagged.get(tag) ?? new Set()).add(path.startsWith('/rpc/v1/') ? '/rpc/v1/' : path));
    }
  }
  const tags = [...tagged].map(([name, held]) => ({
    name,
    description: held.has('/rpc/v1/') ? `The \`${name}.*\` operations.` : `Beside /rpc/v1/: ${[...held].map((p) => `\`${p}\``).join(', ')}.`,
  }));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Firstcrack API',
      version: '1.0.0',
      description:
        'Operations for coffee roasting businesses. Every operation is `POST /rpc/v1/<namespace.operation>` with a JSON body; read operations also answer GET with `?input=<URL-encoded JSON>`. Errors are RFC 9457 problem+json with a stable `code`.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: '/' }],
    tags: [...tags, { name: 'events', description: 'What a webhook endpoint receives, per event type.' }],
    paths,
    webhooks: eventWebhooks(registry.eventCatalog, toComponents),
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'An API key (`fck_…`), bound to one organization, carrying a role and optional scopes.' },
        machineBridge: { type: 'http', scheme: 'bearer', description: 'A machine bridge token (`fcb_…`): accepted only on /ingest/v1/ for its own machine.' },
        streamTicket: { type: 'apiKey', in: 'query', name: 'ticket', description: 'A one-time stream ticket (`fcs_…`) for GET /stream/v1/, for clients that cannot send headers.' },
        oauth2: {
          type: 'oauth2',
          description:
            'OAuth 2.0 client credentials: a client (bound to one organization, with a role and scopes) gets an access token at the token URL ' +
            '(a JWT with `resource=<base URL>`, else an opaque `fco_…` token), valid one hour. Scopes are permission names or patterns.',
          flows: { clientCredentials: { tokenUrl: '/api/auth/oauth2/token', scopes: Object.fromEntries(PERMISSIONS.map((p) => [p, `the ${p} permission`])) } },
        },
        clientBasic: { type: 'http', scheme: 'basic', description: 'OAuth client authentication at the token and introspection endpoints: client_id:client_secret.' },
        userSession: {
          type: 'http',
          scheme: 'bearer',
          description: 'A user session token (`fcu_…`) from POST /api/auth/login; every request names the organization to act in with X-Service-Org.',
        },
      },
      schemas: {
        ...named,
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
