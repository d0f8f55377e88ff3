import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { DeleteObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { S3Config } from '../config.js';
import { startFakeS3 } from '../testing/fake-s3.js';
import { S3BlobStore } from './s3.js';

const credentials = { accessKeyId: 'AKIAFIRSTCRACKTEST', secretAccessKey: randomBytes(30).toString('base64') };
const s3 = await startFakeS3({ bucket: 'roast-curves', ...credentials });
const opened: S3BlobStore[] = [];
after(async () => {
  await Promise.all(opened.map((store) => store.close()));
  await s3.close();
});

/** A store against the fake server, configured as the service configures one; `overrides` bend one setting. */
function storeWith(overrides: Partial<S3Config> = {}): S3BlobStore {
  const store = S3BlobStore.fromConfig({ bucket: s3.bucket, endpoint: s3.endpoint, region: s3.region, credentials, forcePathStyle: true, prefix: '', ...overrides });
  opened.push(store);
  return store;
}

const lastAnswer = () => s3.log.at(-1)!;

describe('S3BlobStore', () => {
  const store = storeWith();

  test('put resolves once the object is stored; get returns the same bytes, binary-safe, with the content type kept', async () => {
    const bytes = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), randomBytes(64 * 1024)]);
    await store.put('blobs/binary.bin', bytes, 'application/octet-stream');
    const stored = s3.objects.get('blobs/binary.bin');
    assert.ok(stored, 'the object is in the bucket when put resolves');
    assert.ok(stored.body.equals(bytes), 'the bucket holds exactly the bytes put');
    assert.equal(stored.contentType, 'application/octet-stream');
    assert.ok((await store.get('blobs/binary.bin'))!.equals(bytes), 'get returns exactly the bytes put');

    const text = JSON.stringify({ origin: 'Café Ñuñoa', notes: 'jasmine, bergamot ☕' });
    await store.put('blobs/text.json', text, 'application/json');
    assert.equal(s3.objects.get('blobs/text.json')!.contentType, 'application/json');
    assert.equal((await store.get('blobs/text.json'))!.toString('utf8'), text);
  });

  test('deleteOrganizationObjects deletes every key <kind>/<orgId>/… of every kind under the prefix, and nothing of another organization', async () => {
    const prefixed = storeWith({ prefix: 'tenant-test/' });
    for (const key of ['curves/org_gone/rb_1.json', 'reports/org_gone/rpt 1.pdf', 'imports/org_gone/sub/imp_1.csv', 'curves/org_kept/rb_2.json', 'reports/org_gone_too/x.pdf']) {
      await prefixed.put(key, 'x', 'application/octet-stream');
    }
    await store.put('curves/org_gone/outside-the-prefix.json', 'x', 'application/json');
    assert.deepEqual(await prefixed.listOrganizationObjects('org_gone'), ['curves/org_gone/rb_1.json', 'imports/org_gone/sub/imp_1.csv', 'reports/org_gone/rpt 1.pdf'], 'listed as the store’s own keys');
    assert.equal(await prefixed.deleteOrganizationObjects('org_gone'), 3);
    const left = [...s3.objects.keys()].filter((k) => k.startsWith('tenant-test/')).sort();
    assert.deepEqual(left, ['tenant-test/curves/org_kept/rb_2.json', 'tenant-test/reports/org_gone_too/x.pdf']);
    assert.ok(s3.objects.has('curves/org_gone/outside-the-prefix.json'), 'keys outside the store’s prefix are not its own');
    assert.equal(await prefixed.deleteOrganizationObjects('org_gone'), 0, 'a second call finds none');
  });

  test('a put to an existing key replaces the object', async () => {
    await store.put('blobs/replaced.json', '{"v":1}', 'application/json');
    await store.put('blobs/replaced.json', '{"v":2}', 'application/json');
    assert.equal((await store.get('blobs/replaced.json'))!.toString(), '{"v":2}');
  });

  test('get of a missing key is null (the server answered 404 NoSuchKey)', async () => {
    assert.equal(await store.get('blobs/never-written.json'), null);
    assert.deepEqual(lastAnswer(), { method: 'GET', key: 'blobs/never-written.json', status: 404, code: 'NoSuchKey' });
  });

  test('keys with spaces and non-ASCII characters are stored under exactly that key', async () => {
    await store.put('curves/lot 7/Ñuñoa+São.json', '{}', 'application/json');
    assert.ok(s3.objects.has('curves/lot 7/Ñuñoa+São.json'), `the key is stored as given; the bucket holds ${[...s3.objects.keys()].join(', ')}`);
    assert.equal((await store.get('curves/lot 7/Ñuñoa+São.json'))!.toString(), '{}');
  });

  test('a wrong secret: put rejects naming the object and SignatureDoesNotMatch, and nothing is stored', async () => {
    const wrong = storeWith({ credentials: { ...credentials, secretAccessKey: 'not-the-secret' } });
    await assert.rejects(wrong.put('blobs/forged.json', '{}', 'application/json'), (error: Error) => {
      assert.match(error.message, /^Could not store s3:\/\/roast-curves\/blobs\/forged\.json: SignatureDoesNotMatch \(HTTP 403\): /);
      return true;
    });
    assert.equal(s3.objects.has('blobs/forged.json'), false);
    assert.deepEqual(lastAnswer(), { method: 'PUT', key: 'blobs/forged.json', status: 403, code: 'SignatureDoesNotMatch' });
    // A refused read is an error, never "no such object".
    await store.put('blobs/guarded.json', '{}', 'application/json');
    await assert.rejects(wrong.get('blobs/guarded.json'), /^Error: Could not read s3:\/\/roast-curves\/blobs\/guarded\.json: SignatureDoesNotMatch/);
  });

  test('an unknown access key is refused with InvalidAccessKeyId', async () => {
    const stranger = storeWith({ credentials: { accessKeyId: 'AKIASTRANGER', secretAccessKey: credentials.secretAccessKey } });
    await assert.rejects(stranger.put('blobs/stranger.json', '{}', 'application/json'), /InvalidAccessKeyId \(HTTP 403\)/);
    assert.equal(s3.objects.has('blobs/stranger.json'), false);
  });

  test('a missing bucket is an error on get, not a missing object', async () => {
    const elsewhere = storeWith({ bucket: 'no-such-bucket' });
    await assert.rejects(elsewhere.get('blobs/binary.bin'), /^Error: Could not read s3:\/\/no-such-bucket\/blobs\/binary\.bin: NoSuchBucket \(HTTP 404\)/);
    await assert.rejects(elsewhere.put('blobs/x.json', '{}', 'application/json'), /NoSuchBucket/);
  });

  test('with a prefix every key is stored under it, and read back through it', async () => {
    const prefixed = storeWith({ prefix: 'firstcrack/' });
    await prefixed.put('curves/org_1/rb_1.json', '{"samples":[]}', 'application/json');
    assert.deepEqual(
      [...s3.objects.keys()].filter((key) => key.endsWith('rb_1.json')),
      ['firstcrack/curves/org_1/rb_1.json'],
    );
    assert.equal((await prefixed.get('curves/org_1/rb_1.json'))!.toString(), '{"samples":[]}');
    assert.equal(await store.get('curves/org_1/rb_1.json'), null, 'the unprefixed key does not exist');
    assert.equal((await store.get('firstcrack/curves/org_1/rb_1.json'))!.toString(), '{"samples":[]}');
  });
});

describe('the fake S3 server', () => {
  const client = new S3Client({ region: s3.region, endpoint: s3.endpoint, forcePathStyle: true, credentials });
  after(() => client.destroy());

  test('refuses an unsigned request with 403 AccessDenied', async () => {
    const res = await fetch(`${s3.endpoint}/${s3.bucket}/blobs/anonymous.json`, { method: 'PUT', body: '{}' });
    assert.equal(res.status, 403);
    assert.match(await res.text(), /<Code>AccessDenied<\/Code>/);
    assert.equal(s3.objects.has('blobs/anonymous.json'), false);
  });

  test('refuses a body changed after signing with 400 XAmzContentSHA256Mismatch', async () => {
    const tampering = new S3Client({ region: s3.region, endpoint: s3.endpoint, forcePathStyle: true, credentials });
    after(() => tampering.destroy());
    tampering.middlewareStack.addRelativeTo(
      (next: any) => async (args: any) => {
        args.request.body = Buffer.from('{"v":"forged"}');
        return next(args);
      },
      { relation: 'after', toMiddleware: 'httpSigningMiddleware', name: 'tamperAfterSigning' },
    );
    await assert.rejects(tampering.send(new PutObjectCommand({ Bucket: s3.bucket, Key: 'blobs/tampered.json', Body: Buffer.from('{"v":"signed"}') })), {
      name: 'XAmzContentSHA256Mismatch',
    });
    assert.equal(s3.objects.has('blobs/tampered.json'), false);
  });

  test('answers HeadObject with the stored metadata and forgets an object on DeleteObject', async () => {
    await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: 'blobs/head.json', Body: Buffer.from('{"a":1}'), ContentType: 'application/json' }));
    const head = await client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: 'blobs/head.json' }));
    assert.equal(head.ContentType, 'application/json');
    assert.equal(head.ContentLength, 7);
    await client.send(new DeleteObjectCommand({ Bucket: s3.bucket, Key: 'blobs/head.json' }));
    assert.equal(s3.objects.has('blobs/head.json'), false);
    await assert.rejects(client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: 'blobs/head.json' })), (error: any) => error.$metadata?.httpStatusCode === 404);
  });
});
