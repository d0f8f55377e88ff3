import { createHash } from 'node:crypto';
import { isUtf8 } from 'node:buffer';
import type { ServerResponse } from 'node:http';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Database } from '../db/client.js';
import { requestCost } from '../rpc/cost.js';
import type { CredentialResolver, Principal } from '../auth/credentials.js';
import type { RateLimiter } from '../ratelimit/limiter.js';
import { Dispatcher } from '../rpc/dispatch.js';
import type { Operation, Services } from '../rpc/define.js';
import { ProblemError, malformedJson } from '../rpc/errors.js';
import type { Registry } from '../rpc/registry.js';
import { newId } from '../lib/ids.js';
import { FairLane } from './fair-lane.js';
import { API_CALLERS, bearerCredential, guardChain, limit } from './guards.js';
import { mountSurfaces, type Surface, type SurfaceMount } from './surface.js';
import { MAX_BODY_BYTES, bodyTooLarge, sendProblem, toProblem } from './problems.js';
import { receiveBounds, type ReceiveTimeouts } from './slow-clients.js';
import { closeIdleWhenClosing } from './close-idle.js';
import { EXPORT_CONTENT_TYPES, EXPORT_PAGE_LIMIT, ExportAborted, columnsOf, csvWriter, exportOf, requireList, xlsxWriter } from './exports.js';

export interface ServerDeps {
  /** The operations served on /rpc/v1 and the document's contents (read off the modules' manifests). */
  registry: Registry;
  db: Database;
  resolvers: CredentialResolver[];
  rateLimiter: RateLimiter;
  services: Services;
  logLevel?: string;
  /** How many heavy requests (src/rpc/cost.ts) run at once; the rest wait their turn, so cheap ones always find a connection. */
  heavyLaneSize?: number;
  /** How many list exports (src/http/exports.ts) stream at once, each holding a connection; 1 by default. */
  exportLaneSize?: number;
  /** The budget of failed authentications per client address, over every surface (src/http/failed-auth.ts). */
  failedAuthentication?: (app: FastifyInstance) => void;
  /** How long a client may take to send a request (src/http/slow-clients.ts); RECEIVE_TIMEOUTS by default. */
  receiveTimeouts?: ReceiveTimeouts;
  /** The surfaces beside /rpc/v1/ and what their guards and handlers reach. */
  surfaces?: { list: readonly Surface[]; mount: SurfaceMount };
  /** Extra routes (benchmarks' bare baselines) and hooks. */
  plugins?: ((app: FastifyInstance) => Promise<void> | void)[];
}

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
    /** The JSON body's bytes as received, for a route that stores them verbatim (telemetry ingest). */
    rawBody?: Buffer;
  }
  interface FastifyContextConfig {
    /**
     * A JSON body of more bytes than this is not parsed on the event loop: the body is left undefined
     * and the route parses `rawBody` itself, on a worker thread (telemetry ingest's large posts).
     */
    parsesBodiesOver?: number;
  }
  interface FastifyInstance {
    /** How many transactions were run again after losing a race (a deadlock or serialization failure). */
    racesRetried(): number;
    /** List exports (src/http/exports.ts): streaming now, of which waiting for a client to read, finished whole, and stopped early (client gone, stalled or failed). */
    exportCounts(): { streaming: number; waitingForClient: number; completed: number; stopped: number };
  }
}

type RpcRequest = FastifyRequest<{ Params: { operation: string } }>;

/** The size of a call's input as sent: the body of a POST, the `input` query parameter of a GET. */
function inputBytes(request: RpcRequest): number {
  if (request.method === 'GET') return String((request.query as { input?: unknown }).input ?? '').length;
  return Number(request.headers['content-length'] ?? 0);
}

export async function buildServer(deps: ServerDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: {
      level: deps.logLevel ?? 'info',
      // Credentials never reach the log: headers are not logged, and these paths are redacted if ever added.
      redact: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization'],
    },
    genReqId: () => newId('req'),
    bodyLimit: MAX_BODY_BYTES,
    return503OnClosing: true,
    ...receiveBounds(deps.receiveTimeouts),
  });
  const idle = closeIdleWhenClosing(app.server);
  app.addHook('preClose', async () => idle.closing());
  const dispatcher = new Dispatcher(
    deps.db,
    deps.services,
    (error) => app.log.error({ err: error }, 'after-commit work failed'),
    (operation, attempt, error) => app.log.warn({ operation, attempt, sqlState: (error as { code?: string }).code }, 'transaction lost a race; running it again'),
  );
  app.decorate('racesRetried', () => dispatcher.racesRetried);
  const exportCounts = { streaming: 0, waitingForClient: 0, completed: 0, stopped: 0 };
  app.decorate('exportCounts', () => ({ ...exportCounts }));
  // Turns go round robin over organizations (src/http/fair-lane.ts).
  const heavyLane = new FairLane(deps.heavyLaneSize ?? 1);
  const exportLane = new FairLane(deps.exportLaneSize ?? 1);

  // A callback hook, not an async one: the reply is written at once rather than a tick later.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('X-Request-Id', request.id);
    done(null, payload);
  });

  // Only JSON is accepted. An empty body means "no input", which operations without inputs need.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(/^application\/([a-z0-9.+-]*\+)?json$/, { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    request.rawBody = bytes;
    const parsesItselfOver = request.routeOptions.config.parsesBodiesOver;
    if (parsesItselfOver !== undefined && bytes.length > parsesItselfOver) return done(null, undefined);
    // JSON text is UTF-8 (RFC 8259 §8.1): bytes that are not are refused, never decoded to U+FFFD and stored.
    if (!isUtf8(bytes)) return done(malformedJson('the body is not valid UTF-8'), undefined);
    const text = bytes.toString('utf8');
    if (text.trim() === '') return done(null, {});
    try {
      done(null, JSON.parse(text));
    } catch (error) {
      done(malformedJson((error as Error).message), undefined);
    }
  });

  app.setErrorHandler((error: unknown, request, reply) => {
    const problem = toProblem(error);
    if (problem.status >= 500) request.log.error({ err: error }, 'request failed');
    sendProblem(reply, problem);
  });
  deps.failedAuthentication?.(app);
  app.setNotFoundHandler((request, reply) => {
    sendProblem(reply, new ProblemError(404, 'route_not_found', `No route ${request.method} ${request.url.split('?')[0]}.`));
  });

  await app.register(async (rpc) => {
    const operations = new WeakMap<FastifyRequest, Operation>();
    /** What each request was priced at on admission, before its body was read (and a GET's input, read for it). */
    const priced = new WeakMap<FastifyRequest, PricedBeforeBody>();
    // authenticate → limit → grant, in order, then (dispatcher:) validate → transaction. The grant step
    // resolves the operation (404 unknown, 405 method) and checks its module and permission. All of it runs
    // before the body is read: a caller refused here learns nothing and costs no parsing.
    const admit = guardChain<RpcRequest>({
      authenticate: bearerCredential(deps.resolvers, API_CALLERS),
      limiter: deps.rateLimiter,
      grant: (request) => {
        const operation = resolveOperation(deps.registry.byName, request);
        operations.set(request, operation);
        return operation;
      },
      points: (request) => {
        const price = priceBeforeBody(deps.registry.byName, request);
        priced.set(request, price);
        return price.points;
      },
    });
    // A request known to be heavy before its body is read waits for its turn in the lane before reading it,
    // and keeps the turn until its answer is sent: its parsing, work and encoding all take turns with the
    // other heavy requests', so cheap ones always find the event loop and a connection. Its body waits in the
    // connection meanwhile.
    rpc.addHook('onRequest', async (request, reply) => {
      await admit(request as RpcRequest, reply);
      if ((priced.get(request)?.points ?? 1) > 1) await turnUntilClosed(heavyLane, request.principal!.orgId, reply.raw);
    });

    const handle = async (request: RpcRequest, reply: FastifyReply) => {
      const operation = operations.get(request)!;
      const price = priced.get(request);
      // A GET's input was read to price it; one it could not read is read again here, to refuse it.
      const input = request.method === 'GET' ? (price?.query ?? inputFromQuery(request.query)) : request.body ?? {};
      if (typeof input !== 'object' || input === null || Array.isArray(input)) {
        throw new ProblemError(400, 'invalid_input', 'The input must be a JSON object.', { errors: [{ path: '', message: 'expected an object' }] });
      }
      const idempotencyKey = request.method === 'POST' ? idempotencyKeyOf(request) : undefined;
      const drawn = price?.points ?? 1;
      const cost = requestCost(operation, input, inputBytes(request));
      // A POST's page size is known only now: the rest of its cost is drawn before any work, and a call
      // found heavy only now takes its turn in the lane for its work (one heavy before has held it since).
      if (cost > drawn) await limit(deps.rateLimiter, request.principal!.credentialId, cost - drawn, 'credential', reply, cost);
      const asFile = exportOf(request.params.operation);
      if (asFile) return exportList(request, reply, operation, input, asFile.format);
      const dispatch = () => dispatcher.dispatch({ principal: request.principal!, operation, input, requestId: request.id, idempotencyKey });
      const result = cost > 1 && drawn === 1 ? await heavyLane.run(request.principal!.orgId, dispatch) : await dispatch();
      if (result.replayed) reply.header('Idempotent-Replayed', 'true');
      // Encoded once, by the dispatcher: the ETag is hashed over the text that is sent, as the UTF-8 it is
      // sent as; the text goes to the socket as it is, without a copy into a Buffer first.
      const payload = result.json;
      if (request.method === 'GET') {
        // An ETag only has to tell answers apart; SHA-1 (as Express's etag) costs a third of SHA-256 on large answers.
        const etag = `"${createHash('sha1').update(payload, 'utf8').digest('base64url')}"`;
        reply.header('ETag', etag).header('Cache-Control', 'private, no-cache');
        if (etagMatches(request.headers['if-none-match'], etag)) return reply.code(304).send();
      }
      return reply.code(result.status).type('application/json; charset=utf-8').send(payload);
    };

    /**
     * A list's whole answer as a file (src/http/exports.ts): the input's filter, every page through the
     * list's handler (Dispatcher.exportPages). The input's own `page` is not taken: the file is the whole
     * list. Nothing is sent before the first page is read, so a refused input (400, a filter's 404) is a
     * problem like the JSON call's; after that a failure cuts the transfer. Exports hold a database
     * connection (on PostgreSQL one snapshot transaction) while they stream, so at most `exportLane`'s size
     * run at once, in turns across organizations; the rest wait (and give up their place if the client leaves).
     * A client gone mid-file stops the reading at the page being written and releases the connection.
     */
    const exportList = async (request: RpcRequest, reply: FastifyReply, operation: Operation, input: object, format: 'csv' | 'xlsx') => {
      const item = requireList(operation);
      const { page: _page, ...filter } = input as { page?: unknown };
      const columns = columnsOf(item);
      const waiting = (on: boolean) => void (exportCounts.waitingForClient += on ? 1 : -1);
      const writer = format === 'csv' ? csvWriter(columns, { waiting }) : xlsxWriter(operation.name.split('.').pop()!, columns, { waiting });
      // The response gone before the file is whole: the writer's next write throws, ending the reading.
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished) writer.body.destroy();
      });
      await turnUntilClosed(exportLane, request.principal!.orgId, reply.raw);
      // Gone while it waited for its turn: nothing to read, nobody to answer.
      if (reply.raw.destroyed) return reply.hijack();
      let started: () => void = () => {};
      const firstPage = new Promise<void>((resolve) => (started = resolve));
      exportCounts.streaming++;
      const reading = dispatcher
        .exportPages({ principal: request.principal!, operation, input: filter, requestId: request.id }, EXPORT_PAGE_LIMIT, async (items) => {
          started();
          await writer.write(items);
        })
        .then(() => {
          started();
          return writer.end();
        })
        .then(
          () => void exportCounts.completed++,
          (error: unknown) => {
            exportCounts.stopped++;
            throw error;
          },
        )
        .finally(() => void exportCounts.streaming--);
      // Refused before any row: the problem, as the JSON call's.
      await Promise.race([firstPage, reading]);
      reading.catch((error: unknown) => {
        writer.fail(error as Error);
        if (error instanceof ExportAborted) request.log.info({ operation: operation.name, reason: error.message }, 'export stopped');
        else request.log.error({ err: error, operation: operation.name }, 'export failed while streaming');
      });
      return reply
        .code(200)
        .type(EXPORT_CONTENT_TYPES[format])
        .header('Content-Disposition', `attachment; filename="${operation.name}.${format}"`)
        .header('Cache-Control', 'no-store')
        .send(writer.body);
    };

    rpc.route({ method: ['GET', 'POST'], url: '/rpc/v1/:operation', handler: handle });
    rpc.route({ method: ['PUT', 'PATCH', 'DELETE'], url: '/rpc/v1/:operation', handler: handle });
  });

  // Every other surface, as declared (src/http/surfaces.ts), each behind its own guard chain.
  if (deps.surfaces) await mountSurfaces(app, deps.surfaces.list, deps.surfaces.mount);
  for (const plugin of deps.plugins ?? []) await plugin(app);
  return app;
}

interface PricedBeforeBody {
  points: number;
  /** A GET's input, or null when it is not valid JSON (and for a POST). */
  query: unknown;
}

/**
 * What is known of a call's cost before its body is read: the operation's own cost, the input's size and a
 * GET's page. An unknown operation costs 1 (the grant step refuses it).
 */
function priceBeforeBody(registry: ReadonlyMap<string, Operation>, request: RpcRequest): PricedBeforeBody {
  // A body announced past the limit is refused before it is priced or read: 413, never a 429 to retry.
  if (request.method !== 'GET' && inputBytes(request) > MAX_BODY_BYTES) throw bodyTooLarge();
  const operation = registry.get(exportOf(request.params.operation)?.name ?? request.params.operation);
  const query = request.method === 'GET' ? inputFromQuery(request.query, true) : null;
  return { points: operation ? requestCost(operation, query, inputBytes(request)) : 1, query };
}

/**
 * Waits for a turn of `party`'s in `lane`, held until `response` closes: once sent, or when its connection is
 * gone (also while it waits, in which case the turn ends as soon as it is granted).
 */
async function turnUntilClosed(lane: FairLane, party: string, response: ServerResponse): Promise<void> {
  let closed = false;
  let end = () => {
    closed = true;
  };
  response.once('close', () => end());
  const endTurn = await lane.take(party);
  if (closed) endTurn();
  else end = endTurn;
}

/** The operation the path names, answering the method used: 404 for an unknown operation, 405 (with Allow) for another method. */
function resolveOperation(registry: ReadonlyMap<string, Operation>, request: RpcRequest): Operation {
  // `<list>.csv` and `<list>.xlsx` are the list's export (src/http/exports.ts), guarded exactly as the list.
  const asFile = exportOf(request.params.operation);
  const operation = registry.get(asFile?.name ?? request.params.operation);
  if (!operation) throw new ProblemError(404, 'unknown_operation', `There is no operation ${request.params.operation}.`);
  if (asFile) requireList(operation);
  if (request.method !== 'POST' && !(request.method === 'GET' && operation.get)) {
    const allow = operation.get ? 'GET, POST' : 'POST';
    throw new ProblemError(405, 'method_not_allowed', `${operation.name} answers ${allow} only.`, {}, { Allow: allow });
  }
  return operation;
}

/** A GET's input; `lenient` answers null for a malformed one rather than refusing it (for pricing it before the grant step). */
function inputFromQuery(query: unknown, lenient = false): unknown {
  const raw = (query as Record<string, unknown>)?.input;
  if (raw === undefined) return {};
  if (typeof raw !== 'string') {
    if (lenient) return null;
    throw new ProblemError(400, 'invalid_input', 'Give the input once, as ?input=<URL-encoded JSON>.');
  }
  try {
    return JSON.parse(raw);
  } catch (error) {
    if (lenient) return null;
    throw new ProblemError(400, 'malformed_json', `The input query parameter is not valid JSON: ${(error as Error).message}`);
  }
}

function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const key = request.headers['idempotency-key'];
  if (key === undefined) return undefined;
  if (typeof key !== 'string' || key.length < 1 || key.length > 255) {
    throw new ProblemError(400, 'invalid_idempotency_key', 'Idempotency-Key must be 1 to 255 characters.');
  }
  return key;
}

function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((candidate) => {
    const c = candidate.trim();
    return c === '*' || c === etag || c === `W/${etag}`;
  });
}
