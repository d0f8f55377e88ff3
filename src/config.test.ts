import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from './config.js';
import { CLI } from './testing/processes.js';

const root = new URL('..', import.meta.url).pathname;

/** Expects loadConfig to refuse `env` with a line naming `variable`, matching `message`. */
function assertRefused(env: NodeJS.ProcessEnv, variable: string, message: RegExp): void {
  assert.throws(
    () => loadConfig(env),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError, String(error));
      const line = error.message.split('\n').find((l) => l.trim().startsWith(`${variable}:`));
      assert.ok(line, `no line names ${variable}:\n${error.message}`);
      assert.match(line, message);
      return true;
    },
  );
}

describe('S3 configuration', () => {
  test('without S3_BUCKET there is no S3 store (blobs stay on the filesystem); empty variables count as unset', () => {
    assert.equal(loadConfig({}).s3, undefined);
    assert.equal(loadConfig({ S3_BUCKET: '', S3_ENDPOINT: '', S3_FORCE_PATH_STYLE: '' }).s3, undefined);
  });

  test('S3_BUCKET alone: AWS S3 in us-east-1 with the default credential chain, virtual-hosted, no prefix', () => {
    assert.deepEqual(loadConfig({ S3_BUCKET: 'roast-curves' }).s3, {
      bucket: 'roast-curves',
      endpoint: undefined,
      region: 'us-east-1',
      credentials: undefined,
      forcePathStyle: false,
      prefix: '',
    });
  });

  test('every variable, as for MinIO; the prefix becomes a folder', () => {
    const s3 = loadConfig({
      S3_BUCKET: 'firstcrack.blobs',
      S3_ENDPOINT: 'http://127.0.0.1:9000',
      S3_REGION: 'eu-central-1',
      S3_ACCESS_KEY_ID: 'minioadmin',
      S3_SECRET_ACCESS_KEY: 'minio-secret',
      S3_FORCE_PATH_STYLE: 'true',
      S3_PREFIX: 'prod',
    }).s3;
    assert.deepEqual(s3, {
      bucket: 'firstcrack.blobs',
      endpoint: 'http://127.0.0.1:9000',
      region: 'eu-central-1',
      credentials: { accessKeyId: 'minioadmin', secretAccessKey: 'minio-secret' },
      forcePathStyle: true,
      prefix: 'prod/',
    });
    assert.equal(loadConfig({ S3_BUCKET: 'b-1', S3_PREFIX: 'a/b/' }).s3!.prefix, 'a/b/');
    assert.equal(loadConfig({ S3_BUCKET: 'b-1', S3_FORCE_PATH_STYLE: 'false' }).s3!.forcePathStyle, false);
  });

  test('a setting without S3_BUCKET is refused, naming the setting', () => {
    assertRefused({ S3_ENDPOINT: 'http://127.0.0.1:9000' }, 'S3_ENDPOINT', /is set but S3_BUCKET is not/);
    assertRefused({ S3_ACCESS_KEY_ID: 'k', S3_SECRET_ACCESS_KEY: 's' }, 'S3_SECRET_ACCESS_KEY', /is set but S3_BUCKET is not/);
    assertRefused({ S3_PREFIX: 'prod/' }, 'S3_PREFIX', /is set but S3_BUCKET is not/);
  });

  test('malformed values are refused, naming the variable', () => {
    assertRefused({ S3_BUCKET: 'b-1', S3_ENDPOINT: 'minio:9000' }, 'S3_ENDPOINT', /must be an http:\/\/ or https:\/\/ URL/);
    assertRefused({ S3_BUCKET: 'b-1', S3_ENDPOINT: 'ftp://files.example' }, 'S3_ENDPOINT', /must be an http:\/\/ or https:\/\/ URL/);
    assertRefused({ S3_BUCKET: 'b-1', S3_FORCE_PATH_STYLE: 'maybe' }, 'S3_FORCE_PATH_STYLE', /must be true or false/);
    assertRefused({ S3_BUCKET: 'Roast_Curves' }, 'S3_BUCKET', /must be a bucket name/);
    assertRefused({ S3_BUCKET: 'b-1', S3_REGION: 'EU West' }, 'S3_REGION', /must be a region name/);
    assertRefused({ S3_BUCKET: 'b-1', S3_PREFIX: '/prod' }, 'S3_PREFIX', /must not start with \//);
  });

  test('one half of a key pair is refused, naming the missing half', () => {
    assertRefused({ S3_BUCKET: 'b-1', S3_ACCESS_KEY_ID: 'k' }, 'S3_SECRET_ACCESS_KEY', /is required when the other S3 key is set/);
    assertRefused({ S3_BUCKET: 'b-1', S3_SECRET_ACCESS_KEY: 's' }, 'S3_ACCESS_KEY_ID', /is required when the other S3 key is set/);
  });

  test('`firstcrack serve` with a bad setting stops at start with the message and exit code 2, opening nothing', (t) => {
    const { DATABASE_URL: _db, REDIS_URL: _redis, ...env } = process.env;
    const parent = mkdtempSync(join(tmpdir(), 'fc-config-'));
    t.after(() => rmSync(parent, { recursive: true, force: true }));
    const dataDir = join(parent, 'data');
    const result = spawnSync(process.execPath, [...CLI, 'serve'], {
      cwd: root,
      env: { ...env, FIRSTCRACK_DATA_DIR: dataDir, S3_ENDPOINT: 'http://127.0.0.1:9000', S3_FORCE_PATH_STYLE: 'yes please' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(result.status, 2, result.stdout + result.stderr);
    assert.equal(
      result.stderr.trim(),
      [
        'firstcrack: Invalid configuration:',
        '  S3_FORCE_PATH_STYLE: must be true or false',
        '  S3_ENDPOINT: is set but S3_BUCKET is not; set S3_BUCKET to store blobs in S3, or unset S3_ENDPOINT',
        '  S3_FORCE_PATH_STYLE: is set but S3_BUCKET is not; set S3_BUCKET to store blobs in S3, or unset S3_FORCE_PATH_STYLE',
      ].join('\n'),
    );
    assert.equal(existsSync(dataDir), false, 'no data directory was created');
  });
});

describe('database pool size', () => {
  test('defaults to 20 and takes a whole number from 1 to 500', () => {
    assert.equal(loadConfig({}).databasePoolSize, 20);
    assert.equal(loadConfig({ DATABASE_POOL_SIZE: '4' }).databasePoolSize, 4);
    for (const value of ['0', '501', '2.5', 'four']) assertRefused({ DATABASE_POOL_SIZE: value }, 'DATABASE_POOL_SIZE', /whole number from 1 to 500/);
  });
});

describe('heap growth', () => {
  test('defaults to 30 % and takes a whole number from 0 to 300', () => {
    assert.equal(loadConfig({}).heapGrowthPercent, 30);
    assert.equal(loadConfig({ FIRSTCRACK_HEAP_GROWTH_PERCENT: '0' }).heapGrowthPercent, 0);
    for (const value of ['-1', '301', '2.5', 'lots']) assertRefused({ FIRSTCRACK_HEAP_GROWTH_PERCENT: value }, 'FIRSTCRACK_HEAP_GROWTH_PERCENT', /whole number from 0/);
  });
});

describe('stream caps', () => {
  test('unset by default (the streaming platform’s caps hold) and take a whole number from 1 to 1000000', () => {
    assert.deepEqual(loadConfig({}).streamCaps, { perCredential: undefined, perOrganization: undefined });
    assert.deepEqual(loadConfig({ FIRSTCRACK_STREAMS_PER_CREDENTIAL: '50', FIRSTCRACK_STREAMS_PER_ORGANIZATION: '5000' }).streamCaps, { perCredential: 50, perOrganization: 5000 });
    for (const variable of ['FIRSTCRACK_STREAMS_PER_CREDENTIAL', 'FIRSTCRACK_STREAMS_PER_ORGANIZATION']) {
      for (const value of ['0', '1000001', '2.5', 'many']) assertRefused({ [variable]: value }, variable, /whole number from 1 to 1000000/);
    }
  });
});
