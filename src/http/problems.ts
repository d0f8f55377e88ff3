import type { FastifyReply } from 'fastify';
import { camelCase } from '../lib/json.js';
import { ProblemError, alreadyUsed, conflict, invalidInput, referenceNotFound } from '../rpc/errors.js';
import { isDatabaseUnavailable } from '../db/client.js';

/**
 * The one mapping from anything thrown while answering a request to an RFC 9457 problem: every HTTP
 * surface (/rpc/v1/, /ingest/v1/, /stream/v1/, the public pages) answers failures through it, whatever
 * it renders them as (problem+json, or an HTML page on the public pages).
 */

export const MAX_BODY_BYTES = 1024 * 1024;

export const bodyTooLarge = () => new ProblemError(413, 'body_too_large', `The body exceeds ${MAX_BODY_BYTES} bytes.`);

export function toProblem(error: unknown): ProblemError {
  if (error instanceof ProblemError) return error;
  if (isStorageFull(error)) return storageFull();
  if (isRedisUnavailable(error)) return liveStoreUnavailable();
  if (isDatabaseUnavailable(error)) return databaseUnavailable();
  return databaseProblem(error) ?? fastifyProblem(error) ?? internalError();
}

export const internalError = () => new ProblemError(500, 'internal_error', 'Something went wrong on our side; the request changed nothing.');

/** Seconds a client is asked to wait before retrying while the database is out of reach. */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

export const databaseUnavailable = () =>
  new ProblemError(
    503,
    'database_unavailable',
    'The database cannot be reached right now; retry after Retry-After seconds (with the same Idempotency-Key for a change).',
    {},
    { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) },
  );

/**
 * The disk is full: PostgreSQL (or PGlite) could not extend a file (SQLSTATE 53100 disk_full; the statement
 * and its transaction are rolled back, nothing stored is touched), or a blob or live-session write met ENOSPC.
 * Writes answer 507 until space is freed; reads keep working.
 */
function isStorageFull(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '53100' || code === 'ENOSPC';
}

export const storageFull = () =>
  new ProblemError(507, 'storage_full', 'The service’s disk is full, so nothing was stored; retry once space is freed (Retry-After is a guess).', {}, {
    'Retry-After': '60',
  });

/**
 * Redis (server mode's live roast sessions and live bar) out of reach: ioredis gave up on the command after
 * its retries, or refused it on a closed connection. The roast telemetry ingest answers this, so a bridge
 * keeps the post in its journal and sends it again (see README, "When PostgreSQL, Redis or the disk fail").
 */
function isRedisUnavailable(error: unknown): boolean {
  const e = error as { name?: unknown; message?: unknown } | null;
  if (typeof e !== 'object' || e === null) return false;
  if (e.name === 'MaxRetriesPerRequestError') return true;
  return typeof e.message === 'string' && /^(Connection is closed\.|Stream isn't writeable)/.test(e.message);
}

export const liveStoreUnavailable = () =>
  new ProblemError(503, 'live_store_unavailable', 'The live session store (Redis) cannot be reached right now; send again after Retry-After seconds.', {}, {
    'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS),
  });

/**
 * Constraint violations that reach the HTTP layer are rules the database enforced: answered as the client's
 * problem, naming the field. Constraint names follow PostgreSQL's defaults (`<table>_org_id_<column>_key`,
 * `<table>_org_id_<column>_fkey`), so the field is read off the name. Other SQLSTATEs are not the client's.
 */
function databaseProblem(error: unknown): ProblemError | undefined {
  const e = error as { code?: unknown; constraint?: string };
  if (typeof e?.code !== 'string' || !/^[0-9A-Z]{5}$/.test(e.code)) return undefined;
  const field = e.constraint ? fieldFromConstraint(e.constraint) : undefined;
  switch (e.code) {
    case '23505': // unique_violation
      return alreadyUsed(field);
    case '23503': // foreign_key_violation
      return referenceNotFound(field);
    case '23514': // check_violation
      return invalidInput([{ path: '', message: `violates the rule ${e.constraint}` }], 'The change would break a rule of the record.');
    case '40001': // serialization_failure
    case '40P01': // deadlock_detected
      return conflict('concurrent_update', 'A concurrent request changed the same records; retry the request.');
    default:
      return undefined;
  }
}

function fieldFromConstraint(constraint: string): string | undefined {
  const m = /_org_id_(.+)_(key|fkey)$/.exec(constraint);
  return m ? camelCase(m[1]) : undefined;
}

/** Refusals fastify makes itself, before a handler runs (body size, media type, …). */
function fastifyProblem(error: unknown): ProblemError | undefined {
  const e = error as { code?: unknown; statusCode?: number; message?: string };
  switch (e?.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return bodyTooLarge();
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ProblemError(415, 'unsupported_media_type', 'Send the body as Content-Type: application/json.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ProblemError(400, 'malformed_json', 'The body is empty.');
  }
  if (typeof e?.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return new ProblemError(e.statusCode, 'bad_request', e.message ?? 'Bad request.');
  }
  return undefined;
}

/** The problem as application/problem+json, with the headers it carries (WWW-Authenticate, Retry-After, Allow). */
export function sendProblem(reply: FastifyReply, problem: ProblemError): FastifyReply {
  return reply.headers(problem.headers).code(problem.status).type('application/problem+json').send(JSON.stringify(problem.toProblem()));
}
