// Every assert.ok(value) and bare assert(value) in the tests must pass a message.
//
// Why: when ok() fails with no message (or a null/undefined one), node:assert writes its own by
// re-reading the caller's source file at the line and column of the call and parsing it with acorn.
// Under tsx each file is compiled with esbuild's minifyWhitespace, so the compiled code is one long
// line, the position is wrong and the parse takes well over a minute of CPU (privatenumber/tsx#548).
// The server under test runs in the same process, so it stalls too, and the tests after the failing
// one fail with a misleading "fetch failed". With a message node skips all that and fails at once.
//
// This test parses the test files (and any other file under src that imports node:assert) with the
// TypeScript compiler API and lists each call that would take that path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('..', import.meta.url));

const ASSERT_MODULES = new Set(['assert', 'assert/strict', 'node:assert', 'node:assert/strict']);

function tsFiles(dir: string): string[] {
  return (readdirSync(join(root, dir), { recursive: true }) as string[])
    .filter((f) => f.endsWith('.ts') && !f.split(/[\\/]/).includes('node_modules'))
    .map((f) => join(dir, f))
    .sort();
}

function importsAssert(sf: ts.SourceFile): boolean {
  return sf.statements.some(
    (s) => ts.isImportDeclaration(s) && ts.isStringLiteral(s.moduleSpecifier) && ASSERT_MODULES.has(s.moduleSpecifier.text),
  );
}

/** The names an `import ... from 'node:assert'` binds: callable ones (the default export, `strict`) and `ok`. */
function assertNames(sf: ts.SourceFile): { callable: Set<string>; namespaces: Set<string>; ok: Set<string> } {
  const callable = new Set(['assert']);
  const namespaces = new Set<string>();
  const ok = new Set<string>();
  for (const s of sf.statements) {
    if (!ts.isImportDeclaration(s) || !ts.isStringLiteral(s.moduleSpecifier) || !ASSERT_MODULES.has(s.moduleSpecifier.text)) continue;
    const clause = s.importClause;
    if (!clause || clause.isTypeOnly) continue;
    if (clause.name) callable.add(clause.name.text);
    const bindings = clause.namedBindings;
    if (bindings && ts.isNamespaceImport(bindings)) namespaces.add(bindings.name.text);
    if (bindings && ts.isNamedImports(bindings)) {
      for (const el of bindings.elements) {
        const imported = (el.propertyName ?? el.name).text;
        if (imported === 'ok') ok.add(el.name.text);
        if (imported === 'strict' || imported === 'default') callable.add(el.name.text);
      }
    }
  }
  return { callable, namespaces, ok };
}

/** Is this call node:assert's ok(), under any of the names the file gives it? */
function isOkCall(call: ts.CallExpression, names: ReturnType<typeof assertNames>): boolean {
  const callee = call.expression;
  if (ts.isIdentifier(callee)) return names.callable.has(callee.text) || names.ok.has(callee.text);
  if (!ts.isPropertyAccessExpression(callee)) return false;
  const target = callee.expression;
  const method = callee.name.text;
  // assert.ok, assert.strict.ok, t.assert.ok, and for a namespace import: ns.ok, ns.default(...), ns.strict(...)
  const base = ts.isPropertyAccessExpression(target) ? target.name.text : ts.isIdentifier(target) ? target.text : undefined;
  if (base === undefined) return false;
  if (method === 'ok') return names.callable.has(base) || names.namespaces.has(base) || base === 'strict';
  return names.namespaces.has(base) && (method === 'default' || method === 'strict');
}

function lacksMessage(call: ts.CallExpression): boolean {
  if (call.arguments.some((a) => ts.isSpreadElement(a))) return false;
  if (call.arguments.length < 2) return true;
  const message = call.arguments[1];
  return message.kind === ts.SyntaxKind.NullKeyword || (ts.isIdentifier(message) && message.text === 'undefined');
}

/** file:line of each ok() or bare assert() call without a message, and how many ok() calls were seen. */
function findOffenders(fileName: string, text: string): { offenders: string[]; checked: number } {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const names = assertNames(sf);
  const offenders: string[] = [];
  let checked = 0;
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && isOkCall(node, names)) {
      checked++;
      if (lacksMessage(node)) {
        const { line } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
        offenders.push(`${fileName}:${line + 1}: ${node.getText(sf).replace(/\s+/g, ' ').slice(0, 120)}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return { offenders, checked };
}

test('the check finds ok() and bare assert() calls without a message', () => {
  const source = [
    "import assert from 'node:assert/strict';",
    "import { ok as fine, strict } from 'node:assert';",
    "import * as ns from 'node:assert';",
    'assert.ok(a);',
    "assert.ok(a, 'a is set');",
    'assert(b);',
    'assert.ok(c, undefined);',
    'fine(d);',
    'strict(e);',
    'ns.ok(f);',
    'assert.strict.ok(g);',
    "assert.equal(h, 1);",
    "assert.ok(\n  i,\n  'i is set',\n);",
  ].join('\n');
  const { offenders, checked } = findOffenders('sample.ts', source);
  assert.deepEqual(
    offenders.map((o) => o.split(':')[1]),
    ['4', '6', '7', '8', '9', '10', '11'],
    `offenders found: ${JSON.stringify(offenders)}`,
  );
  assert.equal(checked, 9, 'every ok() call is seen');
});

test('every assert.ok() and bare assert() call in the tests passes a message', () => {
  const files = [...tsFiles('src'), ...tsFiles('test')].filter((file) => {
    if (file.startsWith('test')) return true;
    if (file.endsWith('.test.ts')) return true;
    return importsAssert(ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, false, ts.ScriptKind.TS));
  });
  assert.ok(files.some((f) => f === relative(root, fileURLToPath(import.meta.url))), `this file is among the files checked: ${files.length} files`);
  const offenders: string[] = [];
  let checked = 0;
  for (const file of files) {
    const found = findOffenders(file, readFileSync(join(root, file), 'utf8'));
    offenders.push(...found.offenders);
    checked += found.checked;
  }
  assert.ok(checked > 0, `ok() calls are found in ${files.length} files`);
  assert.deepEqual(offenders, [], `${offenders.length} ok()/assert() calls without a message; give each a short one:\n${offenders.join('\n')}`);
});
