import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
// @ts-expect-error a plain ES module without types
import { buildWeb } from '../scripts/build-web.mjs';

const dist = fileURLToPath(new URL('../web/dist/', import.meta.url));
const BUDGET = 300 * 1024;

/** The chunks a module statically imports (minified ES modules: `from"./x.js"`, `import"./x.js"`). */
function staticImports(file: string): string[] {
  const text = readFileSync(join(dist, 'assets', file), 'utf8');
  return [...text.matchAll(/(?:from|import)\s*"\.\/([\w.-]+\.js)"/g)].map((m) => m[1]!);
}

test('the console is split by area: the dashboard’s first load stays under 300 KB of JavaScript (gzip)', async () => {
  await buildWeb({ quiet: true });
  const html = readFileSync(join(dist, 'index.html'), 'utf8');
  const entry = /<script type="module"[^>]*src="\/app\/assets\/([\w.-]+\.js)"/.exec(html)?.[1];
  assert.ok(entry, 'index.html loads one entry module');
  const assets = readdirSync(join(dist, 'assets'));
  const dashboard = assets.find((f) => /^dashboard-[\w-]+\.js$/.test(f));
  assert.ok(dashboard, 'the dashboard is a chunk of its own');
  // Everything the entry and the dashboard pull in before the dashboard can render, each file once.
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const next of staticImports(file)) visit(next);
  };
  visit(entry);
  visit(dashboard);
  const gzip = [...seen].reduce((sum, file) => sum + gzipSync(readFileSync(join(dist, 'assets', file)), { level: 9 }).length, 0);
  const all = assets.filter((f) => f.endsWith('.js'));
  console.log(`dashboard first load: ${seen.size} of ${all.length} chunks, ${gzip} bytes gzip (budget ${BUDGET})`);
  assert.ok(gzip < BUDGET, `the dashboard’s first load is ${gzip} bytes of JavaScript (gzip), over ${BUDGET}`);
  // Every area is its own chunk: none of the areas' pages is in the first load.
  for (const area of ['catalog', 'inventory', 'production', 'sourcing', 'quality', 'sales', 'cafe', 'webhooks', 'batches', 'lots']) {
    const chunk = all.find((f) => f.startsWith(`${area}-`));
    assert.ok(chunk, `the ${area} area is a chunk of its own`);
    assert.ok(!seen.has(chunk), `the ${area} area is not loaded with the dashboard`);
  }
});
