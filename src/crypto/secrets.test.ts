import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { SecretKeyError, decryptSecret, encryptSecret, loadSecretKey } from './secrets.js';

test('secrets round-trip under the key, with a fresh IV each time; another key or a changed ciphertext is refused', () => {
  const key = loadSecretKey({ secretKey: randomBytes(32).toString('base64'), dataDir: '/nonexistent' });
  const a = encryptSecret(key, 'whsec_example');
  const b = encryptSecret(key, 'whsec_example');
  assert.notEqual(a, b, 'two encryptions of one secret differ');
  assert.ok(!a.includes('whsec_example'), 'the plaintext is not in the stored form');
  assert.equal(decryptSecret(key, a), 'whsec_example');
  const other = loadSecretKey({ secretKey: randomBytes(32).toString('base64'), dataDir: '/nonexistent' });
  assert.throws(() => decryptSecret(other, a), SecretKeyError);
  const [v, id, iv, body] = a.split('.');
  const flipped = Buffer.from(body, 'base64url');
  flipped[0] ^= 1;
  assert.throws(() => decryptSecret(key, [v, id, iv, flipped.toString('base64url')].join('.')));
});

test('embedded mode keeps its key in the data directory (0600), the same across loads; server mode requires the variable', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'fc-secrets-'));
  try {
    const first = loadSecretKey({ dataDir });
    assert.equal(statSync(join(dataDir, 'secret.key')).mode & 0o777, 0o600);
    const stored = encryptSecret(first, 'kept');
    assert.equal(decryptSecret(loadSecretKey({ dataDir }), stored), 'kept');
    assert.throws(() => loadSecretKey({ dataDir, databaseUrl: 'postgres://x@127.0.0.1/db' }), /FIRSTCRACK_SECRET_KEY must be set/);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
