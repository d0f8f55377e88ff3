import { join } from 'node:path';
import type { Config } from './config.js';
import type { Services } from './rpc/define.js';
import { FsBlobStore, blobDir } from './blobs/fs.js';
import { DiskLiveSessionStore } from './telemetry/live-disk.js';

/** Builds the infrastructure behind the handlers: embedded implementations, or server ones when configured. */
export function createServices(config: Config): Services {
  return {
    liveSessions: new DiskLiveSessionStore(join(config.dataDir, 'live')),
    blobs: new FsBlobStore(blobDir(config.dataDir)),
  };
}
