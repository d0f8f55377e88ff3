import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../../../testing/harness.js';
import { assertProblem } from '../../../testing/problems.js';
import { makeLocation } from '../../catalog/location/tenancy.cases.js';
import { importLot } from '../../inventory/green/testing.js';
import { assertRefusedUnchanged, makeContract, makePartner, makeProducer } from '../contract/testing.js';
import { TO_CUPPED, makeSample } from './testing.js';

const server = await startTestServer();
const org = await server.createOrg();

const events = async (type: string, sampleId: string) =>
  (await server.owner.query<{ data: any }>(`select data from events where org_id = $1 and type = $2 order by id`, [org.id, type]))
    .map((r) => r.data)
    .filter((d) => d.sample.id === sampleId);

test('createSample checks every link and fills partner and producer from the contract', async () => {
  const contract = await makeContract(org);
  const [gujiLine] = contract.lines;
  const other = await makeContract(org);
  const res = await org.call('sourcing.sample.createSample', {
    sampleNumber: 'PSS-1',
    name: 'Guji pre-shipment',
    sampleType: 'pre_shipment',
    contractLineId: gujiLine.id,
    trackingNumbers: ['1Z999'],
    weightKg: '0.3',
    dueAt: '2026-12-01T00:00:00Z',
    poNumber: 'PO-7',
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const s = res.body;
  assert.deepEqual(
    [s.status, s.contractId, s.partnerId, s.producerId, s.weightKg, s.trackingNumbers, s.decision, s.greenLotId],
    ['requested', contract.id, contract.partnerId, gujiLine.producerId, '0.300', ['1Z999'], null, null],
  );
  assert.equal((await events('sourcing.sample.created', s.id)).length, 1);
  assert.deepEqual((await org.call('sourcing.sample.getSample', { id: s.id }, { method: 'GET' })).body, s);

  const call = (input: Record<string, unknown>) => () => org.call('sourcing.sample.createSample', { sampleNumber: 'PSS-2', name: 'x', sampleType: 'offer', ...input });
  await assertRefusedUnchanged(server.owner, org, call({ contractId: other.id, contractLineId: gujiLine.id }), 400, 'invalid_input', 'contractLineId');
  await assertRefusedUnchanged(server.owner, org, call({ contractId: 'gc_0000000000nothing' }), 404, 'not_found', 'contractId');
  await assertRefusedUnchanged(server.owner, org, call({ contractLineId: 'gcl_0000000000nothing' }), 404, 'not_found', 'contractLineId');
  await assertRefusedUnchanged(server.owner, org, call({ partnerId: 'pt_0000000000nothing' }), 404, 'not_found', 'partnerId');
  await assertRefusedUnchanged(server.owner, org, call({ producerId: 'pr_0000000000nothing' }), 404, 'not_found', 'producerId');
  await assertRefusedUnchanged(server.owner, org, call({ sampleType: 'gift' }), 400, 'invalid_input', 'sampleType');
  await assertRefusedUnchanged(server.owner, org, call({ sampleNumber: 'PSS-1' }), 409, 'duplicate', 'sampleNumber');

  const partnerId = await makePartner(org);
  const producerId = await makeProducer(org);
  const offer = await makeSample(org, { partnerId, producerId });
  const listed = await org.call('sourcing.sample.listSamples', { filter: { partnerId, sampleType: 'offer' } }, { method: 'GET' });
  assert.deepEqual(listed.body.items.map((x: any) => x.id), [offer.id]);
  const byContract = await org.call('sourcing.sample.listSamples', { filter: { contractId: contract.id }, page: { limit: 1 } });
  assert.deepEqual(byContract.body.items.map((x: any) => x.id), [s.id]);
});

test('updateSampleStatus follows the transition table, stamps decisions and replaces tracking numbers', async () => {
  const s = await makeSample(org, { trackingNumbers: ['OLD-1', 'OLD-2'] });
  const move = (status: string, extra: Record<string, unknown> = {}) => org.call('sourcing.sample.updateSampleStatus', { id: s.id, status, ...extra });
  const early = await assertRefusedUnchanged(server.owner, org, () => move('approved'), 409, 'invalid_state_transition', 'status');
  assert.deepEqual([early.body.from, early.body.to], ['requested', 'approved']);
  await assertRefusedUnchanged(server.owner, org, () => move('requested'), 409, 'invalid_state_transition');
  await assertRefusedUnchanged(server.owner, org, () => move('in_transit', { decisionNotes: 'too soon' }), 400, 'invalid_input', 'decisionNotes');

  const inTransit = await move('in_transit', { trackingNumbers: ['NEW-9'] });
  assert.deepEqual(inTransit.body.trackingNumbers, ['NEW-9'], 'trackingNumbers replace the list');
  for (const status of ['received', 'roasted', 'cupped']) assert.equal((await move(status)).body.status, status);
  assert.equal((await org.call('sourcing.sample.getSample', { id: s.id })).body.decisionAt, null);
  const approved = await move('approved', { decisionNotes: 'Clean, sweet, 86.5' });
  assert.equal(approved.body.decision, 'approved');
  assert.ok(approved.body.decisionAt, 'approval stamps a decision time');
  assert.equal(approved.body.decisionNotes, 'Clean, sweet, 86.5');
  assert.deepEqual(approved.body.trackingNumbers, ['NEW-9'], 'kept when not given');
  const archived = await move('archived');
  assert.equal(archived.body.decision, 'approved', 'an archived sample keeps its decision');
  assert.equal(archived.body.decisionAt, approved.body.decisionAt);
  await assertRefusedUnchanged(server.owner, org, () => move('approved'), 409, 'invalid_state_transition');

  assert.deepEqual((await events('sourcing.sample.status_changed', s.id)).map((e) => e.to), ['in_transit', 'received', 'roasted', 'cupped', 'approved', 'archived']);
  assert.equal((await events('sourcing.sample.approved', s.id)).length, 1);

  // Deciding is its own permission.
  const writer = await org.createKey('admin', ['sourcing.sample.write', 'sourcing.sample.read']);
  const other = await makeSample(org);
  assertProblem(await server.call(writer, 'sourcing.sample.updateSampleStatus', { id: other.id, status: 'in_transit' }), 403, 'permission_denied');
});

test('transferSampleToInventory creates one lot with the sample’s provenance, and the lot’s trace shows sample and contract', async () => {
  const contract = await makeContract(org);
  const site = await makeLocation(org);
  const s = await makeSample(org, { sampleType: 'arrival', contractLineId: contract.lines[0].id, weightKg: '2.5', name: 'Guji arrival' }, ['in_transit']);
  const transfer = (input: Record<string, unknown> = {}) => () =>
    org.call('sourcing.sample.transferSampleToInventory', { id: s.id, lotCode: 'SMP-LOT-1', weightKg: '2.5', locationId: site, ...input });
  await assertRefusedUnchanged(server.owner, org, transfer(), 409, 'state_mismatch', 'id');
  await org.call('sourcing.sample.updateSampleStatus', { id: s.id, status: 'received' });
  await assertRefusedUnchanged(server.owner, org, transfer({ weightKg: '2.501' }), 400, 'invalid_input', 'weightKg');
  const taken = (await importLot(org, { weightKg: '1' })).lotCode;
  await assertRefusedUnchanged(server.owner, org, transfer({ lotCode: taken }), 409, 'duplicate', 'lotCode');
  await assertRefusedUnchanged(server.owner, org, transfer({ locationId: 'loc_0000000000nothing' }), 404, 'not_found', 'locationId');

  const res = await transfer()();
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const { sample, lot } = res.body;
  assert.equal(sample.greenLotId, lot.id);
  assert.ok(sample.transferredAt, 'stamped');
  assert.deepEqual([lot.lotCode, lot.name, lot.onHandKg, lot.producerId, lot.partnerId, lot.supplierRef], ['SMP-LOT-1', 'Guji arrival', '2.500', contract.lines[0].producerId, contract.partnerId, s.sampleNumber]);
  const ledger = (await org.call('inventory.green.listGreenLotTransactions', { greenLotId: lot.id })).body.items;
  assert.deepEqual(ledger.map((t: any) => [t.kind, t.deltaKg, t.locationId]), [['receive', '2.500', site]]);
  assert.equal((await org.call('sourcing.sample.getSample', { id: s.id })).body.greenLotId, lot.id, 'the sample shows the lot');

  const trace = (await org.call('traceability.traceBackward', { kind: 'green_lot', id: lot.id })).body;
  const kinds = trace.nodes.map((n: any) => `${n.kind}:${n.id}`);
  assert.ok(kinds.includes(`sample:${s.id}`), `trace shows the sample: ${kinds}`);
  assert.ok(kinds.includes(`contract:${contract.id}`), `trace shows the contract: ${kinds}`);
  assert.ok(trace.steps.some((step: string) => step.includes(`sample ${s.sampleNumber} (Guji arrival)`)), JSON.stringify(trace.steps));

  const twice = await assertRefusedUnchanged(server.owner, org, transfer({ lotCode: 'SMP-LOT-2' }), 409, 'sample_already_transferred', 'id');
  assert.equal(twice.body.greenLotId, lot.id);
  assert.equal((await events('sourcing.sample.transferred', s.id)).length, 1);
  const transferred = await org.call('sourcing.sample.listSamples', { filter: { transferred: true, contractId: contract.id } });
  assert.deepEqual(transferred.body.items.map((x: any) => x.id), [s.id]);
});

test('a sample_approval milestone points to the approved pre-shipment sample; a rejected one refuses it unless another is approved', async () => {
  const contract = await makeContract(org);
  const milestone = (await org.call('sourcing.contract.createContractMilestone', { contractId: contract.id, kind: 'sample_approval', dueAt: '2027-02-01T00:00:00Z' })).body;
  const complete = () => org.call('sourcing.contract.completeContractMilestone', { id: milestone.id });

  // An approved offer sample is not a pre-shipment approval.
  await makeSample(org, { sampleType: 'offer', contractId: contract.id }, [...TO_CUPPED, 'approved']);
  const rejected = await makeSample(org, { sampleType: 'pre_shipment', contractId: contract.id, sampleNumber: 'PSS-REJ' }, [...TO_CUPPED, 'rejected']);
  const refused = await assertRefusedUnchanged(server.owner, org, complete, 409, 'sample_not_approved');
  assert.match(refused.body.detail, /PSS-REJ .*was rejected/);
  assert.deepEqual(refused.body.rejectedSamples, ['PSS-REJ']);

  const approved = await makeSample(org, { sampleType: 'pre_shipment', contractId: contract.id }, [...TO_CUPPED, 'approved']);
  const done = await complete();
  assert.equal(done.status, 200, JSON.stringify(done.body));
  assert.equal(done.body.sampleId, approved.id, 'the milestone points to the approved sample');
  assert.notEqual(done.body.sampleId, rejected.id);
});
