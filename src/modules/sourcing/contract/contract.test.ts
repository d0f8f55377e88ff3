import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../../../testing/harness.js';
import { assertProblem } from '../../../testing/problems.js';
import { makeLocation } from '../../catalog/location/tenancy.cases.js';
import { importLot } from '../../inventory/green/testing.js';
import { assertLedgerInvariants } from '../../inventory/green/testing.js';
import { assertRefusedUnchanged, lotCode, makeContract, makePartner, makeProducer, makeShipment, sourcingState } from './testing.js';

const server = await startTestServer();
const org = await server.createOrg();

const events = async (type: string) =>
  (await server.owner.query<{ data: any }>(`select data from events where org_id = $1 and type = $2 order by id`, [org.id, type])).map((r) => r.data);

test('createContract derives the position from its lines and starts as a draft', async () => {
  const partnerId = await makePartner(org, { defaultCurrency: 'EUR' });
  const producerId = await makeProducer(org);
  const res = await org.call('sourcing.contract.createContract', {
    contractNumber: 'GC-DERIVE-1',
    partnerId,
    priceType: 'differential',
    incoterm: 'FOB',
    contractDate: '2026-11-01',
    paymentTermsDays: 30,
    lines: [
      { producerId, origin: 'Ethiopia, Guji', quality: 'G1', weightKg: '1200.5', differentialPerKg: '0.85', market: 'ICE KC', pricePerKg: '6.1', fixationStatus: 'fixed' },
      { origin: 'Kenya, Nyeri', quality: 'AA', weightKg: 800, differentialPerKg: '-0.1', market: 'ICE KC', bagCount: 13, bagWeightKg: '60' },
    ],
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const c = res.body;
  assert.equal(c.status, 'draft');
  assert.equal(c.currency, 'EUR', 'the partner’s default currency');
  assert.equal(c.contractDate, '2026-11-01');
  assert.deepEqual(c.position, {
    totalKg: '2000.500',
    shippedKg: '0.000',
    receivedKg: '0.000',
    openKg: '2000.500',
    unshippedKg: '2000.500',
    fixedKg: '1200.500',
    fixedValue: '7323.0500',
    openFixedValue: '7323.0500',
  });
  assert.deepEqual(
    c.lines.map((l: any) => [l.lineNumber, l.fixationStatus, l.currency, l.weightKg, l.pricePerKg, l.differentialPerKg, l.openKg]),
    [
      [1, 'fixed', 'EUR', '1200.500', '6.1000', '0.8500', '1200.500'],
      [2, 'unfixed', 'EUR', '800.000', null, '-0.1000', '800.000'],
    ],
  );
  const [created] = (await events('sourcing.contract.created')).filter((e) => e.contract.id === c.id);
  assert.equal(created.contract.lines.length, 2);
  const got = await org.call('sourcing.contract.getContract', { id: c.id }, { method: 'GET' });
  assert.deepEqual(got.body, c);
});

test('createContract refuses what a contract cannot be', async () => {
  const supplier = await makePartner(org);
  const customer = await makePartner(org, { types: ['customer'] });
  const noCurrency = await makePartner(org, { defaultCurrency: undefined });
  const line = { origin: 'Brazil', weightKg: '100', pricePerKg: '4' };
  const call = (input: Record<string, unknown>) => () => org.call('sourcing.contract.createContract', { contractNumber: 'GC-REFUSED', partnerId: supplier, lines: [line], ...input });
  await assertRefusedUnchanged(server.owner, org, call({ partnerId: customer }), 400, 'invalid_input', 'partnerId');
  await assertRefusedUnchanged(server.owner, org, call({ partnerId: noCurrency }), 400, 'invalid_input', 'currency');
  await assertRefusedUnchanged(server.owner, org, call({ partnerId: 'pt_0000000000nothing' }), 404, 'not_found', 'partnerId');
  await assertRefusedUnchanged(server.owner, org, call({ lines: [line, { origin: 'X', weightKg: '1' }] }), 400, 'invalid_input', 'lines[1].pricePerKg');
  await assertRefusedUnchanged(server.owner, org, call({ lines: [{ weightKg: '1', pricePerKg: '1' }] }), 400, 'invalid_input', 'lines[0].origin');
  await assertRefusedUnchanged(server.owner, org, call({ lines: [{ ...line, weightKg: '0' }] }), 400, 'invalid_input', 'lines[0].weightKg');
  await assertRefusedUnchanged(server.owner, org, call({ lines: [{ ...line, weightKg: '1.2345' }] }), 400, 'invalid_input', 'lines[0].weightKg');
  await assertRefusedUnchanged(server.owner, org, call({ currency: 'usd' }), 400, 'invalid_input', 'currency');
  await assertRefusedUnchanged(server.owner, org, call({ currency: 'USD', lines: [{ ...line, currency: 'EUR' }] }), 400, 'invalid_input', 'lines[0].currency');
  await assertRefusedUnchanged(server.owner, org, call({ lines: [{ ...line, producerId: 'pr_0000000000nothing' }] }), 404, 'not_found', 'lines[0].producerId');
  await assertRefusedUnchanged(server.owner, org, call({ incoterm: 'XYZ' }), 400, 'invalid_input', 'incoterm');
  await assertRefusedUnchanged(server.owner, org, call({ surprise: true }), 400, 'invalid_input', 'surprise');
  assert.equal((await call({})()).status, 200);
  await assertRefusedUnchanged(server.owner, org, call({}), 409, 'duplicate', 'contractNumber');
});

test('updateContractStatus follows the transition table and names from and to when refusing', async () => {
  const c = await makeContract(org, { status: 'draft' });
  const move = (status: string) => org.call('sourcing.contract.updateContractStatus', { id: c.id, status });
  const skip = await assertRefusedUnchanged(server.owner, org, () => move('confirmed'), 409, 'invalid_state_transition', 'status');
  assert.equal(skip.body.from, 'draft');
  assert.equal(skip.body.to, 'confirmed');
  assert.match(skip.body.detail, /from draft to confirmed/);
  await assertRefusedUnchanged(server.owner, org, () => move('draft'), 409, 'invalid_state_transition');
  assert.equal((await move('pending')).body.status, 'pending');
  assert.equal((await move('confirmed')).body.status, 'confirmed');
  const defaulted = await move('defaulted');
  assert.equal(defaulted.body.status, 'defaulted');
  for (const status of ['confirmed', 'closed', 'canceled']) {
    const res = await assertRefusedUnchanged(server.owner, org, () => move(status), 409, 'invalid_state_transition');
    assert.equal(res.body.from, 'defaulted');
  }
  const changes = (await events('sourcing.contract.status_changed')).filter((e) => e.contract.id === c.id);
  assert.deepEqual(changes.map((e) => [e.from, e.to, e.cause]), [['draft', 'pending', 'manual'], ['pending', 'confirmed', 'manual'], ['confirmed', 'defaulted', 'manual']]);

  // Approving is its own permission: a key that may write contracts may not move their status.
  const writer = await org.createKey('admin', ['sourcing.contract.write', 'sourcing.contract.read']);
  const other = await makeContract(org, { status: 'draft' });
  const denied = await server.call(writer, 'sourcing.contract.updateContractStatus', { id: other.id, status: 'pending' });
  assertProblem(denied, 403, 'permission_denied');
});

test('shipments cannot exceed the open weight and move the contract to partially_shipped, then shipped', async () => {
  const draft = await makeContract(org, { status: 'draft' });
  await assertRefusedUnchanged(server.owner, org, () => org.call('sourcing.contract.createContractShipment', { contractId: draft.id, reference: 'S1', weightKg: '10' }), 409, 'state_mismatch', 'contractId');

  const c = await makeContract(org);
  const archived = await makeLocation(org);
  await org.call('catalog.location.archiveLocation', { id: archived });
  const ship = (input: Record<string, unknown>) => () => org.call('sourcing.contract.createContractShipment', { contractId: c.id, reference: 'S-A', weightKg: '10', ...input });
  await assertRefusedUnchanged(server.owner, org, ship({ weightKg: '1000.001' }), 409, 'exceeds_open_weight', 'weightKg');
  await assertRefusedUnchanged(server.owner, org, ship({ destinationLocationId: archived }), 409, 'location_archived', 'destinationLocationId');
  await assertRefusedUnchanged(server.owner, org, ship({ destinationLocationId: 'loc_0000000000nothing' }), 404, 'not_found', 'destinationLocationId');
  await assertRefusedUnchanged(server.owner, org, ship({ etd: '2026-12-10', eta: '2026-12-01' }), 400, 'invalid_input', 'eta');

  const first = await ship({ weightKg: '700', vessel: 'MSC Aurora', containerNumber: 'MSCU1234567', etd: '2026-12-01', eta: '2027-01-10' })();
  assert.equal(first.status, 200, JSON.stringify(first.body));
  assert.equal(first.body.status, 'booked');
  assert.equal(first.body.eta, '2027-01-10');
  let contract = (await org.call('sourcing.contract.getContract', { id: c.id })).body;
  assert.equal(contract.status, 'partially_shipped');
  assert.equal(contract.position.shippedKg, '700.000');
  assert.equal(contract.position.unshippedKg, '300.000');
  await assertRefusedUnchanged(server.owner, org, ship({ reference: 'S-A', weightKg: '1' }), 409, 'duplicate', 'reference');
  await assertRefusedUnchanged(server.owner, org, ship({ reference: 'S-B', weightKg: '300.001' }), 409, 'exceeds_open_weight', 'weightKg');
  assert.equal((await ship({ reference: 'S-B', weightKg: '300' })()).status, 200);
  contract = (await org.call('sourcing.contract.getContract', { id: c.id })).body;
  assert.equal(contract.status, 'shipped');
  const changes = (await events('sourcing.contract.status_changed')).filter((e) => e.contract.id === c.id && e.cause === 'shipment');
  assert.deepEqual(changes.map((e) => [e.from, e.to]), [['confirmed', 'partially_shipped'], ['partially_shipped', 'shipped']]);
  const list = await org.call('sourcing.contract.listContractShipments', { filter: { contractId: c.id }, page: { limit: 1 } }, { method: 'GET' });
  assert.equal(list.body.items.length, 1);
  const rest = await org.call('sourcing.contract.listContractShipments', { filter: { contractId: c.id }, page: { limit: 1, cursor: list.body.nextCursor } });
  assert.deepEqual([...list.body.items, ...rest.body.items].map((s: any) => s.reference), ['S-A', 'S-B']);
});

test('receiveContractShipment creates a priced lot per line with ledger, cost, lineage and a moved position', async () => {
  const c = await makeContract(org);
  const site = await makeLocation(org);
  const shipment = await makeShipment(org, c.id, '1000', { destinationLocationId: site });
  const [guji, huila] = c.lines;
  const codes = [lotCode(), lotCode()];
  const res = await org.call('sourcing.contract.receiveContractShipment', {
    shipmentId: shipment.id,
    lines: [
      { contractLineId: guji.id, lotCode: codes[0], weightKg: '598.4', freight: '120', duty: '30.5' },
      { contractLineId: huila.id, lotCode: codes[1], weightKg: '400', name: 'Huila Excelso', carry: '12' },
    ],
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const { shipment: received, contract, lots } = res.body;
  assert.equal(received.status, 'received');
  assert.equal(received.receivedKg, '998.400');
  assert.deepEqual(received.lots.map((l: any) => [l.contractLineId, l.weightKg]), [[guji.id, '598.400'], [huila.id, '400.000']]);
  assert.equal(contract.status, 'arrived', 'everything booked and every shipment received');
  assert.equal(contract.position.receivedKg, '998.400');
  assert.equal(contract.position.openKg, '1.600');
  // Fixed value 600 × 5.5 + 400 × 6.25 = 5800; received 598.4 × 5.5 + 400 × 6.25 = 5791.2.
  assert.equal(contract.position.openFixedValue, '8.8000');

  const [gujiLot, huilaLot] = lots;
  assert.equal(gujiLot.lotCode, codes[0]);
  assert.equal(gujiLot.onHandKg, '598.400');
  assert.equal(gujiLot.producerId, guji.producerId);
  assert.equal(gujiLot.partnerId, c.partnerId);
  assert.equal(gujiLot.supplierRef, c.contractNumber);
  assert.deepEqual(gujiLot.balances.map((b: any) => [b.locationId, b.onHandKg]), [[site, '598.400']]);
  assert.equal(huilaLot.name, 'Huila Excelso');

  const cost = (await org.call('inventory.green.getGreenLotLandedCost', { greenLotId: gujiLot.id })).body;
  // 598.4 kg × 5.5 = 3291.2 price, 120 freight, 30.5 duty.
  assert.deepEqual(cost.buckets, { price: '3291.2000', freight: '120.0000', duty: '30.5000', carry: '0.0000', other: '0.0000' });
  assert.equal(cost.currency, 'USD');
  const ledger = (await org.call('inventory.green.listGreenLotTransactions', { greenLotId: huilaLot.id })).body.items;
  assert.deepEqual(ledger.map((t: any) => [t.kind, t.deltaKg, t.locationId]), [['receive', '400.000', site]]);
  await assertLedgerInvariants(server.owner, org.id);

  const trace = await org.call('traceability.traceBackward', { kind: 'green_lot', id: gujiLot.id });
  assert.equal(trace.status, 200, JSON.stringify(trace.body));
  const nodes = trace.body.nodes.map((n: any) => [n.kind, n.id, n.label]);
  assert.ok(nodes.some(([kind, id, label]: string[]) => kind === 'contract' && id === c.id && label === c.contractNumber), `trace shows the contract: ${JSON.stringify(nodes)}`);
  assert.ok(nodes.some(([kind, id]: string[]) => kind === 'producer' && id === guji.producerId), 'trace shows the producer');

  const [event] = (await events('sourcing.shipment.received')).filter((e) => e.shipment.id === shipment.id);
  assert.deepEqual(event.lots.map((l: any) => l.lotCode), codes);
  const arrived = (await events('sourcing.contract.status_changed')).filter((e) => e.contract.id === c.id && e.cause === 'receipt');
  assert.deepEqual(arrived.map((e) => [e.from, e.to]), [['shipped', 'arrived']]);

  // Receiving the same shipment again creates nothing.
  const again = await assertRefusedUnchanged(
    server.owner,
    org,
    () => org.call('sourcing.contract.receiveContractShipment', { shipmentId: shipment.id, lines: [{ contractLineId: guji.id, lotCode: lotCode(), weightKg: '1' }] }),
    409,
    'shipment_already_received',
    'shipmentId',
  );
  assert.match(again.body.detail, /was received/);
});

test('a receipt that fails on its third line leaves no lot, ledger row, cost component, lineage or event behind', async () => {
  const c = await makeContract(org);
  const shipment = await makeShipment(org, c.id, '600');
  const taken = (await importLot(org, { weightKg: '1' })).lotCode;
  const [line] = c.lines;
  const input = {
    shipmentId: shipment.id,
    lines: [
      { contractLineId: line.id, lotCode: lotCode(), weightKg: '200', freight: '10' },
      { contractLineId: line.id, lotCode: lotCode(), weightKg: '200', duty: '5' },
      { contractLineId: line.id, lotCode: taken, weightKg: '200', carry: '1' },
    ],
  };
  await assertRefusedUnchanged(server.owner, org, () => org.call('sourcing.contract.receiveContractShipment', input), 409, 'duplicate', 'lines[2].lotCode');
  const foreignLine = (await makeContract(org)).lines[0].id;
  const wrongLine = { ...input, lines: [input.lines[0], input.lines[1], { ...input.lines[2], lotCode: lotCode(), contractLineId: foreignLine }] };
  await assertRefusedUnchanged(server.owner, org, () => org.call('sourcing.contract.receiveContractShipment', wrongLine), 404, 'not_found', 'lines[2].contractLineId');
  const archived = await makeLocation(org);
  await org.call('catalog.location.archiveLocation', { id: archived });
  const toArchived = { ...input, lines: [input.lines[0], input.lines[1], { ...input.lines[2], lotCode: lotCode(), locationId: archived }] };
  await assertRefusedUnchanged(server.owner, org, () => org.call('sourcing.contract.receiveContractShipment', toArchived), 409, 'location_archived', 'lines[2].locationId');
  await assertRefusedUnchanged(
    server.owner,
    org,
    () => org.call('sourcing.contract.receiveContractShipment', { ...input, lines: [input.lines[0], { ...input.lines[1], lotCode: input.lines[0].lotCode }] }),
    400,
    'invalid_input',
    'lines[1].lotCode',
  );
  // The receipt's own location is checked even when every line names its own.
  const site = await makeLocation(org);
  const everyLineLocated = { ...input, lines: input.lines.map((l) => ({ ...l, lotCode: lotCode(), locationId: site })) };
  await assertRefusedUnchanged(server.owner, org, () => org.call('sourcing.contract.receiveContractShipment', { ...everyLineLocated, locationId: 'loc_0nosuchplace' }), 404, 'not_found', 'locationId');
  await assertRefusedUnchanged(server.owner, org, () => org.call('sourcing.contract.receiveContractShipment', { ...everyLineLocated, locationId: archived }), 409, 'location_archived', 'locationId');
  // The shipment is still to receive, and receives once the clash is gone.
  const fixed = { ...input, lines: [input.lines[0], input.lines[1], { ...input.lines[2], lotCode: lotCode() }] };
  assert.equal((await org.call('sourcing.contract.receiveContractShipment', fixed)).status, 200);
});

test('a retried receipt with the same Idempotency-Key answers the first receipt and changes nothing', async () => {
  const c = await makeContract(org);
  const shipment = await makeShipment(org, c.id, '400');
  const input = { shipmentId: shipment.id, lines: [{ contractLineId: c.lines[1].id, lotCode: lotCode(), weightKg: '400' }] };
  const first = await org.call('sourcing.contract.receiveContractShipment', input, { idempotencyKey: `receive-${shipment.id}` });
  assert.equal(first.status, 200, JSON.stringify(first.body));
  const before = await sourcingState(server.owner, org.id);
  const retry = await org.call('sourcing.contract.receiveContractShipment', input, { idempotencyKey: `receive-${shipment.id}` });
  assert.equal(retry.status, 200);
  assert.deepEqual(retry.body, first.body);
  assert.deepEqual(await sourcingState(server.owner, org.id), before, 'the replay wrote nothing');
  const other = await org.call('sourcing.contract.receiveContractShipment', { ...input, locationId: await makeLocation(org) }, { idempotencyKey: `receive-${shipment.id}` });
  assertProblem(other, 422, 'idempotency_key_reused');
});

test('a closed, canceled or defaulted contract receives nothing and takes no milestones', async () => {
  const c = await makeContract(org);
  const shipment = await makeShipment(org, c.id, '100');
  assert.equal((await org.call('sourcing.contract.updateContractStatus', { id: c.id, status: 'canceled' })).status, 200);
  await assertRefusedUnchanged(
    server.owner,
    org,
    () => org.call('sourcing.contract.receiveContractShipment', { shipmentId: shipment.id, lines: [{ contractLineId: c.lines[0].id, lotCode: lotCode(), weightKg: '100' }] }),
    409,
    'state_mismatch',
    'shipmentId',
  );
  await assertRefusedUnchanged(
    server.owner,
    org,
    () => org.call('sourcing.contract.createContractMilestone', { contractId: c.id, kind: 'payment', dueAt: '2027-01-01T00:00:00Z' }),
    409,
    'state_mismatch',
    'contractId',
  );
});

test('milestones: completed once, listed org-wide with filters, sample_approval needs an approved sample', async () => {
  const own = await server.createOrg();
  const a = await makeContract(own);
  const b = await makeContract(own);
  const add = async (contractId: string, kind: string, dueAt: string) => {
    const res = await own.call('sourcing.contract.createContractMilestone', { contractId, kind, dueAt, notes: `${kind} note` });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body;
  };
  const past = await add(a.id, 'payment', '2020-01-01T00:00:00Z');
  const future = await add(b.id, 'vessel_departure', '2099-01-01T00:00:00Z');
  const sample = await add(b.id, 'sample_approval', '2098-01-01T00:00:00Z');
  assert.equal(past.overdue, true);
  assert.equal(future.overdue, false);
  assert.equal(past.contractNumber, a.contractNumber);

  const list = async (filter: Record<string, unknown>) => (await own.call('sourcing.contract.listContractMilestones', { filter }, { method: 'GET' })).body;
  const all = await list({});
  assert.deepEqual(all.items.map((m: any) => m.id), [past.id, sample.id, future.id], 'org-wide, soonest due first');
  assert.equal(all.truncated, false);
  assert.deepEqual((await list({ contractId: b.id })).items.map((m: any) => m.id), [sample.id, future.id]);
  assert.deepEqual((await list({ overdue: true })).items.map((m: any) => m.id), [past.id]);
  assert.deepEqual((await list({ kind: 'vessel_departure' })).items.map((m: any) => m.id), [future.id]);
  assert.deepEqual((await list({ dueFrom: '2021-01-01T00:00:00Z', dueTo: '2099-01-01T00:00:00Z' })).items.map((m: any) => m.id), [sample.id]);
  assertProblem(await own.call('sourcing.contract.listContractMilestones', { filter: { due: 'soon' } }), 400, 'invalid_input', 'filter.due');

  const done = await own.call('sourcing.contract.completeContractMilestone', { id: past.id });
  assert.equal(done.status, 200);
  assert.ok(done.body.completedAt, 'stamped');
  assert.equal(done.body.overdue, false);
  const twice = await assertRefusedUnchanged(server.owner, own, () => own.call('sourcing.contract.completeContractMilestone', { id: past.id }), 409, 'milestone_already_completed');
  assert.equal(twice.body.completedAt, done.body.completedAt);
  assert.deepEqual((await list({ completed: true })).items.map((m: any) => m.id), [past.id]);

  const noSample = await assertRefusedUnchanged(server.owner, own, () => own.call('sourcing.contract.completeContractMilestone', { id: sample.id }), 409, 'sample_not_approved');
  assert.match(noSample.body.detail, /no approved pre-shipment sample/);
});

test('listOpenPositions: committed and not yet received weight per contract, per origin and in total', async () => {
  const own = await server.createOrg();
  const empty = await own.call('sourcing.contract.listOpenPositions', {}, { method: 'GET' });
  assert.deepEqual(empty.body, { contracts: [], byOrigin: [], totals: { contracts: 0, openKg: '0.000', byCurrency: [] } });

  const draft = await makeContract(own, { status: 'draft' });
  const open = await makeContract(own);
  const canceled = await makeContract(own);
  await own.call('sourcing.contract.updateContractStatus', { id: canceled.id, status: 'canceled' });
  const shipment = await makeShipment(own, open.id, '600');
  await own.call('sourcing.contract.receiveContractShipment', { shipmentId: shipment.id, lines: [{ contractLineId: open.lines[0].id, lotCode: lotCode(), weightKg: '500' }] });

  const res = await own.call('sourcing.contract.listOpenPositions', {});
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const positions = res.body;
  assert.deepEqual(positions.contracts.map((c: any) => [c.contractId, c.openKg, c.openFixedValue]), [[open.id, '500.000', '3050.0000']]);
  assert.ok(!JSON.stringify(positions).includes(draft.id) && !JSON.stringify(positions).includes(canceled.id), 'drafts and canceled contracts are not open');
  assert.deepEqual(
    positions.byOrigin.map((o: any) => [o.producerId, o.origin, o.openKg, o.openFixedValue]),
    [
      [open.lines[0].producerId, 'Ethiopia, Guji', '100.000', '550.0000'],
      [null, 'Colombia, Huila', '400.000', '2500.0000'],
    ],
  );
  assert.deepEqual(positions.totals, { contracts: 1, openKg: '500.000', byCurrency: [{ currency: 'USD', openFixedValue: '3050.0000' }] });
  const openFilter = await own.call('sourcing.contract.listContracts', { filter: { open: true } });
  assert.deepEqual(openFilter.body.items.map((c: any) => c.id), [open.id]);
});

test('concurrent receipts of one shipment: exactly one wins, the other is refused', async (t) => {
  if (server.kind !== 'postgres') return t.skip('PGlite runs one transaction at a time; concurrency needs PostgreSQL');
  const c = await makeContract(org);
  const shipment = await makeShipment(org, c.id, '600');
  const attempt = () =>
    org.call('sourcing.contract.receiveContractShipment', { shipmentId: shipment.id, lines: [{ contractLineId: c.lines[0].id, lotCode: lotCode(), weightKg: '600' }] });
  const results = await Promise.all([attempt(), attempt(), attempt(), attempt()]);
  assert.deepEqual(results.map((r) => r.status).sort(), [200, 409, 409, 409], JSON.stringify(results.map((r) => r.body)));
  for (const r of results.filter((r) => r.status === 409)) assert.equal(r.body.code, 'shipment_already_received');
  const [{ n }] = await server.owner.query<{ n: number }>(`select count(*)::int as n from green_contract_receipt_lines where org_id = $1 and shipment_id = $2`, [org.id, shipment.id]);
  assert.equal(n, 1);
  const contract = (await org.call('sourcing.contract.getContract', { id: c.id })).body;
  assert.equal(contract.position.receivedKg, '600.000');
});

test('concurrent shipments never book more than the contract: the contract row lock decides', async (t) => {
  if (server.kind !== 'postgres') return t.skip('PGlite runs one transaction at a time; concurrency needs PostgreSQL');
  const c = await makeContract(org);
  const results = await Promise.all(
    Array.from({ length: 5 }, (_, i) => org.call('sourcing.contract.createContractShipment', { contractId: c.id, reference: `RACE-${i}`, weightKg: '300' })),
  );
  assert.deepEqual(results.map((r) => r.status).sort(), [200, 200, 200, 409, 409], JSON.stringify(results.map((r) => r.body)));
  for (const r of results.filter((r) => r.status === 409)) assert.equal(r.body.code, 'exceeds_open_weight');
  const contract = (await org.call('sourcing.contract.getContract', { id: c.id })).body;
  assert.equal(contract.position.shippedKg, '900.000');
  assert.equal(contract.status, 'partially_shipped');
});
