import type { Config } from './config.js';
import type { Services } from './rpc/define.js';
import type { JobSender } from './jobs/define.js';
import type { Registry } from './rpc/registry.js';
import { FsBlobStore, blobDir } from './blobs/fs.js';
import { S3BlobStore } from './blobs/s3.js';
import type { BlobStore } from './blobs/store.js';

/**
 * Builds the infrastructure behind the handlers: the platform's (blobs, jobs) and every module's (its
 * manifest's `services`, such as live stores), embedded implementations or server ones when configured.
 * `close` closes what the modules built.
 */
export function createServices(config: Config, jobs: JobSender, registry: Registry): { services: Services; close(): Promise<void> } {
  const built = registry.modules.map((m) => m.services?.(config) ?? {});
  const services = Object.assign({ jobs, config, blobs: createBlobStore(config), eventCatalog: registry.eventCatalog }, ...built) as Services;
  services.purgeOrganizationState = async (orgId) => {
    let removed = 0;
    for (const m of registry.modules) if (m.purgeOrganization) removed += await m.purgeOrganization(orgId, services);
    return removed;
  };
  return {
    services,
    async close() {
      for (const instances of built) for (const instance of Object.values(instances)) await instance?.close();
      await services.blobs.close();
    },
  };
}

/** S3-compatible storage when S3_BUCKET is set, the data directory's blob folder otherwise. */
export function createBlobStore(config: Config): BlobStore {
  return config.s3 ? S3BlobStore.fromConfig(config.s3) : new FsBlobStore(blobDir(config.dataDir));
}
