import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startTestServer, type TestOrg } from '../../../testing/harness.js';
import { makeLocation } from '../../catalog/location/tenancy.cases.js';
import { importLot } from '../green/testing.js';
import { makeProfile, refusedUnchanged, roastedLedgerViolations, unique } from '../../production/roast/testing.js';
import { assertProblem } from '../../../testing/problems.js';

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
