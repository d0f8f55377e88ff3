import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Encryption at rest for the secrets the service must read back (JWT signing keys): AES-256-GCM with a
 * 256-bit key, each value `v1.<iv>.<tag>.<ciphertext>` in base64url. Server mode takes the key from
 * FIRSTCRACK_ENCRYPTION_KEY (32 bytes, base64), so every API process decrypts alike; embedded, it is kept in
 * `<data dir>/encryption.key` (created on first use, mode 0600) beside the database it protects.
 */
export interface KeyEncryption {
  encrypt(plaintext: string): string;
  decrypt(stored: string): string;
}

export const ENCRYPTION_KEY_VARIABLE = 'FIRSTCRACK_ENCRYPTION_KEY';

/** No key can be had: server mode without FIRSTCRACK_ENCRYPTION_KEY, or a malformed one. */
export class EncryptionKeyError extends Error {}

export function aesGcm(key: Buffer): KeyEncryption {
  if (key.length !== 32) throw new EncryptionKeyError(`The encryption key must be 32 bytes (it is ${key.length}).`);
  return {
    encrypt(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
    },
    decrypt(stored) {
      const [version, iv, tag, body] = stored.split('.');
      if (version !== 'v1' || !iv || !tag || body === undefined) throw new EncryptionKeyError('Not a value this service encrypted.');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}

/**
 * The key as configured, resolved on first use (so a server that never signs a JWT needs none): the
 * environment variable when set, else in server mode an error, else the data directory's key file.
 */
export function configuredKeyEncryption(options: { serverMode: boolean; dataDir: string; env?: NodeJS.ProcessEnv }): KeyEncryption {
  let resolved: KeyEncryption | undefined;
  const resolve = (): KeyEncryption => {
    if (resolved) return resolved;
    const fromEnv = (options.env ?? process.env)[ENCRYPTION_KEY_VARIABLE];
    if (fromEnv) {
      resolved = aesGcm(Buffer.from(fromEnv, 'base64'));
    } else if (options.serverMode) {
      throw new EncryptionKeyError(
        `Set ${ENCRYPTION_KEY_VARIABLE} to 32 random bytes in base64 (openssl rand -base64 32), the same in every process, to sign access tokens.`,
      );
    } else {
      const file = join(options.dataDir, 'encryption.key');
      if (!existsSync(file)) {
        mkdirSync(options.dataDir, { recursive: true });
        writeFileSync(file, randomBytes(32).toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
      }
      resolved = aesGcm(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64'));
    }
    return resolved;
  };
  return { encrypt: (plaintext) => resolve().encrypt(plaintext), decrypt: (stored) => resolve().decrypt(stored) };
}
