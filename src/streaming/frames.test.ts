import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FRAME_CHUNK_BYTES, frameRun, runFrom } from './frames.js';
import { messagesOf } from './live.js';
import type { LiveMessage } from './messages.js';
import { elementsOf, frameStored, storedEntry, type StoredPost } from './live-redis-entries.js';
import { curveTextOf, jsonArray } from './curve-text.js';
import { curveOf, type LiveEntry } from './live.js';
import { messagesOfRun } from './testing.js';

// Samples, events with text of several bytes a character, and a final status: enough for several chunks.
const messages: LiveMessage[] = [
  ...Array.from({ length: 600 }, (_, i): LiveMessage => ({ id: 41 + i, event: 'sample', data: { t: i * 100, bt: 150 + i / 10, et: 220 } as LiveMessage['data'] })),
  { id: 641, event: 'roast_event', data: { type: 'first_crack', t: 59_000, note: 'Ætna — café crème ☕'.repeat(40) } as never },
  { id: 642, event: 'status', data: { state: 'completed' } },
];

test('a run is framed in chunks of whole messages, each with memory of its own, and reads back as its messages', () => {
  const run = frameRun(messages);
  assert.deepEqual([run.firstId, run.lastId, run.final], [41, 642, true]);
  assert.ok(run.frames.chunks.length > 2, `several chunks (${run.frames.chunks.length})`);
  for (const chunk of run.frames.chunks) {
    assert.ok(chunk.length < FRAME_CHUNK_BYTES + 2_000, `a chunk is the chunk size or a message more (${chunk.length})`);
    assert.equal(chunk.buffer.byteLength, chunk.length, 'a chunk owns its memory (never a slice of a pool), so it can move between threads');
    assert.ok(chunk.toString('utf8').endsWith('\n\n'), 'a chunk ends at a message’s end');
  }
  assert.equal(run.frames.bytes, Buffer.concat(run.frames.chunks).length);
  assert.deepEqual(messagesOfRun(run), messages);
  assert.equal(frameRun(messages.slice(0, 3)).final, false, 'a run without a final status is not final');
});

test('a run cut at any id holds exactly the messages from there on, without framing again', () => {
  const run = frameRun(messages);
  for (const from of [41, 42, 300, 640, 641, 642]) {
    const cut = runFrom(run, from)!;
    assert.deepEqual(messagesOfRun(cut), messages.slice(from - 41), `from ${from}`);
    assert.equal(cut.frames.bytes, Buffer.concat(cut.frames.chunks).length, `from ${from}: its size`);
    assert.deepEqual(messagesOfRun(runFrom(cut, from + 1) ?? { frames: { chunks: [], bytes: 0 } } as never), messages.slice(from - 40), `from ${from}, cut again`);
  }
  assert.equal(runFrom(run, 0), run, 'a run starting at or after the point is passed on as it is');
  assert.equal(runFrom(run, 643), null, 'a run ending before the point is dropped');
});

/** JSON text of `value` as a bridge might write it: random whitespace, keys in \u escapes, numbers in other notations. */
function looseJson(value: unknown, random: () => number, escapeKeys: boolean): string {
  const space = () => [' ', '', '\t', '  '][Math.floor(random() * 4)];
  const key = (name: string) => (escapeKeys && random() < 0.5 ? `"${[...name].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"` : JSON.stringify(name));
  if (typeof value === 'number') return random() < 0.3 ? value.toExponential() : random() < 0.5 && Number.isInteger(value) ? `${value}.0` : String(value);
  if (Array.isArray(value)) return `[${space()}${value.map((v) => looseJson(v, random, escapeKeys)).join(`${space()},${space()}`)}${space()}]`;
  if (value !== null && typeof value === 'object') {
    return `{${space()}${Object.entries(value).map(([k, v]) => `${key(k)}${space()}:${space()}${looseJson(v, random, escapeKeys)}`).join(`${space()},${space()}`)}${space()}}`;
  }
  return JSON.stringify(value);
}

test('a stored post is framed from its bytes as it would be from its parsed objects, however the bridge wrote it', () => {
  let seed = 7;
  const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
  const parsedFraming = (stored: StoredPost<Buffer>, afterId: number) => {
    const entry = storedEntry(stored);
    return frameRun(messagesOf(entry, afterId));
  };
  for (let round = 0; round < 200; round++) {
    const samples = Array.from({ length: Math.floor(random() * 30) }, (_, i) => ({
      t: i * 100 - 500,
      bt: random() < 0.1 ? null : Math.round(random() * 30000) / 100,
      et: 220.5,
      ...(random() < 0.5 ? { channels: { inlet: random() < 0.2 ? null : 250, 'drum.rpm': 62 } } : {}),
    }));
    const events = Array.from({ length: Math.floor(random() * 3) }, (_, i) => ({ type: 'first_crack_start', t: 1000 * i }));
    // Key order varies, events may be absent or come first, and the top-level keys are sometimes escaped
    // (then the post is parsed instead of cut: the same messages either way).
    const fields: [string, unknown][] = [['seq', round], ['samples', samples], ...(events.length > 0 || random() < 0.5 ? [['events', events] as [string, unknown]] : [])];
    fields.sort(() => random() - 0.5);
    const post = looseJson(Object.fromEntries(fields), random, round % 4 === 0);
    const status = random() < 0.3 ? JSON.stringify({ state: random() < 0.5 ? 'completed' : 'roasting' }) : '';
    const count = samples.length + events.length + (status ? 1 : 0);
    if (count === 0) continue;
    const stored = { lastId: 1000 + count, post: Buffer.from(post), status: Buffer.from(status) };
    const afterId = random() < 0.5 ? 0 : 1000 + Math.floor(random() * count);
    const cut = frameStored([stored], afterId);
    const parsed = parsedFraming(stored, afterId);
    assert.deepEqual(cut && messagesOfRun(cut), messagesOfRun(parsed), `post ${post}, after ${afterId}`);
    assert.equal(cut!.final, parsed.final, 'final when the status ends the batch');
    assert.equal(cut!.frames.bytes, Buffer.concat(cut!.frames.chunks).length);
  }
});

test('a post given a key twice is framed with the last, as JSON.parse reads it', () => {
  const post = Buffer.from('{"samples":[{"t":1,"bt":1,"et":1}],"seq":1,"samples":[{"t":2,"bt":2,"et":2},{"t":3,"bt":3,"et":3}]}');
  assert.deepEqual(elementsOf(post)!.samples.length, 4);
  const run = frameStored([{ lastId: 2, post, status: Buffer.alloc(0) }], 0)!;
  assert.deepEqual(messagesOfRun(run).map((m) => [m.id, (m.data as { t: number }).t]), [[1, 2], [2, 3]]);
});

test("a curve's arrays cut from its posts' text parse to the curve itself, in its order, however the posts were written", () => {
  let seed = 11;
  const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
  let orderedRounds = 0;
  for (let round = 0; round < 100; round++) {
    const ordered = round % 2 === 0;
    const entries: LiveEntry[] = [];
    let t = 0;
    for (let p = 0; p < 1 + Math.floor(random() * 5); p++) {
      // Posts in time order, or (odd rounds) some posts late and some samples out of order within a post.
      const samples = Array.from({ length: Math.floor(random() * 20) }, () => ({
        t: ordered ? (t += 100) : Math.floor(random() * 50) * 100,
        bt: random() < 0.1 ? null : Math.round(random() * 30000) / 100,
        et: 220.5,
        ...(random() < 0.5 ? { channels: { inlet: random() < 0.2 ? null : 250, 'drum.rpm': 62 } } : {}),
      }));
      const events = random() < 0.3 ? [{ type: 'first_crack_start', t: ordered ? t : Math.floor(random() * 5000) }] : [];
      const fields: [string, unknown][] = [['seq', p], ['samples', samples], ...(events.length > 0 || random() < 0.5 ? [['events', events] as [string, unknown]] : [])];
      fields.sort(() => random() - 0.5);
      const text = looseJson(Object.fromEntries(fields), random, round % 5 === 0);
      // Kept as a string (the disk store), as bytes (Redis), or not at all (serialised instead).
      const post = random() < 0.1 ? undefined : random() < 0.5 ? text : Buffer.from(text);
      entries.push({ firstId: 0, samples, events, ...(post !== undefined && { post }) });
      if (random() < 0.2) entries.push({ firstId: 0, samples: [], events: [], status: { state: 'roasting' } });
    }
    const { curve, samples, events } = curveTextOf(entries);
    assert.deepEqual(curve, curveOf(entries), 'the curve is curveOf’s');
    assert.deepEqual(JSON.parse(jsonArray(samples).toString()), curve.samples, `round ${round}: the samples, in the curve's order`);
    assert.deepEqual(JSON.parse(jsonArray(events).toString()), curve.events, `round ${round}: the events, in the curve's order`);
    if (ordered) orderedRounds++;
  }
  assert.equal(orderedRounds, 50, 'half the rounds have posts in time order (copied whole)');
});

test("a post's points are copied as the bridge wrote them", () => {
  const post = '{"seq":1, "samples":[{"t":0,"bt":1.50,"et":2e2} , {"t":100,"bt":null,"et":200}],"events":[ {"type":"charge","t":0} ]}';
  const { samples, events } = curveTextOf([{ firstId: 1, samples: [{ t: 0, bt: 1.5, et: 200 }, { t: 100, bt: null, et: 200 }] as never, events: [{ type: 'charge', t: 0 }] as never, post }]);
  assert.equal(jsonArray(samples).toString(), '[{"t":0,"bt":1.50,"et":2e2} , {"t":100,"bt":null,"et":200}]');
  assert.equal(jsonArray(events).toString(), '[{"type":"charge","t":0}]');
  assert.equal(jsonArray(curveTextOf([]).samples).toString(), '[]', 'no post: an empty array');
});
