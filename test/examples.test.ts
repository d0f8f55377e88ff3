import { test } from 'node:test';
import assert from 'node:assert/strict';
import { surfacesOf } from '../src/http/surfaces.js';
import { REGISTRY } from '../src/modules/index.js';

const SURFACES = surfacesOf(REGISTRY);
const { operations } = REGISTRY;
/** Every example the modules' manifests name, including any of an operation no manifest has (which the registry drops). */
const OPERATION_EXAMPLES: Record<string, { input: unknown; output: unknown }> = Object.assign({}, ...REGISTRY.modules.map((m) => m.examples ?? {}));

const issues = (result: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
  result.success ? '' : result.error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');

test('every operation has a request and an answer example that its schemas accept', () => {
  const names = new Set(operations.map((op) => op.name));
  assert.deepEqual(Object.keys(OPERATION_EXAMPLES).filter((name) => !names.has(name)), [], 'examples of operations that do not exist');
  for (const op of operations) {
    const example = OPERATION_EXAMPLES[op.name];
    assert.ok(example, `${op.name} has an example`);
    const input = op.input.safeParse(example.input);
    assert.ok(input.success, `${op.name}: the example input is refused: ${issues(input)}`);
    const output = op.output.safeParse(example.output);
    assert.ok(output.success, `${op.name}: the example answer does not match the output schema: ${issues(output)}`);
  }
});

test('every surface has a request and an answer example that its declaration accepts', () => {
  for (const s of SURFACES) {
    if (s.body) {
      assert.ok(s.examples.request !== undefined, `${s.name}: a request example`);
      const body = s.body.schema.safeParse(s.examples.request);
      assert.ok(body.success, `${s.name}: the example request is refused: ${issues(body)}`);
    }
    if (s.params) {
      const params = s.params.safeParse(s.examples.params ?? {});
      assert.ok(params.success, `${s.name}: the example path is refused: ${issues(params)}`);
    }
    if (s.query) {
      const query = s.query.safeParse(s.examples.query ?? {});
      assert.ok(query.success, `${s.name}: the example query is refused: ${issues(query)}`);
    }
    for (const [status, example] of Object.entries(s.examples.answers)) {
      const answer = s.answers[Number(status)];
      assert.ok(answer, `${s.name}: an example for the undeclared status ${status}`);
      if (answer.schema) {
        const checked = answer.schema.safeParse(example);
        assert.ok(checked.success, `${s.name}: the ${status} example does not match its schema: ${issues(checked)}`);
      }
    }
    // Every answer with a body has its example; a body-less one (204, a redirect) has nothing to show.
    for (const [status, answer] of Object.entries(s.answers)) {
      if (answer.schema) assert.ok(s.examples.answers[Number(status)] !== undefined, `${s.name}: an example of its ${status} answer`);
    }
  }
});
