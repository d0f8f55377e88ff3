// Loaded into every test file's process by scripts/run-tests.mjs (node's test runner passes its --import flags
// on): at exit, appends the file's wall time since the process started (loading included) to
// FIRSTCRACK_TEST_TIMES. Processes the tests themselves start are not test files and note nothing.
import { appendFileSync } from 'node:fs';
import { relative } from 'node:path';
import { performance } from 'node:perf_hooks';

const file = process.argv[1] ?? '';
const out = process.env.FIRSTCRACK_TEST_TIMES;
if (out && file.endsWith('.test.ts')) {
  const root = new URL('..', import.meta.url).pathname;
  process.on('exit', () => {
    appendFileSync(out, JSON.stringify({ file: relative(root, file), ms: Math.round(performance.now()) }) + '\n');
  });
}
