import type { Config } from '../config.js';
import { SecretKeyError, decryptSecret, encryptSecret, loadSecretKey } from '../crypto/secrets.js';

/**
 * Encryption at rest for the secrets the service must read back (JWT signing keys, as webhook secrets):
 * the one key of src/crypto/secrets.ts (FIRSTCRACK_SECRET_KEY in server mode, the data directory's key
 * file embedded), resolved on first use, so a server that never signs a token needs none.
 */
export interface KeyEncryption {
  encrypt(plaintext: string): string;
  decrypt(stored: string): string;
}

/** No key can be had: server mode without FIRSTCRACK_SECRET_KEY, or a malformed one. */
export { SecretKeyError as EncryptionKeyError };

export function configuredKeyEncryption(config: Pick<Config, 'secretKey' | 'databaseUrl' | 'dataDir'>): KeyEncryption {
  return {
    encrypt: (plaintext) => encryptSecret(loadSecretKey(config), plaintext),
    decrypt: (stored) => decryptSecret(loadSecretKey(config), stored),
  };
}
