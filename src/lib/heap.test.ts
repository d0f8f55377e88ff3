import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';

/**
 * Full collections in one run of a fixed workload whose garbage reaches the old generation (objects kept for
 * a while in a ring, then dropped, as a post held across a store's round trip is), in a process of its own.
 */
function fullCollections(percent: number): number {
  const script = `
    import { PerformanceObserver, constants } from 'node:perf_hooks';
    import { limitHeapGrowth } from ${JSON.stringify(new URL('./heap.ts', import.meta.url).href)};
    limitHeapGrowth(${percent});
    let full = 0;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) if (entry.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) full++;
    }).observe({ entryTypes: ['gc'] });
    const live = Array.from({ length: 200_000 }, (_, i) => ({ i }));
    const ring = new Array(300);
    for (let n = 0; n < 2_000; n++) {
      ring[n % ring.length] = Array.from({ length: 2_000 }, (_, i) => ({ t: i, bt: n + i / 100 }));
      if (n % 100 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    console.log(JSON.stringify({ full, kept: live.length }));
  `;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout.trim()).full;
}

test('limitHeapGrowth makes V8 collect the old generation before it has grown far past what was alive', () => {
  const unlimited = fullCollections(0);
  const limited = fullCollections(20);
  assert.ok(limited >= 2 * unlimited + 2, `full collections: ${limited} with 20 %, ${unlimited} with V8's own growth`);
});
