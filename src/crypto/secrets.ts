import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';

/**
 * Secrets the service must read back later (webhook signing secrets, signing keys) are stored encrypted
 * with AES-256-GCM under one key: `FIRSTCRACK_SECRET_KEY` (base64 of 32 bytes) in server mode, where every
 * process must share it; embedded, a key file created once in the data directory (mode 0600). Stored form:
 * `v1.<key id>.<iv>.<ciphertext+tag>` (base64url), where the key id (8 hex of the key's SHA-256) makes a
 * wrong key a clear error instead of a failed tag.
 */
export interface SecretKey {
  id: string;
  key: Buffer;
}

export class SecretKeyError extends Error {}

const KEY_FILE = 'secret.key';
const cache = new Map<string, SecretKey>();

const keyOf = (key: Buffer): SecretKey => {
  if (key.length !== 32) throw new SecretKeyError('The secret key must be 32 bytes (base64 of 32 random bytes).');
  return { id: createHash('sha256').update(key).digest('hex').slice(0, 8), key };
};

/** The key secrets are encrypted under, for this configuration (cached per source). */
export function loadSecretKey(config: Pick<Config, 'secretKey' | 'databaseUrl' | 'dataDir'>): SecretKey {
  if (config.secretKey) {
    const cached = cache.get(`env:${config.secretKey}`);
    if (cached) return cached;
    const bytes = Buffer.from(config.secretKey, 'base64');
    if (bytes.length !== 32) throw new SecretKeyError('FIRSTCRACK_SECRET_KEY must be base64 of 32 random bytes (`openssl rand -base64 32`).');
    const key = keyOf(bytes);
    cache.set(`env:${config.secretKey}`, key);
    return key;
  }
  if (config.databaseUrl) {
    throw new SecretKeyError('FIRSTCRACK_SECRET_KEY must be set in server mode (DATABASE_URL): every process must encrypt with the same key. Generate one with `openssl rand -base64 32`.');
  }
  const path = join(config.dataDir, KEY_FILE);
  const cached = cache.get(`file:${path}`);
  if (cached) return cached;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    mkdirSync(config.dataDir, { recursive: true });
    try {
      // 'wx': two starters never overwrite each other's key; the loser reads the winner's.
      writeFileSync(path, randomBytes(32).toString('base64') + '\n', { flag: 'wx', mode: 0o600 });
      chmodSync(path, 0o600);
    } catch (inner) {
      if ((inner as NodeJS.ErrnoException).code !== 'EEXIST') throw inner;
    }
    text = readFileSync(path, 'utf8');
  }
  const key = keyOf(Buffer.from(text.trim(), 'base64'));
  cache.set(`file:${path}`, key);
  return key;
}

/** Encrypts a secret for storage (a fresh 96-bit IV each time). */
export function encryptSecret(key: SecretKey, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key.key, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `v1.${key.id}.${iv.toString('base64url')}.${body.toString('base64url')}`;
}

/** Decrypts what encryptSecret stored; a wrong key or a changed ciphertext throws. */
export function decryptSecret(key: SecretKey, stored: string): string {
  const [version, keyId, iv, body] = stored.split('.');
  if (version !== 'v1' || !iv || !body) throw new SecretKeyError('Not an encrypted secret of this service.');
  if (keyId !== key.id) throw new SecretKeyError(`The secret was encrypted under key ${keyId}, not the configured key ${key.id}.`);
  const data = Buffer.from(body, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', key.key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(data.subarray(data.length - 16));
  return Buffer.concat([decipher.update(data.subarray(0, data.length - 16)), decipher.final()]).toString('utf8');
}
