import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { Config } from './config.js';
import type { Services } from './rpc/define.js';
import type { JobSender } from './jobs/queue.js';
import { FsBlobStore, blobDir } from './blobs/fs.js';
import { S3BlobStore } from './blobs/s3.js';
import type { BlobStore } from './blobs/store.js';
import { DiskLiveSessionStore } from './streaming/live-disk.js';
import { RedisLiveSessionStore } from './streaming/live-redis.js';
import { MemoryLiveBarStore, RedisLiveBarStore } from './modules/cafe/live.js';

/** Builds the infrastructure behind the handlers: embedded implementations, or server ones when configured. */
export function createServices(config: Config, jobs: JobSender): Services {
  return {
    jobs,
    config,
    liveSessions: config.redisUrl
      ? // Its own connections (commands and a subscriber), closed with the store.
        new RedisLiveSessionStore(new Redis(config.redisUrl, { maxRetriesPerRequest: 2, enableAutoPipelining: true }), { ownsClient: true })
      : new DiskLiveSessionStore(join(config.dataDir, 'live')),
    liveBar: config.redisUrl
      ? // No auto-pipelining: the shot channel already sends one write per site for all the posts it stores together.
        new RedisLiveBarStore(new Redis(config.redisUrl, { maxRetriesPerRequest: 2 }), { ownsClient: true })
      : new MemoryLiveBarStore(),
    blobs: createBlobStore(config),
  };
}

/** S3-compatible storage when S3_BUCKET is set, the data directory's blob folder otherwise. */
export function createBlobStore(config: Config): BlobStore {
  return config.s3 ? S3BlobStore.fromConfig(config.s3) : new FsBlobStore(blobDir(config.dataDir));
}
