import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';
import type { AddressInfo } from 'node:net';

/**
 * A small S3-compatible server on 127.0.0.1 for tests: one bucket held in memory, path-style
 * PutObject / GetObject / HeadObject / DeleteObject, and the checks S3 makes before it accepts a request.
 * Every request must carry an AWS Signature Version 4 Authorization header, which is recomputed with the
 * known secret (a wrong secret is 403 SignatureDoesNotMatch, an unknown key 403 InvalidAccessKeyId); a
 * signed payload hash must match the body (400 XAmzContentSHA256Mismatch), and Content-MD5 and
 * x-amz-checksum-crc32 must match it too (400 BadDigest).
 */

export interface FakeS3Options {
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  region?: string;
}

export interface StoredObject {
  body: Buffer;
  contentType: string;
  etag: string;
  lastModified: Date;
  /** Base64 CRC32 the client sent with the object, returned on reads that ask for checksums. */
  crc32?: string;
}

export interface FakeS3 {
  /** For S3_ENDPOINT; requests must be path-style (S3_FORCE_PATH_STYLE=true). */
  endpoint: string;
  bucket: string;
  region: string;
  /** The bucket's content by key. */
  objects: Map<string, StoredObject>;
  /** Every answer given, in order: method, key, status and the S3 error code of a refusal. */
  log: { method: string; key: string; status: number; code?: string }[];
  /** Replaces the secret the server accepts (as a key rotation would): requests signed with the old one are refused. */
  rotateSecret(secretAccessKey: string): void;
  close(): Promise<void>;
}

class S3Refusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const MAX_CLOCK_SKEW_MS = 15 * 60 * 1000;
const AUTHORIZATION = /^AWS4-HMAC-SHA256 Credential=([^/,]+)\/(\d{8})\/([^/,]+)\/([^/,]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;
const AMZ_DATE = /^(\d{8})T(\d{2})(\d{2})(\d{2})Z$/;

export async function startFakeS3(options: FakeS3Options): Promise<FakeS3> {
  const region = options.region ?? 'us-east-1';
  let secretAccessKey = options.secretAccessKey;
  const objects = new Map<string, StoredObject>();
  const log: FakeS3['log'] = [];

  async function handle(req: IncomingMessage, res: ServerResponse, key: string): Promise<void> {
    const body = await readBody(req);
    const payloadHash = verifySignature(req, options.accessKeyId, secretAccessKey, region);
    if (/^[0-9a-f]{64}$/.test(payloadHash) && sha256Hex(body) !== payloadHash) {
      throw new S3Refusal(400, 'XAmzContentSHA256Mismatch', 'The provided x-amz-content-sha256 header does not match what was computed.');
    }
    if (payloadHash !== 'UNSIGNED-PAYLOAD' && !/^[0-9a-f]{64}$/.test(payloadHash)) {
      throw new S3Refusal(501, 'NotImplemented', `This test server does not accept x-amz-content-sha256: ${payloadHash}.`);
    }
    if (pathStyle(req.url!).bucket !== options.bucket) throw new S3Refusal(404, 'NoSuchBucket', 'The specified bucket does not exist.');
    if (!key && req.method === 'GET' && new URLSearchParams(req.url!.split('?', 2)[1] ?? '').get('list-type') === '2') {
      listObjectsV2(res, new URLSearchParams(req.url!.split('?', 2)[1]));
      return;
    }
    if (!key) throw new S3Refusal(501, 'NotImplemented', 'Bucket-level operations other than ListObjectsV2 are not implemented by this test server.');

    switch (req.method) {
      case 'PUT': {
        verifyDigests(req, body);
        const object: StoredObject = {
          body,
          contentType: header(req, 'content-type') ?? 'binary/octet-stream',
          etag: `"${createHash('md5').update(body).digest('hex')}"`,
          lastModified: new Date(),
          crc32: header(req, 'x-amz-checksum-crc32'),
        };
        objects.set(key, object);
        res.writeHead(200, { etag: object.etag, ...(object.crc32 ? { 'x-amz-checksum-crc32': object.crc32 } : {}) }).end();
        return;
      }
      case 'GET':
      case 'HEAD': {
        const object = objects.get(key);
        if (!object) throw new S3Refusal(404, 'NoSuchKey', 'The specified key does not exist.');
        const checksum = header(req, 'x-amz-checksum-mode') === 'ENABLED' && object.crc32 ? { 'x-amz-checksum-crc32': object.crc32, 'x-amz-checksum-type': 'FULL_OBJECT' } : {};
        res.writeHead(200, {
          'content-type': object.contentType,
          'content-length': object.body.length,
          etag: object.etag,
          'last-modified': object.lastModified.toUTCString(),
          ...checksum,
        });
        res.end(req.method === 'GET' ? object.body : undefined);
        return;
      }
      case 'DELETE':
        objects.delete(key);
        res.writeHead(204).end();
        return;
      default:
        throw new S3Refusal(405, 'MethodNotAllowed', `The specified method is not allowed against this resource: ${req.method}.`);
    }
  }

  /** ListObjectsV2: every key under `prefix` in one page (no paging), or with `delimiter` the folders under it. */
  function listObjectsV2(res: ServerResponse, query: URLSearchParams): void {
    const prefix = query.get('prefix') ?? '';
    const delimiter = query.get('delimiter');
    const contents: string[] = [];
    const folders = new Set<string>();
    for (const [key, object] of [...objects].sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (!key.startsWith(prefix)) continue;
      const cut = delimiter ? key.indexOf(delimiter, prefix.length) : -1;
      if (cut >= 0) folders.add(key.slice(0, cut + delimiter!.length));
      else contents.push(`<Contents><Key>${escapeXml(key)}</Key><LastModified>${object.lastModified.toISOString()}</LastModified><ETag>${escapeXml(object.etag)}</ETag><Size>${object.body.length}</Size><StorageClass>STANDARD</StorageClass></Contents>`);
    }
    const xml =
      `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>${escapeXml(options.bucket)}</Name>` +
      `<Prefix>${escapeXml(prefix)}</Prefix><KeyCount>${contents.length + folders.size}</KeyCount><MaxKeys>1000</MaxKeys>` +
      (delimiter ? `<Delimiter>${escapeXml(delimiter)}</Delimiter>` : '') +
      `<IsTruncated>false</IsTruncated>${contents.join('')}${[...folders].map((f) => `<CommonPrefixes><Prefix>${escapeXml(f)}</Prefix></CommonPrefixes>`).join('')}</ListBucketResult>`;
    res.writeHead(200, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(xml) }).end(xml);
  }

  const server = createServer((req, res) => {
    const { key } = pathStyle(req.url!);
    handle(req, res, key)
      .then(() => log.push({ method: req.method!, key, status: res.statusCode }))
      .catch((error: unknown) => {
        const refusal = error instanceof S3Refusal ? error : new S3Refusal(500, 'InternalError', String(error));
        log.push({ method: req.method!, key, status: refusal.status, code: refusal.code });
        const xml = errorXml(refusal, key);
        // Like S3, a HEAD answer carries the status alone.
        res.writeHead(refusal.status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(xml) });
        res.end(req.method === 'HEAD' ? undefined : xml);
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket: options.bucket,
    region,
    objects,
    log,
    rotateSecret: (secret) => void (secretAccessKey = secret),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/**
 * Recomputes the request's SigV4 signature (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html)
 * and refuses it as S3 would when it differs; answers the payload hash the signature covers.
 */
function verifySignature(req: IncomingMessage, accessKeyId: string, secretAccessKey: string, region: string): string {
  const authorization = header(req, 'authorization');
  if (!authorization) throw new S3Refusal(403, 'AccessDenied', 'Anonymous access is not allowed.');
  const match = AUTHORIZATION.exec(authorization);
  if (!match) throw new S3Refusal(400, 'AuthorizationHeaderMalformed', 'The authorization header is malformed.');
  const [, keyId, scopeDate, scopeRegion, service, signedHeaderList, signature] = match;
  if (keyId !== accessKeyId) throw new S3Refusal(403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.');
  if (scopeRegion !== region || service !== 's3') {
    throw new S3Refusal(400, 'AuthorizationHeaderMalformed', `The authorization header is malformed; the region '${scopeRegion}' is wrong; expecting '${region}'.`);
  }

  const amzDate = header(req, 'x-amz-date') ?? '';
  const date = AMZ_DATE.exec(amzDate);
  if (!date || date[1] !== scopeDate) throw new S3Refusal(403, 'AccessDenied', 'x-amz-date is missing or disagrees with the credential scope date.');
  const signedAt = Date.parse(`${date[1].slice(0, 4)}-${date[1].slice(4, 6)}-${date[1].slice(6, 8)}T${date[2]}:${date[3]}:${date[4]}Z`);
  if (Math.abs(Date.now() - signedAt) > MAX_CLOCK_SKEW_MS) {
    throw new S3Refusal(403, 'RequestTimeTooSkewed', 'The difference between the request time and the current time is too large.');
  }

  const signedHeaders = signedHeaderList.split(';');
  const unsigned = Object.keys(req.headers).filter((name) => name.startsWith('x-amz-') && !signedHeaders.includes(name));
  if (!signedHeaders.includes('host') || unsigned.length > 0) {
    throw new S3Refusal(403, 'AccessDenied', `There were headers present in the request which were not signed: ${['host', ...unsigned].join(', ')}.`);
  }
  const payloadHash = header(req, 'x-amz-content-sha256');
  if (!payloadHash) throw new S3Refusal(400, 'InvalidRequest', 'Missing required header for this request: x-amz-content-sha256.');

  const [path, query = ''] = req.url!.split('?', 2);
  const canonicalRequest = [
    req.method,
    path,
    canonicalQuery(query),
    ...signedHeaders.map((name) => `${name}:${(header(req, name) ?? '').trim().replace(/\s+/g, ' ')}`),
    '',
    signedHeaderList,
    payloadHash,
  ].join('\n');
  const scope = `${scopeDate}/${scopeRegion}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
  let signingKey = hmac(`AWS4${secretAccessKey}`, scopeDate);
  for (const part of [scopeRegion, service, 'aws4_request']) signingKey = hmac(signingKey, part);
  const expected = hmac(signingKey, stringToSign);
  if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) {
    throw new S3Refusal(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided. Check your key and signing method.');
  }
  return payloadHash;
}

function verifyDigests(req: IncomingMessage, body: Buffer): void {
  const md5 = header(req, 'content-md5');
  if (md5 !== undefined && md5 !== createHash('md5').update(body).digest('base64')) {
    throw new S3Refusal(400, 'BadDigest', 'The Content-MD5 you specified did not match what we received.');
  }
  const sent = header(req, 'x-amz-checksum-crc32');
  if (sent !== undefined) {
    const computed = Buffer.alloc(4);
    computed.writeUInt32BE(crc32(body));
    if (sent !== computed.toString('base64')) throw new S3Refusal(400, 'BadDigest', 'The CRC32 you specified did not match the calculated checksum.');
  }
  const other = Object.keys(req.headers).find((name) => name.startsWith('x-amz-checksum-') && name !== 'x-amz-checksum-crc32');
  if (other) throw new S3Refusal(501, 'NotImplemented', `This test server cannot verify ${other}.`);
}

/** The query's parameters sorted by name, each name and value URI-encoded the way SigV4 prescribes. */
function canonicalQuery(query: string): string {
  return query
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const equals = pair.indexOf('=');
      const [name, value] = equals === -1 ? [pair, ''] : [pair.slice(0, equals), pair.slice(equals + 1)];
      return [canonicalPart(name), canonicalPart(value)] as const;
    })
    .sort(([a, av], [b, bv]) => compare(a, b) || compare(av, bv))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
}

/** Decoded, then encoded as RFC 3986 unreserved characters only. */
const canonicalPart = (part: string) =>
  encodeURIComponent(decodeURIComponent(part)).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Bucket and key of a path-style URL (/bucket/key…), decoded. */
function pathStyle(url: string): { bucket: string; key: string } {
  const path = new URL(url, 'http://s3').pathname;
  const slash = path.indexOf('/', 1);
  if (slash === -1) return { bucket: decodeURIComponent(path.slice(1)), key: '' };
  return { bucket: decodeURIComponent(path.slice(1, slash)), key: decodeURIComponent(path.slice(slash + 1)) };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const sha256Hex = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();

const escapeXml = (text: string) => text.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

function errorXml(refusal: S3Refusal, key: string): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<Error><Code>${refusal.code}</Code><Message>${escapeXml(refusal.message)}</Message>` +
    `<Key>${escapeXml(key)}</Key><RequestId>${randomBytes(8).toString('hex').toUpperCase()}</RequestId></Error>`
  );
}
