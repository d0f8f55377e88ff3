import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newId } from './ids.js';

test('ids are prefixed, time-sortable and distinct across many refills of the random pool', () => {
  const ids = Array.from({ length: 10_000 }, () => newId('x'));
  for (const id of ids) assert.match(id, /^x_[0-9a-hjkmnp-tv-z]{26}$/);
  assert.equal(new Set(ids).size, ids.length);
  // Ids made in a later millisecond sort after earlier ones.
  const heads = ids.map((id) => id.slice(2, 12));
  assert.deepEqual([...heads].sort(), heads);
  // No slice of the pool was handed out twice: the random parts are all distinct.
  const tails = new Set(ids.map((id) => id.slice(12)));
  assert.equal(tails.size, ids.length);
});
