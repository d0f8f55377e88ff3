import { Redis } from 'ioredis';
import { defineModule } from '../../rpc/module.js';
import { cafeOperations } from './operations.js';
import * as events from './events.js';
import { shotIngestSurface, shotWriter } from './ingest.js';
import { examples } from './examples.js';
import { MemoryLiveWindowStore, RedisLiveWindowStore } from '../../streaming/live-window.js';
import { redisRetryStrategy } from '../../lib/redis-retry.js';
import { LIVE_BAR, type LiveBarStore, type LiveShot } from './live-bar.js';

declare module '../../rpc/define.js' {
  interface ModuleServices {
    /** Cafe sites' live bar sessions (the shots of the last hour): memory embedded, Redis in server mode. */
    liveBar: LiveBarStore;
  }
}

export default defineModule({
  name: 'cafe',
  operations: cafeOperations,
  events: Object.values(events),
  tables: [
    'cafe_sites',
    'cafe_machines',
    'cafe_shots',
    'cafe_shot_rollups',
    'cafe_pos_sales',
    'cafe_sale_rollups',
    'cafe_reconciliations',
    'cafe_shot_day_rollups',
    'cafe_shot_hour_of_day_rollups',
    'cafe_sale_day_rollups',
    'cafe_sale_hour_of_day_rollups',
  ],
  services: (config) => ({
    liveBar: config.redisUrl
      ? // No auto-pipelining: the shot channel already sends one write per site for all the posts it stores together.
        new RedisLiveWindowStore<LiveShot>(new Redis(config.redisUrl, { maxRetriesPerRequest: 2, retryStrategy: redisRetryStrategy }), { ...LIVE_BAR, ownsClient: true })
      : new MemoryLiveWindowStore<LiveShot>(LIVE_BAR),
  }),
  surfaces: [shotIngestSurface],
  examples,
  start: (ctx) => ({ deps: { shotWriter: shotWriter({ db: ctx.db, liveBar: ctx.services.liveBar }) } }),
});
