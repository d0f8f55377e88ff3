import assert from 'node:assert/strict';
import type { CallResult } from './harness.js';

/** Expects a problem answer with this status and code, naming `path` in its errors when given. */
export function assertProblem(res: CallResult, status: number, code: string, path?: string): void {
  assert.equal(res.status, status, `expected ${status} ${code}, got ${res.status} ${JSON.stringify(res.body)}`);
  assert.equal(res.body.code, code, JSON.stringify(res.body));
  if (path !== undefined) {
    const paths = (res.body.errors ?? []).map((e: { path: string }) => e.path);
    assert.ok(paths.includes(path), `expected an error at ${path}, got ${JSON.stringify(res.body.errors)}`);
  }
}

/**
 * Runs a call that must be refused and proves it changed nothing: `snapshot` (each module's view of the
 * stored state it could touch) reads the same before and after.
 */
export async function assertRefusedWithout(
  snapshot: () => Promise<unknown>,
  call: () => Promise<CallResult>,
  status: number,
  code: string,
  path?: string,
): Promise<CallResult> {
  const before = await snapshot();
  const res = await call();
  assertProblem(res, status, code, path);
  assert.deepEqual(await snapshot(), before, 'a refused call changed stored state');
  return res;
}
