import type { z } from 'zod';
import type { Operation } from './define.js';
import { ProblemError } from './errors.js';
import { PIPELINE_CODES, PROBLEM_CODES, isProblemCode } from './problem-codes.js';
import { fieldErrors } from './schemas.js';

/**
 * The contract checks the suite runs on every call (the dispatcher calls them when
 * FIRSTCRACK_CHECK_CONTRACT=1): answers, events and problems are held to the operation's declaration, so
 * the OpenAPI document and the typed client, both read off the declarations, cannot drift from what is
 * served. A violation is a 500 naming what drifted, which fails the test that made the call.
 */
export function contractViolation(operation: Operation, what: string): ProblemError {
  return new ProblemError(500, 'contract_violation', `${operation.name}: ${what}`);
}

/** The answer, as it is served (JSON), matches the declared output schema. */
export function checkAnswer(operation: Operation, body: unknown): void {
  const result = operation.output.safeParse(JSON.parse(JSON.stringify(body)));
  if (!result.success) throw contractViolation(operation, `the answer does not match its output schema: ${describeIssues(result.error)}`);
}

/** The event is one the operation declares, with a payload matching its schema. */
export function checkEvent(operation: Operation, type: string, data: unknown): void {
  const declared = operation.emits.find((e) => e.type === type);
  if (declared === undefined) throw contractViolation(operation, `emitted ${type}, which it does not declare in emits`);
  const result = declared.payload.safeParse(JSON.parse(JSON.stringify(data)));
  if (!result.success) throw contractViolation(operation, `the ${type} payload does not match its schema: ${describeIssues(result.error)}`);
}

/** A problem the handler answered carries a catalogued code, with its status, that the operation declares. */
export function checkProblem(operation: Operation, problem: unknown): void {
  if (!(problem instanceof ProblemError) || problem.status >= 500) return;
  const code = problem.code;
  if (!isProblemCode(code)) throw contractViolation(operation, `answered the code ${code}, which is not in PROBLEM_CODES`);
  if (PROBLEM_CODES[code].status !== problem.status) {
    throw contractViolation(operation, `answered ${code} with status ${problem.status}, not ${PROBLEM_CODES[code].status}`);
  }
  if (!PIPELINE_CODES.includes(code) && !operation.errors.includes(code)) {
    throw contractViolation(operation, `answered ${code}, which it does not declare in errors`);
  }
}

function describeIssues(error: z.ZodError): string {
  return fieldErrors(error)
    .slice(0, 5)
    .map((e) => `${e.path || '(root)'}: ${e.message}`)
    .join('; ');
}
