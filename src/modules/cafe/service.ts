import type { Queryable } from '../../db/client.js';
import { performanceOf } from './performance.js';
import * as repo from './repository.js';

/** What other modules may ask of cafes: sites, and a site's performance as getSitePerformance answers it (reports). */
export type { Site } from './repository.js';
export { findSite, allSites } from './repository.js';

export type SitePerformance = ReturnType<typeof performanceOf>;

/** A site's shots, sale shot-equivalents and variance over its local days from..to, read from the hourly rollups. */
export async function sitePerformance(q: Queryable, orgId: string, site: repo.Site, from: string, to: string): Promise<SitePerformance> {
  const { start, end } = await repo.localRange(q, site.timezone, from, to);
  const shots = await repo.shotRollupFigures(q, orgId, site.id, from, start, end);
  const sales = await repo.saleRollupFigures(q, orgId, site.id, from, start, end);
  return performanceOf(site, from, to, shots, sales);
}
