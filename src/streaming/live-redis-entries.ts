import { RunFramer, type LiveRun } from './frames.js';
import { entrySize, messagesOf, type LiveEntry } from './live.js';
import type { LiveCurve } from './messages.js';

/**
 * A stored post or status as the Redis store keeps it in its log and publishes it (live-redis.ts): the id of
 * its last message, the post's JSON text as received and checked, on one line (or empty), the status's JSON
 * (or empty).
 */
export interface StoredPost<Text extends string | Buffer = string> {
  lastId: number;
  post: Text;
  status: Text;
}

/** A stored post (or status) parsed, numbered so its last message has `lastId`; a post's entry keeps its text. */
export function storedEntry({ lastId, post, status }: StoredPost<string | Buffer>): LiveEntry {
  const parsed = post.length > 0 ? (JSON.parse(post.toString()) as Partial<LiveCurve> & Pick<LiveCurve, 'samples'>) : { samples: [] };
  const entry: LiveEntry = { firstId: 0, samples: parsed.samples, events: parsed.events ?? [], ...(post.length > 0 && { post }) };
  if (status.length > 0) entry.status = JSON.parse(status.toString()) as { state: string };
  entry.firstId = lastId - entrySize(entry) + 1;
  return entry;
}

/**
 * The stored posts' messages with ids above `afterId`, framed as one run (null when there are none): the
 * samples, then the events, then the status. A sample's or event's `data` is its
 * JSON as the bridge wrote it, copied out of the post's bytes: the post is never parsed here, because parsing
 * and re-serialising on the event loop holds every other request, and the parsed objects, alive across the
 * fan-out, outlive the young generation (bench/README.md, "Telemetry posts").
 */
export function frameStored(stored: readonly StoredPost<Buffer>[], afterId: number): LiveRun | null {
  const framer = new RunFramer();
  for (const text of stored) {
    const { lastId, post, status } = text;
    const found = post.length > 0 ? elementsOf(post) : { samples: [], events: [] };
    if (found === null) {
      // A post whose keys were written with escapes: its messages are serialised from the parsed post.
      for (const message of messagesOf(storedEntry(text), afterId)) framer.addMessage(message);
      continue;
    }
    // Numbered as messagesOf numbers an entry: the samples, then the events, then the status, up to lastId.
    let id = lastId - (found.samples.length + found.events.length) / 2 - (status.length > 0 ? 1 : 0);
    for (let i = 0; i < found.samples.length; i += 2) if (++id > afterId) framer.addBytes(id, 'sample', post, found.samples[i], found.samples[i + 1]);
    for (let i = 0; i < found.events.length; i += 2) if (++id > afterId) framer.addBytes(id, 'roast_event', post, found.events[i], found.events[i + 1]);
    if (status.length > 0 && lastId > afterId) framer.addMessage({ id: lastId, event: 'status', data: JSON.parse(status.toString('utf8')) as { state: string } });
  }
  return framer.finish();
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const SAMPLES = Buffer.from('samples');
const EVENTS = Buffer.from('events');

/**
 * Where each sample and each event lies in a checked post's JSON (from, to pairs, in order), found by one
 * pass over its bytes that follows strings and nesting; null when a top-level key is written with escapes
 * (`"s\u0061mples"`), which the pass does not decode. A checked post is an object whose values are a number
 * and arrays of objects, so at its top level every string is a key, and its elements are the objects one
 * level inside the arrays named `samples` and `events`; a key given twice counts as its last, as JSON.parse
 * takes it.
 */
export function elementsOf(post: Buffer): { samples: number[]; events: number[] } | null {
  let samples: number[] = [];
  let events: number[] = [];
  /** The list the key just read at the top level names (null for `seq`), and the array being read, if named. */
  let named: number[] | null = null;
  let reading: number[] | null = null;
  let depth = 0;
  let elementFrom = 0;
  for (let i = 0; i < post.length; i++) {
    const c = post[i];
    if (c === QUOTE) {
      const from = ++i;
      let escaped = false;
      for (; post[i] !== QUOTE; i++) {
        if (post[i] === BACKSLASH) {
          escaped = true;
          i++;
        }
      }
      if (depth !== 1) continue;
      if (escaped) return null;
      const key = post.subarray(from, i);
      named = key.equals(SAMPLES) ? (samples = []) : key.equals(EVENTS) ? (events = []) : null;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++;
      if (depth === 2) reading = named;
      else if (depth === 3) elementFrom = i;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (depth === 3) reading?.push(elementFrom, i + 1);
      depth--;
    }
  }
  return { samples, events };
}
