import type { Queryable } from '../../../db/client.js';
import type { CallResult, TestOrg } from '../../../testing/harness.js';
import { assertRefusedWithout } from '../../../testing/problems.js';
import { greenState } from '../../inventory/green/testing.js';

/** Test fixtures for cupping, shared by its tests, tenancy cases and the benchmark. */

let counter = 0;
export const uniqueNumber = (prefix = 'CS') => `${prefix}-${Date.now().toString(36)}-${++counter}`;

/**
 * A form with every quarter-point attribute at `base` (7.5 unless told) and every cup passing uniformity, clean
 * cup and sweetness (10 each), overridden by `scores`: total = 7 × base + 30.
 */
export function form(base = 7.5, scores: Record<string, number> = {}): Record<string, number> {
  return {
    fragranceAroma: base,
    flavor: base,
    aftertaste: base,
    acidity: base,
    body: base,
    balance: base,
    uniformity: 10,
    cleanCup: 10,
    sweetness: 10,
    overall: base,
    ...scores,
  };
}

export async function createSession(org: TestOrg, input: Record<string, unknown>): Promise<any> {
  const res = await org.call('quality.cupping.createCuppingSession', { sessionNumber: uniqueNumber(), name: 'Arrivals', ...input });
  if (res.status !== 200) throw new Error(`createCuppingSession: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export async function score(org: TestOrg, input: Record<string, unknown>): Promise<any> {
  const res = await org.call('quality.cupping.submitCuppingScore', { scores: form(), ...input });
  if (res.status !== 200) throw new Error(`submitCuppingScore: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Everything cupping (and grading, and the green lots a grading quarantines) stores for an organization, as one value. */
export async function qualityState(owner: Queryable, orgId: string): Promise<unknown> {
  const [row] = await owner.query<{ state: unknown }>(
    `select jsonb_build_object(
       'sessions', (select coalesce(jsonb_agg(to_jsonb(s) order by s.id), '[]') from cupping_sessions s where s.org_id = $1),
       'samples', (select coalesce(jsonb_agg(to_jsonb(x) order by x.id), '[]') from cupping_session_samples x where x.org_id = $1),
       'scores', (select coalesce(jsonb_agg(to_jsonb(c) order by c.id), '[]') from cupping_scores c where c.org_id = $1),
       'gradings', (select coalesce(jsonb_agg(to_jsonb(g) order by g.id), '[]') from gradings g where g.org_id = $1),
       'lots', (select coalesce(jsonb_agg(jsonb_build_array(id, quarantined, quarantine_reason, quarantined_at, quarantine_released_at, quarantine_release_reason) order by id), '[]') from green_lots where org_id = $1)
     ) as state`,
    [orgId],
  );
  return { quality: row.state, green: await greenState(owner, orgId) };
}

export const assertRefusedUnchanged = (owner: Queryable, org: TestOrg, call: () => Promise<CallResult>, status: number, code: string, path?: string) =>
  assertRefusedWithout(() => qualityState(owner, org.id), call, status, code, path);
