import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startTestServer, type TestOrg } from '../../../testing/harness.js';
import { makeLocation } from '../../catalog/location/tenancy.cases.js';
import { importLot } from '../green/testing.js';
import { makeProfile, refusedUnchanged, roastedLedgerViolations, unique } from '../../production/roast/testing.js';
import { assertProblem } from '../../../testing/problems.js';
import { roastLot } from '../../orders/testing.js';

const server = await startTestServer();
const org = await server.createOrg('enterprise', 'Roasted stock roastery');

const log = (name: string) => readFileSync(new URL(`../../../../../shared/fixtures/roast-logs/${name}`, import.meta.url), 'utf8');

/** A roasted lot made the quickest way: importing a logger file that records both weights, charged to a green lot. */
async function roastedLot(as: TestOrg, input: Record<string, unknown> = {}, file = 'profile2.json') {
  const lot = await importLot(as, { weightKg: '20' });
  const res = await as.call('production.roast.importLoggerRoast', { content: log(file), batchNumber: unique('R'), greenLotId: lot.id, ...input });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return { batch: res.body, lot: res.body.roastedLot, greenLot: lot };
}

const adjust = (input: Record<string, unknown>) => org.call('inventory.roast.adjustRoastedLotQuantity', input);

describe('adjustRoastedLotQuantity', () => {
  test('appends a ledger row per reason and moves the on-hand weight with it', async () => {
    const { lot } = await roastedLot(org); // 1.395 kg
    const steps: [string, string, string][] = [
      ['sample_draw', '-0.100', '1.295'],
      ['shrinkage', '-0.015', '1.280'],
      ['return', '0.250', '1.530'],
      ['adjust', '-0.030', '1.500'],
      ['write_off', '-0.500', '1.000'],
      ['recount', '0.012', '1.012'],
    ];
    for (const [reason, deltaKg, onHandKg] of steps) {
      const res = await adjust({ id: lot.id, deltaKg, reason, comment: `${reason} test` });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.lot.onHandKg, onHandKg);
      assert.deepEqual([res.body.transactions[0].kind, res.body.transactions[0].deltaKg, res.body.transactions[0].comment], [reason, deltaKg, `${reason} test`]);
      assert.match(res.body.transactions[0].id, /^rlt_/);
    }
    const view = await org.call('inventory.roast.getRoastedLot', { id: lot.id }, { method: 'GET' });
    assert.equal(view.body.openingKg, '1.395');
    assert.deepEqual(view.body.transactions.map((t: any) => [t.seq, t.kind]), [[1, 'roast_output'], ...steps.map(([reason], i) => [i + 2, reason])]);
    const [event] = await server.owner.query<{ data: any }>(
      `select data from events where org_id = $1 and type = 'inventory.roast.lot_adjusted' order by id desc limit 1`,
      [org.id],
    );
    assert.deepEqual([event.data.lot.onHandKg, event.data.transactions[0].kind], ['1.012', 'recount']);
    assert.deepEqual(await roastedLedgerViolations(server.owner, org.id), []);
  });

  test('only a recount may take the lot below zero', async () => {
    const { lot } = await roastedLot(org);
    for (const reason of ['write_off', 'sample_draw', 'adjust', 'shrinkage']) {
      const res = await refusedUnchanged(server.owner, org, () => adjust({ id: lot.id, deltaKg: '-1.396', reason }), 409, 'insufficient_stock', 'deltaKg');
      assert.equal(res.body.onHandKg, '1.395');
    }
    assert.equal((await adjust({ id: lot.id, deltaKg: '-1.395', reason: 'write_off' })).body.lot.onHandKg, '0.000');
    assert.equal((await adjust({ id: lot.id, deltaKg: '-0.2', reason: 'recount' })).body.lot.onHandKg, '-0.200');
    await refusedUnchanged(server.owner, org, () => adjust({ id: lot.id, deltaKg: '-0.001', reason: 'sample_draw' }), 409, 'insufficient_stock', 'deltaKg');
    assert.equal((await adjust({ id: lot.id, deltaKg: '0.5', reason: 'return' })).body.lot.onHandKg, '0.300');
    assert.deepEqual(await roastedLedgerViolations(server.owner, org.id), []);
  });

  test('refuses invalid input and unknown lots, changing nothing', async () => {
    const { lot } = await roastedLot(org);
    const invalid: [Record<string, unknown>, string][] = [
      [{ deltaKg: '0', reason: 'adjust' }, 'deltaKg'],
      [{ deltaKg: '0.5', reason: 'write_off' }, 'deltaKg'],
      [{ deltaKg: '0.5', reason: 'sample_draw' }, 'deltaKg'],
      [{ deltaKg: '0.5', reason: 'shrinkage' }, 'deltaKg'],
      [{ deltaKg: '0.0005', reason: 'adjust' }, 'deltaKg'],
      [{ deltaKg: '1', reason: 'roast_output' }, 'reason'],
      [{ deltaKg: '1', reason: 'adjust', locationId: 'loc_0000000000ghost00000000000' }, 'locationId'],
    ];
    for (const [input, path] of invalid) await refusedUnchanged(server.owner, org, () => adjust({ id: lot.id, ...input }), 400, 'invalid_input', path);
    await refusedUnchanged(server.owner, org, () => adjust({ id: 'rl_0000000000ghost00000000000', deltaKg: '1', reason: 'adjust' }), 404, 'not_found', 'id');
    assertProblem(await org.call('inventory.roast.getRoastedLot', { id: 'rl_0000000000ghost00000000000' }), 404, 'not_found', 'id');
  });
});

describe('listRoastedLots', () => {
  test('freshest first, paged with a stable cursor, with every filter', async () => {
    const listOrg = await server.createOrg('enterprise', 'List roastery');
    const locationId = await makeLocation(listOrg);
    const profile = await makeProfile(listOrg);
    // Roasted 2015-08-10, 2024-09-14 and 2026-02-21 as their files record.
    const old = await roastedLot(listOrg, { profileId: profile.id }, 'profile2.json');
    const mid = await roastedLot(listOrg, { locationId }, 'roast_data.json');
    const fresh = await roastedLot(listOrg, { dropWeightKg: '0.19', batchNumber: 'ETH-7' }, '3_Ethiopia Gerba Hechere_2026-02-21.alog');
    await listOrg.call('inventory.roast.adjustRoastedLotQuantity', { id: mid.lot.id, deltaKg: `-${mid.lot.onHandKg}`, reason: 'write_off' });

    const list = (filter: Record<string, unknown> = {}, page: Record<string, unknown> = {}) =>
      listOrg.call('inventory.roast.listRoastedLots', { filter, page }, { method: 'GET' });
    const ids = async (filter: Record<string, unknown>) => (await list(filter)).body.items.map((l: any) => l.id);
    const [f, m, o] = [fresh.lot.id, mid.lot.id, old.lot.id];

    assert.deepEqual(await ids({}), [f, m, o]);
    const paged: string[] = [];
    let cursor: string | undefined;
    do {
      const res = await list({}, { limit: 2, ...(cursor ? { cursor } : {}) });
      paged.push(...res.body.items.map((l: any) => l.id));
      cursor = res.body.nextCursor ?? undefined;
    } while (cursor);
    assert.deepEqual(paged, [f, m, o]);

    assert.deepEqual(await ids({ form: 'loose' }), [f, m, o]);
    assert.deepEqual(await ids({ form: 'packaged' }), []);
    assert.deepEqual(await ids({ roastBatchId: mid.batch.id }), [m]);
    assert.deepEqual(await ids({ greenLotId: old.greenLot.id }), [o]);
    assert.deepEqual(await ids({ profileId: profile.id }), [o]);
    assert.deepEqual(await ids({ locationId }), [m]);
    assert.deepEqual(await ids({ hasStock: true }), [f, o]);
    assert.deepEqual(await ids({ hasStock: false }), [m]);
    assert.deepEqual(await ids({ roastedFrom: '2024-09-14' }), [f, m]);
    assert.deepEqual(await ids({ roastedTo: '2024-09-14' }), [m, o]);
    assert.deepEqual(await ids({ roastedFrom: '2024-09-15', roastedTo: '2026-02-20' }), []);
    assert.deepEqual(await ids({ q: 'r-eth' }), [f]);
    assert.equal((await list({ q: 'ETH-7' })).body.items[0].lotCode, 'R-ETH-7');

    assertProblem(await list({ freshness: 'high' }), 400, 'invalid_input', 'filter.freshness');
    assertProblem(await list({ roastedFrom: '14.09.2024' }), 400, 'invalid_input', 'filter.roastedFrom');
    assertProblem(await list({}, { cursor: 'abc' }), 400, 'invalid_cursor', 'page.cursor');
  });
});

describe('getRoastedLot cost', () => {
  const getLot = async (id: string) => {
    const res = await org.call('inventory.roast.getRoastedLot', { id });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body;
  };

  test('the landed cost of the green charged, over the roasted weight: roast loss priced in, exact to 4 decimals', async () => {
    // 7.85 EUR/kg at import plus 30.60 EUR freight on 69.3 kg: 574.605 / 69.3 = 8.2916 per kg (4 decimals).
    const green = await importLot(org, { weightKg: '69.3', unitCost: '7.85', currency: 'EUR' });
    const set = await org.call('inventory.green.setGreenLotCostComponents', {
      greenLotId: green.id,
      components: [{ bucket: 'price', amount: '7.85', currency: 'EUR', basis: 'per_kg' }, { bucket: 'freight', amount: '30.60', currency: 'EUR' }],
    });
    assert.equal(set.body.perKg, '8.2916');
    // Charged 9.721 kg, roasted to 7.777 kg: green cost 8.2916 × 9.721 = 80.6026436 → 80.6026; per kg 80.6026436 / 7.777 = 10.36423… → 10.3642.
    const roasted = await roastLot(org, { kg: '7.777', greenLotId: green.id });
    const lot = await getLot(roasted.roastedLotId);
    assert.deepEqual(lot.cost, {
      currency: 'EUR',
      greenCost: '80.6026',
      perKg: '10.3642',
      missing: null,
      greenInputs: [{ greenLotId: green.id, chargedKg: '9.721', landedCostPerKg: '8.2916', currency: 'EUR' }],
      rule: lot.cost.rule,
    });
    assert.match(lot.cost.rule, /landed cost per kg of each green lot .* \/ the lot’s roasted \(opening\) weight/);
  });

  test('a lot whose green has no landed cost says so (null and the reason), never 0', async () => {
    const green = await importLot(org, { weightKg: '20' });
    const roasted = await roastLot(org, { kg: '4', greenLotId: green.id });
    const { cost } = await getLot(roasted.roastedLotId);
    assert.deepEqual([cost.currency, cost.greenCost, cost.perKg, cost.missing], [null, null, null, 'green_not_costed']);
    assert.deepEqual(cost.greenInputs, [{ greenLotId: green.id, chargedKg: '5.000', landedCostPerKg: null, currency: null }]);
  });

  test('a blend is costed by its components; components in two currencies are not summed (mixed_currencies)', async () => {
    const base = await importLot(org, { weightKg: '50', unitCost: '6.00', currency: 'EUR' });
    const roasted = await roastLot(org, { kg: '8', greenLotId: base.id }); // charged 10 kg of the base
    // A second component charged into the same batch (as a blend's batch records it): 5 kg at 9.00 EUR.
    const second = await importLot(org, { weightKg: '50', unitCost: '9.00', currency: 'EUR' });
    await server.owner.query(
      `insert into lineage_edges (org_id, id, from_kind, from_id, to_kind, to_id, weight_kg, group_id) values ($1, 'lin_blendcomponent1', 'green_lot', $2, 'roast_batch', $3, 5, $3)`,
      [org.id, second.id, roasted.batchId],
    );
    // (10 × 6 + 5 × 9) / 8 = 105 / 8 = 13.125.
    const blend = (await getLot(roasted.roastedLotId)).cost;
    assert.deepEqual([blend.currency, blend.greenCost, blend.perKg, blend.missing, blend.greenInputs.length], ['EUR', '105.0000', '13.1250', null, 2]);
    const dollars = await importLot(org, { weightKg: '50', unitCost: '10.00', currency: 'USD' });
    await server.owner.query(
      `insert into lineage_edges (org_id, id, from_kind, from_id, to_kind, to_id, weight_kg, group_id) values ($1, 'lin_blendcomponent2', 'green_lot', $2, 'roast_batch', $3, 1, $3)`,
      [org.id, dollars.id, roasted.batchId],
    );
    const mixed = (await getLot(roasted.roastedLotId)).cost;
    assert.deepEqual([mixed.currency, mixed.greenCost, mixed.perKg, mixed.missing], [null, null, null, 'mixed_currencies']);
  });
});
