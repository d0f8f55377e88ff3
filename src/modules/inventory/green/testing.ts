import assert from 'node:assert/strict';
import type { Queryable } from '../../../db/client.js';
import type { CallResult, TestOrg } from '../../../testing/harness.js';
import { assertRefusedWithout } from '../../../testing/problems.js';
import { ledgerInvariantViolations } from './invariants.js';

/** Test fixtures for green inventory, shared by this module's tests, its tenancy cases and the blend tests. */

let lotCounter = 0;

export async function importLot(org: TestOrg, input: Record<string, unknown> = {}): Promise<any> {
  lotCounter += 1;
  const res = await org.call('inventory.green.importGreenLot', {
    name: `Lot ${lotCounter}`,
    lotCode: `L-${Date.now().toString(36)}-${lotCounter}`,
    weightKg: '100',
    ...input,
  });
  if (res.status !== 200) throw new Error(`importGreenLot: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.lot;
}

export async function makeGreenLot(org: TestOrg, input: Record<string, unknown> = {}): Promise<string> {
  return (await importLot(org, input)).id;
}


/**
 * Everything a green-inventory call can write for an organization, as one comparable value: a refused
 * call must leave it exactly as it was.
 */
export async function greenState(owner: Queryable, orgId: string): Promise<unknown> {
  const [row] = await owner.query<{ state: unknown }>(
    `select jsonb_build_object(
       'lots', (select coalesce(jsonb_agg(jsonb_build_array(id, lot_code, on_hand_kg, reserved_kg, opening_kg, ledger_seq, quarantined) order by id), '[]') from green_lots where org_id = $1),
       'balances', (select coalesce(jsonb_agg(jsonb_build_array(lot_id, location_id, on_hand_kg) order by lot_id, location_id), '[]') from green_lot_balances where org_id = $1),
       'ledger', (select count(*) from green_lot_ledger where org_id = $1),
       'lineage', (select count(*) from lineage_edges where org_id = $1),
       'costComponents', (select count(*) from green_lot_cost_components where org_id = $1),
       'landedCosts', (select coalesce(jsonb_agg(jsonb_build_array(lot_id, version, total) order by lot_id), '[]') from green_lot_landed_costs where org_id = $1),
       'blends', (select count(*) from blends where org_id = $1),
       'events', (select count(*) from events where org_id = $1)
     ) as state`,
    [orgId],
  );
  return row.state;
}

/** Runs a call that must be refused and proves it changed nothing this module stores. */
export const assertRefusedUnchanged = (owner: Queryable, org: TestOrg, call: () => Promise<CallResult>, status: number, code: string, path?: string) =>
  assertRefusedWithout(() => greenState(owner, org.id), call, status, code, path);

export async function assertLedgerInvariants(owner: Queryable, orgId?: string): Promise<void> {
  assert.deepEqual(await ledgerInvariantViolations(owner, orgId), []);
}
