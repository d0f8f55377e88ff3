import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startTestServer } from '../../../testing/harness.js';
import { startFakeS3 } from '../../../testing/fake-s3.js';
import { S3BlobStore } from '../../../blobs/s3.js';
import { makeLocation } from '../../catalog/location/tenancy.cases.js';
import { importLot } from '../../inventory/green/testing.js';
import { bridgeToken, makeRoaster, postCurve, refusedUnchanged, startBatch, syntheticRoast } from './testing.js';

// The service configured for S3-compatible storage (as S3_BUCKET, S3_ENDPOINT, S3_FORCE_PATH_STYLE, S3_PREFIX
// and the key pair would), against a local server that checks every request's signature.
const credentials = { accessKeyId: 'AKIAROASTERY', secretAccessKey: randomBytes(30).toString('base64') };
const s3 = await startFakeS3({ bucket: 'firstcrack-blobs', ...credentials });
after(() => s3.close());
const prefix = 'roastery-a/';
const server = await startTestServer({
  config: { s3: { bucket: s3.bucket, endpoint: s3.endpoint, region: s3.region, credentials, forcePathStyle: true, prefix } },
});
const org = await server.createOrg('enterprise', 'S3 roastery');

async function liveBatchWithCurve(curve = syntheticRoast({ hz: 10, channels: 2 })) {
  const locationId = await makeLocation(org);
  const machine = await makeRoaster(org, { locationId });
  const token = await bridgeToken(org, machine.id);
  const lot = await importLot(org, { weightKg: '40', locationId });
  const batch = await startBatch(org, { machineId: machine.id, greenLotId: lot.id, chargeWeightKg: '12' });
  await postCurve(server, token, batch.id, curve);
  return { batch, curve };
}

describe('completeRoastBatch with S3-compatible object storage', () => {
  test('the full-fidelity curve lands in the bucket under the key the batch reports, behind the prefix', async () => {
    assert.ok(server.app.services.blobs instanceof S3BlobStore, 'the server stores blobs in S3');
    const { batch, curve } = await liveBatchWithCurve();
    const res = await org.call('production.roast.completeRoastBatch', { id: batch.id, dropWeightKg: '10.2' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const key = res.body.curve.fullCurveKey;
    assert.equal(key, `curves/${org.id}/${batch.id}.json`);
    assert.equal(res.body.curve.fullSampleCount, curve.samples.length);

    const object = s3.objects.get(prefix + key);
    assert.ok(object, `no object at ${prefix + key}; the bucket holds ${[...s3.objects.keys()].join(', ')}`);
    assert.equal(object.contentType, 'application/json');
    const stored = JSON.parse(object.body.toString('utf8'));
    assert.equal(stored.batchId, batch.id);
    assert.equal(stored.samples.length, 6351);
    assert.deepEqual(stored.samples, curve.samples);
    assert.deepEqual(stored.events, curve.events);
    assert.ok((await server.app.services.blobs.get(key))!.equals(object.body), 'the store reads back what the bucket holds');

    const persisted = await org.call('production.roast.getRoastCurve', { id: batch.id }, { method: 'GET' });
    assert.equal(persisted.body.fullCurveKey, key);
  });

  test('when the bucket refuses the write, completion fails and changes nothing; the retry completes', async () => {
    const { batch, curve } = await liveBatchWithCurve(syntheticRoast({ hz: 5 }));
    const key = `${prefix}curves/${org.id}/${batch.id}.json`;
    s3.rotateSecret(randomBytes(30).toString('base64'));
    try {
      await refusedUnchanged(server.owner, org, () => org.call('production.roast.completeRoastBatch', { id: batch.id, dropWeightKg: '10.2' }), 500, 'internal_error');
    } finally {
      s3.rotateSecret(credentials.secretAccessKey);
    }
    assert.deepEqual(s3.log.at(-1), { method: 'PUT', key, status: 403, code: 'SignatureDoesNotMatch' });
    assert.equal(s3.objects.has(key), false);
    const still = await org.call('production.roast.getRoastBatch', { id: batch.id }, { method: 'GET' });
    assert.equal(still.body.state, 'live');

    const retried = await org.call('production.roast.completeRoastBatch', { id: batch.id, dropWeightKg: '10.2' });
    assert.equal(retried.status, 200, JSON.stringify(retried.body));
    assert.deepEqual(JSON.parse(s3.objects.get(key)!.body.toString('utf8')).samples, curve.samples);
  });
});

describe('getRoastCurveLink with S3-compatible object storage', () => {
  test('links are presigned URLs of the bucket: the full curve where completion stored it, the exports rendered beside it', async () => {
    const { batch } = await liveBatchWithCurve(syntheticRoast({ hz: 2, channels: 1 }));
    assert.equal((await org.call('production.roast.completeRoastBatch', { id: batch.id, dropWeightKg: '10.2' })).status, 200);
    for (const [format, extension, contentType] of [
      ['full', 'json', 'application/json'],
      ['alog', 'alog', 'text/plain; charset=utf-8'],
      ['csv', 'csv', 'text/tab-separated-values; charset=utf-8'],
    ]) {
      const issued = await org.call('production.roast.getRoastCurveLink', { id: batch.id, format, expiresInSeconds: 600 });
      assert.equal(issued.status, 200, JSON.stringify(issued.body));
      assert.equal(issued.body.signedBy, 's3');
      const url = new URL(issued.body.url);
      assert.equal(url.origin, new URL(s3.endpoint).origin);
      assert.equal(url.pathname, `/${s3.bucket}/${prefix}curves/${org.id}/${batch.id}.${extension}`);
      assert.equal(url.searchParams.get('X-Amz-Expires'), '600');
      assert.equal(url.searchParams.get('response-content-type'), contentType);
      const object = s3.objects.get(`${prefix}curves/${org.id}/${batch.id}.${extension}`);
      assert.ok(object, `the ${format} file is in the bucket`);
      assert.equal(object.contentType, extension === 'json' ? 'application/json' : contentType);
    }
    const alog = s3.objects.get(`${prefix}curves/${org.id}/${batch.id}.alog`)!.body.toString('utf8');
    assert.ok(alog.startsWith("{'version': '3.2.0', 'mode': 'C', "), 'the bucket holds the Artisan profile');
  });
});
