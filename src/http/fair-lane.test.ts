import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FairLane } from './fair-lane.js';

test('the lane grants at most its size at once, and round robin over the parties waiting', async () => {
  const lane = new FairLane(2);
  const order: string[] = [];
  const turns = new Map<string, () => void>();
  const take = (party: string, name: string) =>
    lane.take(party).then((end) => {
      order.push(name);
      turns.set(name, end);
    });

  // Two turns taken at once; then a burst of four from one tenant, and one call from each of two others.
  await Promise.all([take('a', 'a1'), take('a', 'a2')]);
  const waiting = [take('a', 'a3'), take('a', 'a4'), take('a', 'a5'), take('a', 'a6'), take('b', 'b1'), take('c', 'c1')];
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(order, ['a1', 'a2'], 'no third turn while two are held');

  // Each turn ended hands the next one out: a, then b and c, before a's burst goes on.
  for (const name of ['a1', 'a2', 'a3', 'b1', 'c1', 'a4']) {
    turns.get(name)!();
    turns.get(name)!(); // ending a turn twice frees one turn only
    await new Promise((resolve) => setImmediate(resolve));
  }
  await Promise.all(waiting);
  assert.deepEqual(order, ['a1', 'a2', 'a3', 'b1', 'c1', 'a4', 'a5', 'a6']);
});

test('run holds a turn for the work and gives it back when the work fails', async () => {
  const lane = new FairLane(1);
  await assert.rejects(lane.run('a', async () => Promise.reject(new Error('failed'))), /failed/);
  assert.equal(await lane.run('b', async () => 'ran'), 'ran', 'the failed work gave its turn back');
});
