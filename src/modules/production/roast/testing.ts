import assert from 'node:assert/strict';
import type { Queryable } from '../../../db/client.js';
import type { CallResult, TestOrg, TestServer } from '../../../testing/harness.js';
import type { Curve, CurveSample, RoastEvent } from './telemetry/curve.js';
import { postSamples } from './telemetry/testing.js';
import { assertProblem, assertRefusedWithout } from '../../../testing/problems.js';


/** Test fixtures for roasting, shared by the roasting tests, their tenancy cases and the roasted-stock tests. */

let counter = 0;
export const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++counter}`;

/** A drum roaster taking 5–15 kg batches unless told otherwise. */
export async function makeRoaster(org: TestOrg, input: Record<string, unknown> = {}): Promise<any> {
  const res = await org.call('catalog.machine.registerMachine', {
    name: 'Drum',
    code: unique('M'),
    machineType: 'drum',
    connectivity: 'bridge',
    capacityKg: '15',
    minBatchKg: '5',
    maxBatchKg: '15',
    ...input,
  });
  if (res.status !== 200) throw new Error(`registerMachine: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export async function bridgeToken(org: TestOrg, machineId: string): Promise<string> {
  const res = await org.call('catalog.machine.issueMachineBridgeToken', { machineId });
  if (res.status !== 200) throw new Error(`issueMachineBridgeToken: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.token;
}

export async function makeProfile(org: TestOrg, input: Record<string, unknown> = {}): Promise<any> {
  const res = await org.call('production.profile.createProfile', { name: 'House', code: unique('P'), ...input });
  if (res.status !== 200) throw new Error(`createProfile: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export async function startBatch(org: TestOrg, input: Record<string, unknown>): Promise<any> {
  const res = await org.call('production.roast.startRoastBatch', { batchNumber: unique('B'), chargeWeightKg: '10', ...input });
  if (res.status !== 200) throw new Error(`startRoastBatch: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/**
 * A roast with known landmarks, ten minutes unless `durationS` stretches it: charge at 0 (BT 200 °C), the
 * lowest BT 95 °C at 1/8 of the roast (75 s), dry end at 40 % (240 s), first crack from 80 % to 90 % (480–540
 * s), drop at the end (600 s) at 210 °C; so DTR 20 %. Samples run from 5 s before charge to 30 s after drop at
 * `hz` per second, each with `channels` extra readings.
 */
export function syntheticRoast(options: { hz?: number; channels?: number; durationS?: number } = {}): Curve {
  const hz = options.hz ?? 1;
  const durationS = options.durationS ?? 600;
  const scale = durationS / 600;
  const step = 1000 / hz;
  const samples: CurveSample[] = [];
  for (let i = 0; -5000 + i * step <= (durationS + 30) * 1000; i++) {
    const t = Math.round(-5000 + i * step);
    const s = t / 1000 / scale;
    const bt = s <= 0 ? 200 : s <= 75 ? 200 - 105 * (s / 75) : s <= 600 ? 95 + 115 * ((s - 75) / 525) ** 0.8 : 210 - (s - 600) * 0.5;
    const channels: Record<string, number> = {};
    for (let c = 0; c < (options.channels ?? 0); c++) channels[`ch${c}`] = Math.round((bt + c) * 10) / 10;
    samples.push({ t, bt: Math.round(bt * 10) / 10, et: Math.round((bt + 40) * 10) / 10, ...(options.channels ? { channels } : {}) });
  }
  const at = (s: number) => Math.round(s * scale * 1000);
  const events: RoastEvent[] = [
    { type: 'charge', t: 0 },
    { type: 'dry_end', t: at(240) },
    { type: 'first_crack_start', t: at(480) },
    { type: 'first_crack_end', t: at(540) },
    { type: 'drop', t: at(600) },
  ];
  return { samples, events };
}

/** Posts the curve through the ingest route as a bridge would: at most 2,000 samples a post, events with the last one. */
export async function postCurve(server: TestServer, token: string, batchId: string, curve: Curve): Promise<void> {
  const chunk = 2000;
  for (let i = 0, seq = 1; i < curve.samples.length; i += chunk, seq++) {
    const last = i + chunk >= curve.samples.length;
    const res = await postSamples(server.url, token, batchId, { seq, samples: curve.samples.slice(i, i + chunk), events: last ? curve.events : [] });
    assert.equal(res.status, 202, JSON.stringify(res.body));
  }
}

/**
 * Everything roasting and the stock it touches can write for an organization, as one comparable value: a
 * refused call must leave it exactly as it was.
 */
export async function roastingState(owner: Queryable, orgId: string): Promise<unknown> {
  const [row] = await owner.query<{ state: unknown }>(
    `select jsonb_build_object(
       'profiles', (select count(*) from roast_profiles where org_id = $1),
       'batches', (select coalesce(jsonb_agg(jsonb_build_array(id, state, drop_weight_kg, weight_loss_pct, metrics is not null, notes) order by id), '[]') from roast_batches where org_id = $1),
       'curves', (select count(*) from roast_curves where org_id = $1),
       'roastedLots', (select coalesce(jsonb_agg(jsonb_build_array(id, on_hand_kg, opening_kg, ledger_seq) order by id), '[]') from roasted_lots where org_id = $1),
       'roastedLedger', (select count(*) from roasted_lot_ledger where org_id = $1),
       'greenLots', (select coalesce(jsonb_agg(jsonb_build_array(id, on_hand_kg, reserved_kg, ledger_seq) order by id), '[]') from green_lots where org_id = $1),
       'greenBalances', (select coalesce(jsonb_agg(jsonb_build_array(lot_id, location_id, on_hand_kg) order by lot_id, location_id), '[]') from green_lot_balances where org_id = $1),
       'lineage', (select count(*) from lineage_edges where org_id = $1),
       'schedules', (select coalesce(jsonb_agg(jsonb_build_array(id, state) order by id), '[]') from production_schedules where org_id = $1),
       'scheduledBatches', (select count(*) from scheduled_batches where org_id = $1),
       'events', (select count(*) from events where org_id = $1)
     ) as state`,
    [orgId],
  );
  return row.state;
}

/** Runs a call that must be refused and proves it changed nothing this module stores. */
export const refusedUnchanged = (owner: Queryable, org: TestOrg, call: () => Promise<CallResult>, status: number, code: string, path?: string) =>
  assertRefusedWithout(() => roastingState(owner, org.id), call, status, code, path);

/** The owner's roasted-stock promises, by SQL over the whole ledger: one line per violation. */
export async function roastedLedgerViolations(owner: Queryable, orgId: string): Promise<string[]> {
  const rows = await owner.query<{ violation: string }>(
    `with ledger as (
       select lot_id, sum(delta_kg) as on_hand, coalesce(sum(delta_kg) filter (where kind = 'roast_output'), 0) as opening,
              count(*)::int as row_count, max(seq) as max_seq
       from roasted_lot_ledger where org_id = $1 group by lot_id
     ),
     history as (
       select lot_id, seq, kind, delta_kg, sum(delta_kg) over (partition by lot_id order by seq) as after
       from roasted_lot_ledger where org_id = $1
     )
     select format('roasted lot %s (on hand %s, opening %s, seq %s) disagrees with its ledger (%s, %s, %s rows up to %s)',
                   r.id, r.on_hand_kg, r.opening_kg, r.ledger_seq, coalesce(l.on_hand, 0), coalesce(l.opening, 0), coalesce(l.row_count, 0), coalesce(l.max_seq, 0)) as violation
     from roasted_lots r left join ledger l on l.lot_id = r.id
     where r.org_id = $1 and (r.on_hand_kg <> coalesce(l.on_hand, 0) or r.opening_kg <> coalesce(l.opening, 0)
                              or r.ledger_seq <> coalesce(l.row_count, 0) or r.ledger_seq <> coalesce(l.max_seq, 0))
     union all
     select format('roasted lot %s row %s (%s) took it below zero without a recount', lot_id, seq, kind)
     from history where kind <> 'recount' and delta_kg < 0 and after < 0`,
    [orgId],
  );
  return rows.map((r) => r.violation);
}
