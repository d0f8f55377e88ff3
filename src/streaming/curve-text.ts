import { curveOf, type CurveText, type LiveEntry } from './live.js';
import { elementsOf } from './live-redis-entries.js';

/**
 * The curve of a session's entries, and its arrays' JSON cut from the posts' text as stored: each point's
 * bytes as the producer wrote them (checked when it was stored), copied rather than serialised again from the
 * objects. Writing a 20-minute roast's full curve is then a copy of its posts, not the encoding of 12,000
 * objects (bench/README.md, "completeRoastBatch"). An entry without its text, or whose text the byte pass
 * cannot cut (top-level keys written with escapes), has its points serialised instead: the same values.
 */
export function curveTextOf(entries: readonly LiveEntry[]): CurveText {
  const pieces = entries.map(piecesOf);
  return {
    curve: curveOf(entries as LiveEntry[]),
    samples: arrayText(entries, pieces, 'samples'),
    events: arrayText(entries, pieces, 'events'),
  };
}

/** Where an entry's samples and events lie in its text: from, to pairs in order (elementsOf). */
interface EntryPieces {
  text: Buffer;
  samples: number[];
  events: number[];
}

function piecesOf(entry: LiveEntry): EntryPieces {
  if (entry.samples.length + entry.events.length === 0) return { text: EMPTY, samples: [], events: [] };
  if (entry.post !== undefined) {
    const text = typeof entry.post === 'string' ? Buffer.from(entry.post) : entry.post;
    const found = elementsOf(text);
    // The counts hold for any text the entry was parsed from; checked all the same, as the cut must match the objects.
    if (found && found.samples.length === 2 * entry.samples.length && found.events.length === 2 * entry.events.length) return { text, ...found };
  }
  const text = Buffer.from(JSON.stringify({ samples: entry.samples, events: entry.events }));
  return { text, ...elementsOf(text)! };
}

/**
 * One of the curve's arrays as JSON, in curveOf's order (points placed by t, stably). The usual case, each
 * post later than the one before, needs one copy per post: its points are contiguous in its text.
 */
function arrayText(entries: readonly LiveEntry[], pieces: EntryPieces[], list: 'samples' | 'events'): Buffer[] {
  const parts: Buffer[] = [];
  if (inOrder(entries, list)) {
    for (const piece of pieces) {
      const ranges = piece[list];
      if (ranges.length > 0) parts.push(piece.text.subarray(ranges[0], ranges[ranges.length - 1]));
    }
  } else {
    const points: { t: number; entry: number; index: number }[] = [];
    entries.forEach((entry, e) => entry[list].forEach((point, index) => points.push({ t: point.t, entry: e, index })));
    points.sort((a, b) => a.t - b.t); // stable, as curveOf's
    for (const { entry, index } of points) {
      const ranges = pieces[entry][list];
      parts.push(pieces[entry].text.subarray(ranges[2 * index], ranges[2 * index + 1]));
    }
  }
  return parts;
}

/** Whether the entries' points, one entry after another, are already in t order. */
function inOrder(entries: readonly LiveEntry[], list: 'samples' | 'events'): boolean {
  let last = -Infinity;
  for (const entry of entries) {
    for (const point of entry[list]) {
      if (point.t < last) return false;
      last = point.t;
    }
  }
  return true;
}

/** Text pieces (strings or bytes) and arrays of runs (a CurveText's lists, written as JSON arrays), as one buffer: a single allocation and copy. */
export function joinText(pieces: readonly (string | readonly Buffer[])[]): Buffer {
  let length = 0;
  for (const piece of pieces) {
    if (typeof piece === 'string') length += Buffer.byteLength(piece);
    else for (const run of piece) length += run.length + 1; // each run and a comma, or the closing bracket
    if (typeof piece !== 'string') length += piece.length === 0 ? 2 : 1; // the opening bracket
  }
  const out = Buffer.allocUnsafe(length);
  let at = 0;
  for (const piece of pieces) {
    if (typeof piece === 'string') {
      at += out.write(piece, at);
      continue;
    }
    out[at++] = OPEN_BRACKET;
    piece.forEach((run, i) => {
      if (i > 0) out[at++] = COMMA;
      at += run.copy(out, at);
    });
    out[at++] = CLOSE_BRACKET;
  }
  return out;
}

/** A list of runs as its JSON array. */
export const jsonArray = (runs: readonly Buffer[]): Buffer => joinText([runs]);

const EMPTY = Buffer.alloc(0);
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
