import { createHash } from 'node:crypto';

/**
 * Letters and digits a cupper cannot misread on a cup label: no 0/O, 1/I/L; 31 symbols.
 */
export const BLIND_CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const CODE_LENGTH = 3;

/**
 * A deterministic stream of random integers seeded by `seed`: SHA-256 of seed and a block counter, read 32
 * bits at a time, with rejection sampling so every integer below `bound` is equally likely.
 */
function seededRandom(seed: string): (bound: number) => number {
  let block = 0;
  let buffer = Buffer.alloc(0);
  let offset = 0;
  const next32 = () => {
    if (offset + 4 > buffer.length) {
      buffer = createHash('sha256').update(`${seed}\u0000${block++}`).digest();
      offset = 0;
    }
    const value = buffer.readUInt32BE(offset);
    offset += 4;
    return value;
  };
  return (bound) => {
    const limit = Math.floor(0x1_0000_0000 / bound) * bound;
    for (;;) {
      const value = next32();
      if (value < limit) return value % bound;
    }
  };
}

/**
 * The blind codes of a session's `count` coffees, in the order the coffees were given: `count` distinct
 * three-symbol codes drawn from a stream seeded by the session id, dealt to the coffees in a Fisher–Yates
 * shuffle from the same stream. The same session id always yields the same codes; another id another
 * draw and order. Sorting by code therefore reveals nothing of the order the coffees were given in.
 */
export function blindCodes(sessionId: string, count: number): string[] {
  const random = seededRandom(sessionId);
  const codes = new Set<string>();
  while (codes.size < count) {
    let code = '';
    for (let i = 0; i < CODE_LENGTH; i++) code += BLIND_CODE_ALPHABET[random(BLIND_CODE_ALPHABET.length)];
    codes.add(code);
  }
  const dealt = [...codes].sort();
  for (let i = dealt.length - 1; i > 0; i--) {
    const j = random(i + 1);
    [dealt[i], dealt[j]] = [dealt[j], dealt[i]];
  }
  return dealt;
}
