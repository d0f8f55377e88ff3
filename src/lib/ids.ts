import { randomBytes } from 'node:crypto';

// Crockford base32: time-sortable, URL-safe, unambiguous.
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * A prefixed, time-sortable, unguessable id: `<prefix>_<10 chars of ms time><16 chars of randomness>`.
 * 80 random bits make ids unguessable; the time prefix keeps B-tree inserts local and lists stable.
 */
export function newId(prefix: string): string {
  let time = Date.now();
  let head = '';
  for (let i = 0; i < 10; i++) {
    head = ALPHABET[time % 32] + head;
    time = Math.floor(time / 32);
  }
  const bytes = pooledRandomBytes(10);
  let tail = '';
  let acc = 0;
  let bits = 0;
  for (const byte of bytes) {
    acc = (acc << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      tail += ALPHABET[(acc >> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return `${prefix}_${head}${tail}`;
}

/**
 * Random bytes for ids, drawn from a pool the CSPRNG refills 4 KB at a time: one system call per ~400 ids
 * instead of one per id (every request takes one, for its request id). As node's own randomUUID does.
 * Secrets below draw fresh bytes.
 */
const RANDOM_POOL_BYTES = 4096;
let randomPool = Buffer.alloc(0);
let randomOffset = 0;
function pooledRandomBytes(count: number): Buffer {
  if (randomOffset + count > randomPool.length) {
    randomPool = randomBytes(RANDOM_POOL_BYTES);
    randomOffset = 0;
  }
  randomOffset += count;
  return randomPool.subarray(randomOffset - count, randomOffset);
}

/** A random secret for credentials and public tokens (256 bits, base64url). */
export function newSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}
