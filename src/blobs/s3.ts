import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { S3Config } from '../config.js';
import type { BlobStore } from './store.js';

/**
 * Objects in an S3-compatible bucket (AWS S3, MinIO, Cloudflare R2, …), each key under the configured prefix.
 * A put resolves only after the service answered 200 to PutObject, which S3 sends once the object is stored.
 */
export class S3BlobStore implements BlobStore {
  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    /** Empty, or ends with '/'. */
    private readonly prefix = '',
  ) {}

  /** A client for the configuration; without explicit keys the SDK's default credential chain applies (environment, profile, instance role). */
  static fromConfig(config: S3Config): S3BlobStore {
    const client = new S3Client({
      region: config.region,
      endpoint: config.endpoint,
      forcePathStyle: config.forcePathStyle,
      credentials: config.credentials,
      // The put runs inside the completing transaction: an unreachable store must fail it, not hold it open.
      requestHandler: { connectionTimeout: 5_000, requestTimeout: 60_000, throwOnRequestTimeout: true },
    });
    return new S3BlobStore(client, config.bucket, config.prefix);
  }

  private location(key: string): string {
    return `s3://${this.bucket}/${this.prefix}${key}`;
  }

  async put(key: string, body: Buffer | string, contentType: string): Promise<void> {
    try {
      await this.client.send(
        new PutObjectCommand({ Bucket: this.bucket, Key: this.prefix + key, Body: typeof body === 'string' ? Buffer.from(body) : body, ContentType: contentType }),
      );
    } catch (error) {
      throw storageError(`Could not store ${this.location(key)}`, error);
    }
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      const object = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.prefix + key }));
      const bytes = await object.Body!.transformToByteArray();
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    } catch (error) {
      if (isMissingKey(error)) return null;
      throw storageError(`Could not read ${this.location(key)}`, error);
    }
  }

  async presignedGetUrl(key: string, options: { expiresInSeconds: number; filename: string; contentType: string }): Promise<string> {
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: this.prefix + key,
      ResponseContentType: options.contentType,
      ResponseContentDisposition: `attachment; filename="${options.filename.replace(/[^A-Za-z0-9._-]/g, '_')}"`,
    });
    return getSignedUrl(this.client, command, { expiresIn: options.expiresInSeconds });
  }

  async deleteOrganizationObjects(orgId: string): Promise<number> {
    let deleted = 0;
    try {
      // The kinds are the first folders under the prefix; then every key under <kind>/<orgId>/, one DeleteObject each
      // (DeleteObjects would batch them, but not every S3-compatible store implements it).
      for (const kind of await this.list(this.prefix, '/').then((page) => page.prefixes)) {
        let token: string | undefined;
        do {
          const page = await this.list(`${kind}${orgId}/`, undefined, token);
          for (const key of page.keys) {
            await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
            deleted++;
          }
          token = page.next;
        } while (token);
      }
    } catch (error) {
      throw storageError(`Could not delete the objects of ${orgId} under ${this.location('')}`, error);
    }
    return deleted;
  }

  async listOrganizationObjects(orgId: string): Promise<string[]> {
    const keys: string[] = [];
    try {
      for (const kind of await this.list(this.prefix, '/').then((page) => page.prefixes)) {
        let token: string | undefined;
        do {
          const page = await this.list(`${kind}${orgId}/`, undefined, token);
          keys.push(...page.keys.map((key) => key.slice(this.prefix.length)));
          token = page.next;
        } while (token);
      }
    } catch (error) {
      throw storageError(`Could not list the objects of ${orgId} under ${this.location('')}`, error);
    }
    return keys.sort();
  }

  /** One page of the keys under `prefix` (full keys), or with a delimiter the folders under it (each ending with it). */
  private async list(prefix: string, delimiter?: string, token?: string): Promise<{ keys: string[]; prefixes: string[]; next?: string }> {
    const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, Delimiter: delimiter, ContinuationToken: token }));
    return {
      keys: (page.Contents ?? []).map((o) => o.Key!).filter(Boolean),
      prefixes: (page.CommonPrefixes ?? []).map((p) => p.Prefix!).filter(Boolean),
      next: page.IsTruncated ? page.NextContinuationToken : undefined,
    };
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}

interface SdkError {
  name?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
}

/** NoSuchKey, or a bare 404 from a store that sends no error body; a missing bucket is a configuration error, never "no object". */
function isMissingKey(error: unknown): boolean {
  const e = error as SdkError;
  return e?.name === 'NoSuchKey' || (e?.$metadata?.httpStatusCode === 404 && e.name !== 'NoSuchBucket');
}

/** Names the object and the service's error code (SignatureDoesNotMatch, AccessDenied, NoSuchBucket, …); the SDK error stays the cause. */
function storageError(what: string, error: unknown): Error {
  const e = error as SdkError;
  const status = e?.$metadata?.httpStatusCode;
  return new Error(`${what}: ${e?.name ?? 'Error'}${status ? ` (HTTP ${status})` : ''}: ${e?.message ?? String(error)}`, { cause: error });
}
