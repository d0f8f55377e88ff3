import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';

test('a kept thread starts with its task loaded, runs it, and holds no process open', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'fc-off-thread-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const marker = join(dir, 'loaded');
  // A task module that leaves a mark when a thread loads it.
  writeFileSync(join(dir, 'task.js'), `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'yes'); module.exports = (n) => n * 2;`);
  const script = `
    import { existsSync } from 'node:fs';
    import { keepWorkerThreadStarted, offThread } from ${JSON.stringify(new URL('./off-thread.ts', import.meta.url).href)};
    const double = offThread(${JSON.stringify(pathToFileURL(join(dir, 'caller.js')).href)}, './task');
    keepWorkerThreadStarted(double);
    keepWorkerThreadStarted(double);
    const until = Date.now() + 10_000;
    while (!existsSync(${JSON.stringify(marker)}) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
    const loadedBeforeAnyTask = existsSync(${JSON.stringify(marker)});
    let refused = false;
    try {
      keepWorkerThreadStarted(offThread(${JSON.stringify(pathToFileURL(join(dir, 'caller.js')).href)}, './other'));
    } catch {
      refused = true;
    }
    console.log(JSON.stringify({ loadedBeforeAnyTask, answer: await double(21), refused }));
  `;
  // A file, not --eval: a worker thread takes the process's flags, and refuses --input-type.
  writeFileSync(join(dir, 'main.mjs'), script);
  // The process ends by itself once its script is done: the idle thread does not keep it open.
  const run = spawnSync(process.execPath, ['--import', 'tsx', join(dir, 'main.mjs')], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(run.status, 0, `exit ${run.status} ${run.signal ?? ''}: ${run.stderr}`);
  assert.deepEqual(JSON.parse(run.stdout.trim()), { loadedBeforeAnyTask: true, answer: 42, refused: true });
});
