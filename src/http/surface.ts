import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { CredentialKind, CredentialResolver } from '../auth/credentials.js';
import type { Permission } from '../auth/permissions.js';
import type { Feature } from '../auth/plans.js';
import type { Database } from '../db/client.js';
import { RATE_BUDGETS, describeBudget, type BudgetName } from '../ratelimit/budgets.js';
import type { RateLimiter } from '../ratelimit/limiter.js';
import type { Services } from '../rpc/define.js';
import { ProblemError } from '../rpc/errors.js';
import { PROBLEM_CODES, isProblemCode, type ProblemCode } from '../rpc/problem-codes.js';
import { requireGrant } from '../auth/grant.js';
import { anonymousByAddress, bearerCredential, limit, unauthorized, type Authenticate, type Caller } from './guards.js';
import { sendProblem, toProblem } from './problems.js';

/**
 * Every HTTP surface that is not /rpc/v1/ is declared like an operation, once: method and path, the
 * credentials it takes, the budgets it draws on (RATE_BUDGETS, by name), its input, its answers, the
 * problem codes it can answer and its handler. The guard chain, the limiters, the OpenAPI document, the
 * contract check the suite runs (FIRSTCRACK_CHECK_CONTRACT=1) and the typed client all read the declaration;
 * no surface composes guards, counts requests or documents itself any other way.
 */

/**
 * What a surface can be called with. `api_key`, `oauth_token`, `user_session` and `machine_bridge` are bearer
 * credentials the platform resolves; `stream_ticket` (`?ticket=`), `oauth_client` (the OAuth client's own
 * id and secret) and `session_token` (a user session without an organization) are resolved by the
 * authenticators the app provides (SurfaceAuthenticators); `none` is an anonymous caller, counted per address.
 */
export type SurfaceCredential = 'api_key' | 'oauth_token' | 'user_session' | 'machine_bridge' | 'stream_ticket' | 'oauth_client' | 'session_token' | 'none';

/** The credentials of the API's own callers. */
export const API_CREDENTIALS = ['api_key', 'oauth_token', 'user_session'] as const satisfies readonly SurfaceCredential[];

const BEARER_KINDS: Partial<Record<SurfaceCredential, CredentialKind>> = {
  api_key: 'api_key',
  oauth_token: 'oauth_client',
  user_session: 'user',
  machine_bridge: 'machine_bridge',
};

/** The credentials resolved outside the platform, provided by the app. */
export type SurfaceAuthenticators = Partial<Record<'stream_ticket' | 'oauth_client' | 'session_token', Authenticate>>;

/**
 * What handlers reach besides the request: the platform's parts here, and what modules add to it by
 * declaration merging (`declare module '…/http/surface.js' { interface SurfaceDeps { … } }`), filled by the app.
 */
export interface SurfaceDeps {
  db: Database;
  services: Services;
}

/** A budget a surface draws on and whom it counts: the caller's credential, the client address, or a key read off the request (null: not counted). */
export interface RateUse<R extends FastifyRequest = FastifyRequest> {
  budget: BudgetName;
  per: 'credential' | 'address' | ((request: R) => string | null);
  /** The points the request draws, as known before its body is read (1 when absent). */
  points?: (request: R) => number;
}

export interface SurfaceAnswer {
  description: string;
  /** `application/json` when absent; several when the answer is one of them (a file of any of a family's kinds). */
  contentType?: string | readonly string[];
  /** The body's schema as served (checked in tests for JSON answers); absent for a body-less answer. */
  schema?: z.ZodType;
}

export interface SurfaceContext {
  deps: SurfaceDeps;
  caller: Caller;
  /** The limiter of a budget, for a cost known only once the body is read. */
  limiter(budget: BudgetName): RateLimiter;
}

type Method = 'GET' | 'POST';

export interface Surface {
  /** `tag.name`: the OpenAPI operationId and the typed client's name for it. */
  name: string;
  method: Method;
  /** The route, in fastify's syntax (`/c/:token`, `/app/*`). */
  path: string;
  tag: string;
  summary: string;
  description: string;
  credentials: readonly SurfaceCredential[];
  /** The budgets it draws on, in order; none: not counted. */
  rate: readonly RateUse[];
  /** What the plan and credential must grant: the plan feature enabled and, when named, the permission held. */
  grant?: { feature: Feature; permission?: Permission };
  /** Guards run once the body is read: the credential or a budget key is in the body. Before it otherwise. */
  guardAfterBody?: boolean;
  /** Refusals of the request's form that must come before authentication (which may spend a one-time ticket). */
  precheck?: (request: FastifyRequest) => void;
  /** Path parameters, query and headers it reads; each field documented by its `.describe()`. */
  params?: z.ZodObject;
  query?: z.ZodObject;
  headers?: z.ZodObject;
  body?: { contentType: 'application/json' | 'application/x-www-form-urlencoded'; schema: z.ZodType; required: boolean };
  /** Every answer it gives but problems, by status; a status also listed here for problems is rendered with this content. */
  answers: Record<number, SurfaceAnswer>;
  /** Problem codes the handler answers beyond what the guards and the body's parsing answer (surfaceProblemCodes). */
  errors: readonly ProblemCode[];
  /** A request and an answer for the documentation (validated against the schemas by the suite). */
  examples: { request?: unknown; params?: Record<string, string>; query?: Record<string, string>; answers: Record<number, unknown> };
  /** Headers on every answer, refusals included (security headers). */
  replyHeaders?: Record<string, string>;
  /** Sends a refusal that is not a problem in the form its callers parse (OAuth's errors), answering true; false for anything else. */
  renderError?: (error: unknown, reply: FastifyReply) => boolean;
  /** Renders a problem in this surface's form (an HTML page for a person); problem+json when absent. */
  renderProblem?: (problem: ProblemError, reply: FastifyReply) => void;
  config?: FastifyContextConfig;
  /** Runs once the guards admitted the request; sends the answer through `reply` (or takes the socket over). */
  handler(request: FastifyRequest, reply: FastifyReply, ctx: SurfaceContext): Promise<unknown>;
}

export function defineSurface<const S extends Surface>(surface: S): Surface {
  return surface;
}

const usesBearer = (s: Surface) => s.credentials.some((c) => BEARER_KINDS[c] !== undefined);

/** Every problem code the surface can answer: its guards', its body parsing's and its handler's. */
export function surfaceProblemCodes(s: Surface): ProblemCode[] {
  const codes = new Set<ProblemCode>();
  const authenticated = s.credentials.some((c) => c !== 'none');
  if (authenticated) codes.add('unauthenticated');
  if (usesBearer(s)) {
    codes.add('organization_mismatch');
    const accepted = new Set(s.credentials.map((c) => BEARER_KINDS[c]).filter(Boolean));
    if (!accepted.has('machine_bridge')) codes.add('bridge_token_not_allowed');
    if (accepted.size === 1 && accepted.has('machine_bridge')) codes.add('bridge_token_required');
    if (accepted.has('api_key') && !accepted.has('user')) codes.add('user_session_not_allowed');
    // A user token is resolved in the organization X-Service-Org names before its kind is judged.
    (['organization_required', 'organization_not_found'] as const).forEach((c) => codes.add(c));
  }
  // The failed-authentication budget (per client address) answers 429 on every surface.
  codes.add('rate_limited');
  if (s.grant) {
    codes.add('module_not_enabled');
    if (s.grant.permission) codes.add('permission_denied');
  }
  if (s.body) (['body_too_large', 'unsupported_media_type'] as const).forEach((c) => codes.add(c));
  if (s.body?.contentType === 'application/json') codes.add('malformed_json');
  for (const code of s.errors) codes.add(code);
  return [...codes].sort();
}

// ---------------------------------------------------------------------------------------------------
// Serving.

export interface SurfaceMount {
  deps: SurfaceDeps;
  resolvers: CredentialResolver[];
  authenticators: SurfaceAuthenticators;
  limiter(budget: BudgetName): RateLimiter;
}

/** The refusal of a valid bearer credential of a kind the surface does not take. */
function refusalOf(accepted: ReadonlySet<CredentialKind>) {
  return (kind: CredentialKind) =>
    kind === 'machine_bridge'
      ? new ProblemError(403, 'bridge_token_not_allowed', 'A machine token (fcb_…) may only post its machine’s data to /ingest/v1/.')
      : accepted.size === 1 && accepted.has('machine_bridge')
        ? new ProblemError(403, 'bridge_token_required', 'This is posted with the machine’s own token (fcb_…), not an API key or another credential.')
        : kind === 'user'
          ? new ProblemError(403, 'user_session_not_allowed', 'A user session is not taken here: it calls with its own Authorization and X-Service-Org.')
          : new ProblemError(403, 'permission_denied', 'This credential is not one this surface takes.');
}

/** The surface's authentication: whichever of its credentials the request presents. */
function authenticatorOf(s: Surface, mount: SurfaceMount): Authenticate {
  const accepted = new Set(s.credentials.map((c) => BEARER_KINDS[c]).filter((k): k is CredentialKind => k !== undefined));
  const bearer = accepted.size > 0 ? bearerCredential(mount.resolvers, { accepts: (kind) => accepted.has(kind), refusal: refusalOf(accepted) }) : undefined;
  const provided = (name: keyof SurfaceAuthenticators) => {
    const authenticate = mount.authenticators[name];
    if (!authenticate) throw new Error(`${s.name} takes ${name}, and the app provides no authenticator for it`);
    return authenticate;
  };
  const ticket = s.credentials.includes('stream_ticket') ? provided('stream_ticket') : undefined;
  const other = s.credentials.includes('oauth_client') ? provided('oauth_client') : s.credentials.includes('session_token') ? provided('session_token') : undefined;
  const anonymous = s.credentials.includes('none');
  return async (request) => {
    const presented = request.headers.authorization !== undefined;
    if (ticket && !presented && (request.query as Record<string, unknown>)?.ticket !== undefined) return ticket(request);
    if (other) return other(request);
    if (bearer && (presented || !anonymous)) return bearer(request);
    if (anonymous) return anonymousByAddress(request);
    throw unauthorized('This request needs a credential.');
  };
}

const checkContract = () => process.env.FIRSTCRACK_CHECK_CONTRACT === '1';

/** Mounts every surface with its guard chain, each in its own scope (its parsers, error rendering and hooks). */
export async function mountSurfaces(app: FastifyInstance, surfaces: readonly Surface[], mount: SurfaceMount): Promise<void> {
  const names = new Set<string>();
  for (const s of surfaces) {
    if (names.has(s.name)) throw new Error(`Two surfaces are named ${s.name}`);
    names.add(s.name);
    const authenticate = authenticatorOf(s, mount);
    const budgets = s.rate.map((use) => ({ use, limiter: mount.limiter(use.budget) }));
    const callers = new WeakMap<FastifyRequest, Caller>();
    // authenticate → limit → grant, as on /rpc/v1/: a refused credential is not counted.
    const guard = async (request: FastifyRequest, reply: FastifyReply) => {
      s.precheck?.(request);
      const caller = await authenticate(request);
      for (const { use, limiter } of budgets) {
        const key = use.per === 'credential' ? caller.budgetKey : use.per === 'address' ? `ip:${request.ip}` : use.per(request);
        if (key === undefined || key === null) continue;
        try {
          await limit(limiter, key, use.points?.(request) ?? 1, RATE_BUDGETS[use.budget].countedPer, reply);
        } catch (refusal) {
          if ('logRefusals' in RATE_BUDGETS[use.budget]) request.log.warn({ event: 'rate_limited', surface: s.name, budget: use.budget, key }, 'attempts throttled');
          throw refusal;
        }
      }
      if (s.grant) {
        if (!caller.principal) throw unauthorized('This request needs a credential.');
        requireGrant(caller.principal, s.grant.feature, s.grant.permission);
      }
      request.principal = caller.principal;
      callers.set(request, caller);
    };
    const codes = new Set(surfaceProblemCodes(s));
    await app.register(async (scope) => {
      if (s.body?.contentType === 'application/x-www-form-urlencoded') {
        // Any type is kept as text, so the handler answers a wrong one in its own form (OAuth's invalid_request).
        scope.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
      }
      if (s.replyHeaders) scope.addHook('onRequest', async (_request, reply) => void reply.headers(s.replyHeaders!));
      scope.addHook(s.guardAfterBody ? 'preHandler' : 'onRequest', guard);
      scope.setErrorHandler((error: unknown, request, reply) => {
        if (s.renderError?.(error, reply)) return;
        let problem = toProblem(error);
        if (checkContract() && !(problem.status >= 500) && !codes.has(problem.code as ProblemCode)) {
          problem = new ProblemError(500, 'contract_violation', `${s.name}: answered ${problem.code}, which it does not declare`);
        } else if (checkContract() && isProblemCode(problem.code) && PROBLEM_CODES[problem.code].status !== problem.status) {
          problem = new ProblemError(500, 'contract_violation', `${s.name}: answered ${problem.code} with status ${problem.status}`);
        }
        if (problem.status >= 500) request.log.error({ err: error, surface: s.name }, 'request failed');
        if (s.renderProblem && problem.code !== 'contract_violation') s.renderProblem(problem, reply);
        else sendProblem(reply, problem);
      });
      if (checkContract()) scope.addHook('onSend', async (_request, reply, payload) => checkAnswer(s, reply, payload));
      scope.route({
        method: s.method,
        url: s.path,
        config: s.config ?? {},
        handler: (request, reply) => s.handler(request, reply, { deps: mount.deps, caller: callers.get(request) ?? {}, limiter: mount.limiter }),
      });
    });
  }
}

/** The suite's contract check of a non-problem answer: a declared status, and a JSON body matching its schema. */
function checkAnswer(s: Surface, reply: FastifyReply, payload: unknown): unknown {
  const status = reply.statusCode;
  const type = String(reply.getHeader('content-type') ?? '');
  if (status >= 500 || type.startsWith('application/problem+json') || status === 304) return payload;
  const answer = s.answers[status];
  if (!answer) throw new ProblemError(500, 'contract_violation', `${s.name}: answered status ${status}, which it does not declare`);
  // A JSON body is held to its schema; a file that may be of several types (one of them JSON) is bytes.
  const json = [answer.contentType ?? 'application/json'].flat().every((t) => /json/.test(t));
  if (answer.schema && json && /json/.test(type) && (typeof payload === 'string' || Buffer.isBuffer(payload))) {
    const result = answer.schema.safeParse(JSON.parse(payload.toString()));
    if (!result.success) {
      throw new ProblemError(500, 'contract_violation', `${s.name}: the ${status} answer does not match its schema: ${result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    }
  }
  return payload;
}

// ---------------------------------------------------------------------------------------------------
// Documentation.

const SECURITY_SCHEMES: Record<SurfaceCredential, string | null> = {
  api_key: 'apiKey',
  oauth_token: 'oauth2',
  user_session: 'userSession',
  machine_bridge: 'machineBridge',
  stream_ticket: 'streamTicket',
  oauth_client: 'clientBasic',
  session_token: 'userSession',
  none: null,
};

type JsonSchema = Record<string, unknown>;

/** `/c/:token` → `/c/{token}`; a wildcard is the path parameter `path`. */
export const openApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\*$/, '{path}');

/** A surface's parts as JSON Schemas (the typed client's types): path, query, body, and each answer with a body. */
export function surfaceJsonSchemas(s: Surface) {
  const answers: Record<string, JsonSchema> = {};
  for (const [status, answer] of Object.entries(s.answers)) if (answer.schema) answers[status] = jsonSchema(answer.schema, 'output');
  return {
    ...(s.params ? { params: jsonSchema(s.params, 'input') } : {}),
    ...(s.query ? { query: jsonSchema(s.query, 'input') } : {}),
    ...(s.body ? { body: jsonSchema(s.body.schema, 'input') } : {}),
    answers,
  };
}

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
  return rest;
}

function parametersOf(s: Surface, toComponents: (schema: JsonSchema) => JsonSchema) {
  const parameters: JsonSchema[] = [];
  const add = (where: 'path' | 'query' | 'header', object: z.ZodObject | undefined, examples?: Record<string, string>) => {
    if (!object) return;
    const schema = toComponents(jsonSchema(object, 'input')) as { properties?: Record<string, JsonSchema>; required?: string[] };
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      const { description, ...rest } = property;
      parameters.push({
        // A route's wildcard is the path parameter `path` (openApiPath).
        name: where === 'path' && name === '*' ? 'path' : name,
        in: where,
        required: where === 'path' || (schema.required ?? []).includes(name),
        ...(description ? { description } : {}),
        schema: rest,
        ...(examples?.[name] !== undefined ? { example: examples[name] } : {}),
      });
    }
  };
  add('path', s.params, s.examples.params);
  add('query', s.query, s.examples.query);
  add('header', s.headers);
  return parameters;
}

const problemRef = { $ref: '#/components/schemas/Problem' };

/** The surfaces' paths for the OpenAPI document; `toComponents` hoists named schemas into the components. */
export function surfaceOpenApiPaths(surfaces: readonly Surface[], toComponents: (schema: JsonSchema) => JsonSchema = (s) => s): Record<string, Record<string, unknown>> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const s of surfaces) {
    const byStatus = new Map<number, ProblemCode[]>();
    for (const code of surfaceProblemCodes(s)) byStatus.set(PROBLEM_CODES[code].status, [...(byStatus.get(PROBLEM_CODES[code].status) ?? []), code]);
    const responses: Record<string, unknown> = {};
    const statuses = [...new Set([...Object.keys(s.answers).map(Number), ...byStatus.keys()])].sort((a, b) => a - b);
    for (const status of statuses) {
      const answer = s.answers[status];
      const codes = byStatus.get(status) ?? [];
      const listed = codes.map((code) => `\`${code}\`: ${PROBLEM_CODES[code].meaning}`).join('\n');
      const example = s.examples.answers[status];
      if (answer) {
        const types = [answer.contentType ?? 'application/json'].flat();
        const media = (i: number) => ({
          schema: answer.schema ? toComponents(jsonSchema(answer.schema, 'output')) : { type: 'string' },
          ...(example !== undefined && i === 0 ? { example } : {}),
        });
        responses[String(status)] = {
          description: [answer.description, listed].filter(Boolean).join('\n'),
          ...(answer.schema || example !== undefined ? { content: Object.fromEntries(types.map((type, i) => [type, media(i)])) } : {}),
        };
      } else {
        responses[String(status)] = {
          description: listed,
          content: {
            'application/problem+json': {
              schema: { allOf: [problemRef, { type: 'object', properties: { code: { enum: codes } } }] },
              example: exampleProblem(status, codes[0]),
            },
          },
        };
      }
    }
    const security = s.credentials.map((c) => {
      const scheme = SECURITY_SCHEMES[c];
      return scheme ? { [scheme]: scheme === 'oauth2' && s.grant?.permission ? [s.grant.permission] : [] } : {};
    });
    const budgets = s.rate.map((use) => `\`${use.budget}\` (${describeBudget(use.budget)}, per ${RATE_BUDGETS[use.budget].countedPer})`);
    const grant = s.grant ? `Module \`${s.grant.feature}\`${s.grant.permission ? `, permission \`${s.grant.permission}\`` : ''}.` : undefined;
    const operation = {
      operationId: s.name,
      tags: [s.tag],
      summary: s.summary,
      description: [s.description, grant, budgets.length ? `Rate budgets: ${budgets.join('; ')}, with RateLimit headers.` : 'Not rate limited.']
        .filter(Boolean)
        .join('\n\n'),
      security: security.length === 1 && Object.keys(security[0]).length === 0 ? [] : security,
      'x-credentials': s.credentials,
      ...(s.rate.length ? { 'x-rate-budgets': s.rate.map((use) => use.budget) } : {}),
      ...(() => {
        const parameters = parametersOf(s, toComponents);
        return parameters.length ? { parameters } : {};
      })(),
      ...(s.body
        ? {
            requestBody: {
              required: s.body.required,
              content: {
                [s.body.contentType]: {
                  schema: toComponents(jsonSchema(s.body.schema, 'input')),
                  ...(s.examples.request !== undefined ? { example: s.examples.request } : {}),
                },
              },
            },
          }
        : {}),
      responses,
    };
    const path = openApiPath(s.path);
    paths[path] = { ...paths[path], [s.method.toLowerCase()]: operation };
  }
  return paths;
}

/** An example problem document for a status, showing its first code. */
function exampleProblem(status: number, code: ProblemCode | undefined) {
  const problem = new ProblemError(status, code ?? 'error', code ? PROBLEM_CODES[code].meaning.replace(/`/g, '') : 'Refused.').toProblem();
  return problem;
}
