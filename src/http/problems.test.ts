import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ProblemError } from '../rpc/errors.js';
import { toProblem } from './problems.js';

/** Errors shaped as the PostgreSQL drivers (pg, PGlite) raise them: the SQLSTATE in `code`, the constraint named. */
const databaseError = (code: string, constraint?: string) => Object.assign(new Error('database refused'), { code, constraint });

test('a ProblemError is answered as it is', () => {
  const problem = new ProblemError(409, 'lot_quarantined', 'The lot is quarantined.');
  assert.equal(toProblem(problem), problem);
});

test('database refusals map by SQLSTATE, naming the field the constraint is on', () => {
  const duplicate = toProblem(databaseError('23505', 'locations_org_id_code_key')).toProblem();
  assert.deepEqual([duplicate.status, duplicate.code, duplicate.errors], [409, 'duplicate', [{ path: 'code', message: 'already used in this organization' }]]);
  const missing = toProblem(databaseError('23503', 'green_lots_org_id_location_id_fkey')).toProblem();
  assert.deepEqual([missing.status, missing.code, missing.errors], [404, 'not_found', [{ path: 'locationId', message: 'not found' }]]);
  const rule = toProblem(databaseError('23514', 'producers_altitude_range')).toProblem();
  assert.deepEqual([rule.status, rule.code, rule.errors], [400, 'invalid_input', [{ path: '', message: 'violates the rule producers_altitude_range' }]]);
  for (const code of ['40001', '40P01']) assert.equal(toProblem(databaseError(code)).code, 'concurrent_update');
  // Other SQLSTATEs are the service's failure, never explained to the client.
  const undefinedTable = toProblem(databaseError('42P01')).toProblem();
  assert.deepEqual([undefinedTable.status, undefinedTable.code], [500, 'internal_error']);
  assert.ok(!undefinedTable.detail.includes('database refused'), 'the database’s message is not shown');
});

test('fastify’s own refusals map to the documented problems', () => {
  const fastifyError = (code: string, statusCode: number) => Object.assign(new Error(code), { code, statusCode });
  assert.deepEqual(pick(toProblem(fastifyError('FST_ERR_CTP_BODY_TOO_LARGE', 413))), [413, 'body_too_large']);
  assert.deepEqual(pick(toProblem(fastifyError('FST_ERR_CTP_INVALID_MEDIA_TYPE', 415))), [415, 'unsupported_media_type']);
  assert.deepEqual(pick(toProblem(fastifyError('FST_ERR_CTP_EMPTY_JSON_BODY', 400))), [400, 'malformed_json']);
  assert.deepEqual(pick(toProblem(fastifyError('FST_ERR_SOMETHING_ELSE', 400))), [400, 'bad_request']);
  assert.deepEqual(pick(toProblem(new TypeError('x is undefined'))), [500, 'internal_error']);
});

const pick = (problem: ProblemError) => [problem.status, problem.code];
