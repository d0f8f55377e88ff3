import { join } from 'node:path';
import { Redis } from 'ioredis';
import { defineModule } from '../../../rpc/module.js';
import { DiskLiveSessionStore } from '../../../streaming/live-disk.js';
import { RedisLiveSessionStore } from '../../../streaming/live-redis.js';
import { redisRetryStrategy } from '../../../lib/redis-retry.js';
import type { LiveSessionStore } from '../../../streaming/live.js';
import type { StreamCaps } from '../../../streaming/fan-out.js';
import { roastOperations } from './operations.js';
import * as events from './events.js';
import { curveFiles } from './curve-files.js';
import type { CurveSample, RoastEvent } from './telemetry/curve.js';
import { telemetryChannel } from './telemetry/http.js';
import { telemetrySurfaces } from './telemetry/surfaces.js';
import { examples } from '../examples.js';

/** A batch's live roast session: what the machine bridge posts while the batch is in the drum (src/streaming/live.ts). */
export type RoastLiveSessions = LiveSessionStore<CurveSample, RoastEvent>;

declare module '../../../rpc/define.js' {
  interface ModuleServices {
    /** Live roast sessions: on local disk embedded, in Redis in server mode (shared by every API process). */
    liveSessions: RoastLiveSessions;
  }
}

export default defineModule({
  name: 'production/roast',
  operations: roastOperations,
  events: Object.values(events),
  tables: ['roast_batches', 'roast_curves'],
  files: [curveFiles],
  services: (config) => ({
    liveSessions: config.redisUrl
      ? // Its own connections (commands and a subscriber), closed with the store.
        new RedisLiveSessionStore<CurveSample, RoastEvent>(new Redis(config.redisUrl, { maxRetriesPerRequest: 2, enableAutoPipelining: true, retryStrategy: redisRetryStrategy }), { ownsClient: true })
      : new DiskLiveSessionStore<CurveSample, RoastEvent>(join(config.dataDir, 'live')),
  }),
  // A purged organization's batches are gone; the live sessions of those that were in the drum go with them.
  purgeOrganization: (orgId, services) => services.liveSessions.discardOrganization(orgId),
  surfaces: telemetrySurfaces,
  examples,
  start: (ctx) => {
    const telemetry = telemetryChannel({
      db: ctx.db,
      resolvers: ctx.resolvers,
      liveSessions: ctx.services.liveSessions,
      heartbeatMs: ctx.settings.streamHeartbeatMs as number | undefined,
      streamCaps: ctx.settings.streamCaps as StreamCaps | undefined,
    });
    // Open streams would hold the server open forever; ending them lets watchers reconnect to another process.
    return { deps: { telemetry }, close: () => telemetry.close() };
  },
});
