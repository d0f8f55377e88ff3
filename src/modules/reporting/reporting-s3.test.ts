import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startTestServer } from '../../testing/harness.js';
import { startFakeS3 } from '../../testing/fake-s3.js';
import { generated } from './testing.js';

// With S3_BUCKET set, reports are stored in the bucket and their download links are S3 presigned URLs.
const credentials = { accessKeyId: 'AKIAREPORTS', secretAccessKey: randomBytes(30).toString('base64') };
const s3 = await startFakeS3({ bucket: 'firstcrack-reports', ...credentials });
after(() => s3.close());
const server = await startTestServer({
  config: { s3: { bucket: s3.bucket, endpoint: s3.endpoint, region: s3.region, credentials, forcePathStyle: true, prefix: 'team/' } },
});
const org = await server.createOrg('enterprise', 'S3 roastery');

test('a report lands in the bucket and its links are presigned for the asked lifetime', async () => {
  const report = await generated(org, { kind: 'inventory_valuation' });
  assert.equal(report.status, 'ready', JSON.stringify(report));
  const links = await org.call('reporting.getDownloadUrl', { id: report.id, expiresInSeconds: 600 });
  assert.equal(links.status, 200, JSON.stringify(links.body));
  assert.equal(links.body.signedBy, 's3');
  for (const [url, extension] of [[links.body.pdfUrl, 'pdf'], [links.body.csvUrl, 'csv']]) {
    const parsed = new URL(url);
    assert.equal(parsed.origin, new URL(s3.endpoint).origin);
    assert.equal(parsed.pathname, `/${s3.bucket}/team/reports/${org.id}/${report.id}.${extension}`);
    assert.equal(parsed.searchParams.get('X-Amz-Expires'), '600');
    assert.match(parsed.searchParams.get('X-Amz-Signature') ?? '', /^[0-9a-f]{64}$/);
    assert.match(parsed.searchParams.get('response-content-disposition') ?? '', new RegExp(`attachment; filename=".*${report.id}\\.${extension}"`));
  }
  const stored = await server.app.services.blobs.get(`reports/${org.id}/${report.id}.pdf`);
  assert.equal(stored?.subarray(0, 5).toString(), '%PDF-');
});
