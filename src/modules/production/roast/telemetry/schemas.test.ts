import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_CHANNELS_PER_SAMPLE, MAX_EVENTS_PER_POST, MAX_SAMPLES_PER_POST, TelemetryPost, checkTelemetryPost } from './schemas.js';

const sample = { t: 1000, bt: 150.5, et: 230, channels: { inlet: 260.5, burner: null } };
const event = { type: 'charge', t: 0 };
const post = { seq: 3, samples: [sample], events: [event] };

/** Values of every JSON type, and numbers around each bound the schema sets. */
const anyValues: unknown[] = [null, true, 'x', '12', [], {}, [1], { a: 1 }, 0, -1, 1.5, 1e300, -1e300];
const numbers = (...bounds: number[]) => bounds.flatMap((b) => [b - 1, b - 0.001, b, b + 0.001, b + 1]);

/** The post with `path` set to `value` (a path into nested objects and arrays; undefined deletes the key). */
function variant(path: (string | number)[], value: unknown): unknown {
  const copy = structuredClone(post) as Record<string | number, any>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key];
  const last = path[path.length - 1];
  if (value === undefined) delete node[last];
  else node[last] = value;
  return copy;
}

function corpus(): unknown[] {
  const bodies: unknown[] = [post, { seq: 0, samples: [] }, null, [], 'post', 7];
  const fields: [(string | number)[], unknown[]][] = [
    [['seq'], [...anyValues, ...numbers(0, Number.MAX_SAFE_INTEGER), undefined]],
    [['samples'], [...anyValues, undefined, Array(MAX_SAMPLES_PER_POST).fill(sample), Array(MAX_SAMPLES_PER_POST + 1).fill(sample)]],
    [['events'], [...anyValues, undefined, Array(MAX_EVENTS_PER_POST).fill(event), Array(MAX_EVENTS_PER_POST + 1).fill(event)]],
    [['unknown'], [1]],
    [['samples', 0, 't'], [...anyValues, ...numbers(-86_400_000, 86_400_000), undefined]],
    [['samples', 0, 'bt'], [...anyValues, ...numbers(-50, 700), undefined]],
    [['samples', 0, 'et'], [...anyValues, ...numbers(-50, 700), undefined]],
    [['samples', 0, 'extra'], [1]],
    [['samples', 0, 'channels'], [...anyValues, undefined, { ['a'.repeat(64)]: 1 }, { ['a'.repeat(65)]: 1 }, { 'bad name': 1 }, { 'ok_.-9': -1e9 }]],
    [['samples', 0, 'channels'], [Object.fromEntries(Array.from({ length: MAX_CHANNELS_PER_SAMPLE }, (_, i) => [`c${i}`, i]))]],
    [['samples', 0, 'channels'], [Object.fromEntries(Array.from({ length: MAX_CHANNELS_PER_SAMPLE + 1 }, (_, i) => [`c${i}`, i]))]],
    [['samples', 0, 'channels', 'inlet'], anyValues],
    [['events', 0, 'type'], [...anyValues, 'drop', 'first_crack', 'DROP', undefined]],
    [['events', 0, 't'], [...anyValues, ...numbers(-86_400_000, 86_400_000), undefined]],
    [['events', 0, 'extra'], [1]],
  ];
  for (const [path, values] of fields) for (const value of values) bodies.push(variant(path, value));
  return bodies;
}

test('the fast ingest check and the zod schema give the same verdict on every body', () => {
  const bodies = corpus();
  let valid = 0;
  for (const body of bodies) {
    const expected = TelemetryPost.safeParse(body).success;
    assert.equal(checkTelemetryPost(body).ok, expected, `verdicts differ for ${JSON.stringify(body).slice(0, 300)}`);
    if (expected) valid++;
  }
  // The corpus really holds both kinds, so the agreement is not about one side only.
  assert.ok(valid > 40 && bodies.length - valid > 100, `${valid} valid of ${bodies.length}`);
});

test('a refused post names each bad path, as every other problem does', () => {
  const checked = checkTelemetryPost({ seq: 1, samples: [sample, { t: 1.5, bt: 900, et: 'hot', channels: { 'bad name': 1 } }], extra: true });
  assert.equal(checked.ok, false);
  assert.deepEqual(
    !checked.ok && checked.errors.map((e) => e.path).sort(),
    ['extra', 'samples[1].bt', 'samples[1].channels.bad name', 'samples[1].et', 'samples[1].t'],
  );
});
