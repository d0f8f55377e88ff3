import type { Queryable } from '../../../db/client.js';
import type { CallResult, TestOrg } from '../../../testing/harness.js';
import { assertRefusedWithout } from '../../../testing/problems.js';

/** Test fixtures for sourcing: partners, producers, contracts and shipments made over the API. */

let counter = 0;
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++counter}`;

async function ok(res: Promise<CallResult>, what: string): Promise<any> {
  const r = await res;
  if (r.status !== 200) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

export async function makePartner(org: TestOrg, input: Record<string, unknown> = {}): Promise<string> {
  const code = unique('P');
  return (await ok(org.call('catalog.party.createPartner', { name: `Partner ${code}`, code, types: ['importer'], defaultCurrency: 'USD', ...input }), 'createPartner')).id;
}

export async function makeProducer(org: TestOrg, input: Record<string, unknown> = {}): Promise<string> {
  const code = unique('PR');
  return (await ok(org.call('catalog.party.createProducer', { name: `Farm ${code}`, code, kind: 'farm', country: 'ET', ...input }), 'createProducer')).id;
}

/** A contract of two fixed-price lines (600 kg at 5.5000 and 400 kg at 6.2500 USD/kg) in `status`. */
export async function makeContract(org: TestOrg, options: { status?: 'draft' | 'pending' | 'confirmed'; input?: Record<string, unknown> } = {}): Promise<any> {
  const partnerId = await makePartner(org);
  const producerId = await makeProducer(org);
  let contract = await ok(
    org.call('sourcing.contract.createContract', {
      contractNumber: unique('GC'),
      partnerId,
      priceType: 'fixed',
      incoterm: 'FOB',
      lines: [
        { producerId, origin: 'Ethiopia, Guji', quality: 'Grade 1 washed', weightKg: '600', pricePerKg: '5.5', bagCount: 10, bagWeightKg: '60' },
        { origin: 'Colombia, Huila', quality: 'Excelso EP', weightKg: '400', pricePerKg: '6.25' },
      ],
      ...options.input,
    }),
    'createContract',
  );
  const path = { draft: [], pending: ['pending'], confirmed: ['pending', 'confirmed'] }[options.status ?? 'confirmed'];
  for (const status of path) contract = await ok(org.call('sourcing.contract.updateContractStatus', { id: contract.id, status }), `to ${status}`);
  return (await ok(org.call('sourcing.contract.getContract', { id: contract.id }), 'getContract'));
}

export async function makeShipment(org: TestOrg, contractId: string, weightKg = '1000', input: Record<string, unknown> = {}): Promise<any> {
  return ok(org.call('sourcing.contract.createContractShipment', { contractId, reference: unique('SHIP'), weightKg, ...input }), 'createContractShipment');
}

export const lotCode = () => unique('LOT');

/**
 * Everything sourcing and green inventory store for an organization, as one comparable value: a refused call
 * must leave it exactly as it was.
 */
export async function sourcingState(owner: Queryable, orgId: string): Promise<unknown> {
  const [row] = await owner.query<{ state: unknown }>(
    `select jsonb_build_object(
       'contracts', (select coalesce(jsonb_agg(jsonb_build_array(id, status, total_kg, shipped_kg, received_kg, fixed_received_value, updated_at) order by id), '[]') from green_contracts where org_id = $1),
       'lines', (select coalesce(jsonb_agg(jsonb_build_array(id, received_kg) order by id), '[]') from green_contract_lines where org_id = $1),
       'shipments', (select coalesce(jsonb_agg(jsonb_build_array(id, status, received_at) order by id), '[]') from green_contract_shipments where org_id = $1),
       'receipts', (select count(*) from green_contract_receipt_lines where org_id = $1),
       'milestones', (select coalesce(jsonb_agg(jsonb_build_array(id, completed_at, sample_id) order by id), '[]') from green_contract_milestones where org_id = $1),
       'samples', (select coalesce(jsonb_agg(jsonb_build_array(id, status, decision, decision_at, tracking_numbers, green_lot_id) order by id), '[]') from samples where org_id = $1),
       'lots', (select count(*) from green_lots where org_id = $1),
       'ledger', (select count(*) from green_lot_ledger where org_id = $1),
       'costComponents', (select count(*) from green_lot_cost_components where org_id = $1),
       'landedCosts', (select count(*) from green_lot_landed_costs where org_id = $1),
       'lineage', (select count(*) from lineage_edges where org_id = $1),
       'events', (select count(*) from events where org_id = $1)
     ) as state`,
    [orgId],
  );
  return row.state;
}

export const assertRefusedUnchanged = (owner: Queryable, org: TestOrg, call: () => Promise<CallResult>, status: number, code: string, path?: string) =>
  assertRefusedWithout(() => sourcingState(owner, org.id), call, status, code, path);
