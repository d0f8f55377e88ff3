import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { defineOperation } from '../src/rpc/define.js';
import { defineEvent } from '../src/events/define.js';
import { checkAnswer, checkEvent, checkProblem } from '../src/rpc/contract.js';
import { conflict, notFound } from '../src/rpc/errors.js';
import { out } from '../src/rpc/outputs.js';

// The checks the dispatcher runs on every call of the suite must be able to fail: each drift below is caught.
const happened = defineEvent('catalog.thing.happened', 'A thing happened.', out({ n: z.number() }));
const op = defineOperation({
  name: 'catalog.thing.doThing',
  summary: 'Does a thing.',
  description: 'A test operation.',
  permission: 'catalog.location.write',
  feature: 'core',
  get: false,
  input: z.strictObject({}),
  output: out({ id: z.string() }),
  errors: ['not_found'],
  emits: [happened],
  async handler() {
    return { id: 'x' };
  },
});

const violation = (fn: () => void, pattern: RegExp) =>
  assert.throws(fn, (e: { status?: number; code?: string; message?: string }) => e.status === 500 && e.code === 'contract_violation' && pattern.test(e.message ?? ''));

test('an answer that differs from the output schema is a contract violation', () => {
  checkAnswer(op, { id: 'x' });
  violation(() => checkAnswer(op, { id: 1 }), /output schema: id/);
  violation(() => checkAnswer(op, { id: 'x', extra: true }), /output schema/);
});

test('an undeclared event type or a payload off its schema is a contract violation', () => {
  checkEvent(op, 'catalog.thing.happened', { n: 1 });
  violation(() => checkEvent(op, 'catalog.thing.vanished', { n: 1 }), /does not declare in emits/);
  violation(() => checkEvent(op, 'catalog.thing.happened', { n: 'one' }), /payload does not match/);
});

test('a problem code the operation does not declare, or an unknown one, is a contract violation', () => {
  checkProblem(op, notFound('thing', 'x'));
  checkProblem(op, new (class extends Error {})()); // a non-problem is the 500 path, not a contract matter
  violation(() => checkProblem(op, conflict('lot_empty', 'empty')), /does not declare in errors/);
  violation(() => checkProblem(op, conflict('made_up_code', 'nope')), /not in PROBLEM_CODES/);
});

test('every registered operation is declared completely, and the OpenAPI document carries it', async () => {
  const { REGISTRY } = await import('../src/modules/index.js');
  const { operations, eventCatalog } = REGISTRY;
  const { buildOpenApi, inputJsonSchema } = await import('../src/rpc/openapi.js');
  const { surfacesOf } = await import('../src/http/surfaces.js');
  const doc = buildOpenApi(REGISTRY, surfacesOf(REGISTRY)) as { paths: Record<string, any>; webhooks: Record<string, any> };
  for (const op of operations) {
    assert.ok(op.summary.length > 0 && !op.summary.includes('\n') && op.summary.length <= 160, `${op.name}: a one-line summary`);
    assert.ok(op.description.trim().length > 0, `${op.name}: a description`);
    const paged = 'page' in ((inputJsonSchema(op) as { properties?: object }).properties ?? {});
    assert.equal(op.errors.includes('invalid_cursor'), paged, `${op.name}: a paged list declares invalid_cursor, nothing else does`);
    const post = doc.paths[`/rpc/v1/${op.name}`].post;
    const answer = post.responses['200'].content['application/json'].schema;
    assert.ok(answer.properties || answer.$ref || answer.anyOf, `${op.name}: the answer's schema is documented`);
    for (const code of op.errors) {
      const documented = Object.values(post.responses as Record<string, { description?: string }>).some((r) => r.description?.includes(`\`${code}\``));
      assert.ok(documented, `${op.name}: ${code} is documented`);
    }
  }
  const text = JSON.stringify(doc);
  for (const [, ref] of text.matchAll(/"\$ref":"([^"]+)"/g)) {
    const target = ref.replace(/^#\//, '').split('/').reduce<any>((node, key) => node?.[key], doc);
    assert.ok(ref.startsWith('#/') && target !== undefined, `the reference ${ref} resolves within the document`);
  }
  assert.ok(eventCatalog.size > 0, 'events are catalogued');
  for (const [type, event] of eventCatalog) {
    assert.ok(event.summary.length > 0 && event.emittedBy.length > 0, `${type}: summary and emitters`);
    assert.ok(doc.webhooks[type]?.post.requestBody.content['application/json'].schema.properties.data, `${type}: its payload is in the document`);
  }
});

test('every problem code answered anywhere in the service is in PROBLEM_CODES, with the status it is answered with', async () => {
  const { readdirSync, readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { fileURLToPath } = await import('node:url');
  const { PROBLEM_CODES } = await import('../src/rpc/problem-codes.js');
  const root = fileURLToPath(new URL('../src/', import.meta.url));
  const sources = (readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.includes('testing'));
  const answered: [file: string, status: number, code: string][] = [];
  for (const file of sources) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const m of text.matchAll(/new ProblemError\(\s*(\d{3}),\s*'([a-z_]+)'/g)) answered.push([file, Number(m[1]), m[2]]);
    for (const m of text.matchAll(/\bconflict\(\s*'([a-z_]+)'/g)) answered.push([file, 409, m[1]]);
  }
  assert.ok(answered.length > 60, `${answered.length} problems found in the sources`);
  const stray = answered.filter(([, status, code]) => (PROBLEM_CODES as Record<string, { status: number }>)[code]?.status !== status);
  assert.deepEqual(stray, [], 'answered codes missing from PROBLEM_CODES or answered with another status');
});
