import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import QRCode from 'qrcode';
import { startTestServer, type TestOrg, type TestServer } from '../../testing/harness.js';
import { loadConfig } from '../../config.js';
import { assertProblem, assertRefusedWithout } from '../../testing/problems.js';
import { makeLocation } from '../catalog/location/tenancy.cases.js';
import { importLot } from '../inventory/green/testing.js';
import { roastLot } from '../orders/testing.js';
import { bridgeToken, makeProfile, makeRoaster, postCurve, startBatch, syntheticRoast } from '../production/roast/testing.js';
import { buildChain } from '../traceability/testing.js';
import { issueToken, makeMachine, makeSite, postShots, shot } from '../cafe/testing.js';
import type { ReportDocument } from './document.js';
import { csvRows, download, finished, generated, pdfText } from './testing.js';
import { OrganizationInputError, setOrganizationTimeZone } from '../../auth/organizations.js';

const server: TestServer = await startTestServer();
const org: TestOrg = await server.createOrg('enterprise', 'Kaffeerösterei Nord');

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const reportCount = async (orgId: string) => (await server.owner.query<{ n: number }>(`select count(*)::int as n from reports where org_id = $1`, [orgId]))[0].n;

async function setCost(lotId: string, components: Record<string, unknown>[]) {
  const res = await org.call('inventory.green.setGreenLotCostComponents', { greenLotId: lotId, components });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

/** The ledger's own sum of green kilograms before an instant, read as the owner: what the valuation must equal. */
async function greenLedgerKg(orgId: string, before: string): Promise<string> {
  const [row] = await server.owner.query<{ kg: string }>(
    `select coalesce(sum(delta_kg), 0)::numeric(14,3)::text as kg from green_lot_ledger where org_id = $1 and created_at < $2::timestamptz`,
    [orgId, before],
  );
  return row.kg;
}

describe('inventory_valuation', () => {
  let roasterySite: string;
  let warehouse: string;
  let beforeMoves: string;
  let g1: any;

  before(async () => {
    roasterySite = await makeLocation(org, 'ROASTERY');
    warehouse = await makeLocation(org, 'WH-1');
    // G1: 100 kg at the roastery for 500.00 EUR (5.0000 / kg); G2: 60 kg in the warehouse at 8.0000 / kg; G3: 10 kg unassigned, no cost.
    g1 = await importLot(org, { lotCode: 'ETH-GERBA', name: 'Ethiopia Gerba', weightKg: '100', locationId: roasterySite });
    const g2 = await importLot(org, { lotCode: 'COL-HUILA', name: 'Colombia Huila', weightKg: '60', locationId: warehouse });
    await importLot(org, { lotCode: 'BRA-CERRADO', name: 'Brazil Cerrado', weightKg: '10' });
    await setCost(g1.id, [{ bucket: 'price', amount: '400.00', currency: 'EUR', basis: 'total' }, { bucket: 'freight', amount: '100.00', currency: 'EUR', basis: 'total' }]);
    await setCost(g2.id, [{ bucket: 'price', amount: '8.00', currency: 'EUR', basis: 'per_kg' }]);
    await pause(20);
    beforeMoves = new Date().toISOString();
    await pause(20);
    // After that instant: 10 kg of G1 shrink, 20 kg of G2 move to the roastery, and 10 kg of G1 are roasted into 8 kg (20 % loss).
    assert.equal((await org.call('inventory.green.adjustGreenLotQuantity', { id: g1.id, deltaKg: '-10', reason: 'shrinkage', locationId: roasterySite })).status, 200);
    assert.equal((await org.call('inventory.green.transferGreenLotToLocation', { id: g2.id, fromLocationId: warehouse, toLocationId: roasterySite, weightKg: '20' })).status, 200);
    await roastLot(org, { kg: '8', greenLotId: g1.id });
  });

  test('today: green per location and roasted stock valued at landed cost; the PDF and CSV print the same totals', async () => {
    const report = await generated(org, { kind: 'inventory_valuation' });
    assert.equal(report.status, 'ready', JSON.stringify(report));
    // 80 kg G1 × 5 + 60 kg G2 × 8 + 8 kg roasted at 5 / 0.8 = 400 + 480 + 50.
    assert.equal(report.summary.greenKg, '150.000');
    assert.equal(report.summary.roastedKg, '8.000');
    assert.equal(report.summary.notCostedKg, '10.000');
    assert.deepEqual(report.summary.values, [{ currency: 'EUR', amount: '930.00' }]);
    assert.equal(report.summary.greenKg, await greenLedgerKg(org.id, report.parameters.before), 'the valuation equals the ledger sum at its instant');
    const byLocation = Object.fromEntries(report.summary.byLocation.map((l: any) => [l.locationId, l]));
    // The roasted lot is held where it was roasted: 80 × 5 + 20 × 8 + 50.
    assert.deepEqual([byLocation[roasterySite].greenKg, byLocation[roasterySite].roastedKg, byLocation[roasterySite].values[0].amount], ['100.000', '8.000', '610.00']);
    assert.deepEqual([byLocation[warehouse].greenKg, byLocation[warehouse].values[0].amount], ['40.000', '320.00']);

    const { pdf, csv } = await download(server, org, report.id);
    const text = pdfText(pdf);
    for (const expected of ['Kaffeerösterei Nord', 'Inventory valuation', 'Summary by location', 'ETH-GERBA', 'Unassigned', '930.00', '150.000', 'Page 1 of']) {
      assert.ok(text.includes(expected), `the PDF shows ${expected}:\n${text}`);
    }
    assert.match(text, /Total\s+150\.000\s+8\.000\s+930\.00\s+10\.000/, 'the totals row');
    const rows = csvRows(csv);
    assert.deepEqual(rows[0].slice(0, 3), ['stock', 'location_id', 'location_code']);
    const value = rows.slice(1).reduce((sum, r) => sum + Math.round(Number(r[11] || 0) * 100), 0);
    assert.equal(value, 93_000, 'the CSV values add up to the total');
    const green = rows.slice(1).filter((r) => r[0] === 'green').reduce((sum, r) => sum + Math.round(Number(r[7]) * 1000), 0);
    assert.equal(green, 150_000, 'the CSV green weights add up to the ledger');
    assert.ok(rows.some((r) => r[0] === 'roasted' && r[7] === '8.000' && r[10] === '20.00' && r[11] === '50.00'), 'the roasted lot at the cost of its green');
  });

  test('codes print on one line, quarantined lots are marked, times are in the organization’s time zone with its name', async () => {
    const south = await server.createOrg('enterprise', 'Rösterei Süd');
    await assert.rejects(setOrganizationTimeZone(server.owner, south.id, 'Mars/Olympus_Mons'), OrganizationInputError);
    assert.equal(await setOrganizationTimeZone(server.owner, south.id, 'Europe/Berlin'), true);
    const site = await makeLocation(south, 'HAMBURG-NORTH-ROASTERY');
    const held = await importLot(south, { lotCode: 'ETH-YIRGACHEFFE-2026-0042', name: 'Yirgacheffe Konga', weightKg: '60', locationId: site, unitCost: '7.85', currency: 'EUR' });
    await importLot(south, { lotCode: 'COL-HUILA-SAN-AGUSTIN-07', name: 'Huila San Agustin', weightKg: '40', locationId: site, unitCost: '6.50', currency: 'EUR' });
    const graded = await south.call('quality.grading.recordGrading', { greenLotId: held.id, standard: 'sca', defectsPrimary: 2, defectsSecondary: 5, moisturePct: 13.4, waterActivity: 0.58 });
    assert.equal(graded.status, 200, JSON.stringify(graded.body));
    const asOf = new Date().toISOString();
    const report = await generated(south, { kind: 'inventory_valuation', parameters: { asOf } });
    assert.equal(report.status, 'ready', JSON.stringify(report));
    // 60 × 7.85 + 40 × 6.50 = 471 + 260: a unit cost given at import is valued.
    assert.deepEqual([report.summary.values, report.summary.notCostedKg, report.summary.quarantinedKg], [[{ currency: 'EUR', amount: '731.00' }], '0.000', '60.000']);
    const { pdf, csv } = await download(server, south, report.id);
    const text = pdfText(pdf);
    // Each lot's row holds its location and lot codes whole, on one line; the quarantined one is marked (its name may wrap).
    const lines = text.split('\n');
    const row = (lotCode: string) => lines.findIndex((line) => line.includes(lotCode) && line.includes('HAMBURG-NORTH-ROASTERY'));
    const held_ = row('ETH-YIRGACHEFFE-2026-0042');
    const other = row('COL-HUILA-SAN-AGUSTIN-07');
    assert.match(lines[held_], /HAMBURG-NORTH-ROASTERY\s+ETH-YIRGACHEFFE-2026-0042\s+Yirgacheffe Konga\b.*\s60\.000\s+7\.8500 EUR\s+471\.00 EUR/, `the quarantined lot's row:\n${text}`);
    assert.match(`${lines[held_]} ${lines[held_ + 1]}`, /QUARANTINED/, `the quarantined lot is marked:\n${text}`);
    assert.match(lines[other], /HAMBURG-NORTH-ROASTERY\s+COL-HUILA-SAN-AGUSTIN-07\s+Huila San Agustin\s+40\.000\s+6\.5000 EUR\s+260\.00 EUR/, `the other lot's row:\n${text}`);
    assert.ok(!`${lines[other]} ${lines[other + 1]}`.includes('QUARANTINED'), 'a lot not in quarantine is not marked');
    assert.match(text, /Site HAMBURG-NORTH-ROASTERY \(HAMBURG-NORTH-ROASTERY\)\s+100\.000/, `the summary names the location on one line:\n${text}`);
    assert.match(text.replace(/\s+/g, ' '), /60\.000 kg of green coffee was in quarantine at this time \(ETH-YIRGACHEFFE-2026-0042;/, 'the notice says how much');
    const berlin = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', hour12: false, timeZone: 'Europe/Berlin' }).format(new Date(asOf));
    assert.match(text, new RegExp(`Stock at\\s+${berlin.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} Europe/Berlin`), `the instant in Berlin time, named:\n${text}`);
    assert.match(text, /Generated\s+\d{1,2} \w{3} \d{4}, \d{2}:\d{2} Europe\/Berlin/, 'the generation time too');
    assert.ok(!/ UTC\b/.test(text.replace('(UTC)', '')), `no instant prints in UTC:\n${text}`);
    const rows = csvRows(csv);
    assert.deepEqual(rows.slice(1).map((r) => [r[5], r[12]]).sort(), [['COL-HUILA-SAN-AGUSTIN-07', 'false'], ['ETH-YIRGACHEFFE-2026-0042', 'true']]);
  });

  test('at an instant before the moves: the ledger as it stood then, not today’s balances', async () => {
    const report = await generated(org, { kind: 'inventory_valuation', parameters: { asOf: beforeMoves } });
    assert.equal(report.status, 'ready', JSON.stringify(report));
    assert.equal(report.summary.greenKg, '170.000');
    assert.equal(report.summary.roastedKg, '0.000');
    assert.deepEqual(report.summary.values, [{ currency: 'EUR', amount: '980.00' }]);
    assert.equal(report.summary.greenKg, await greenLedgerKg(org.id, beforeMoves), 'the valuation equals the ledger sum at the chosen time');
    const text = pdfText((await download(server, org, report.id)).pdf);
    assert.match(text, /Total\s+170\.000\s+0\.000\s+980\.00\s+10\.000/, `the totals row:\n${text}`);
  });

  test('only some locations; a day means the end of that day', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const report = await generated(org, { kind: 'inventory_valuation', parameters: { asOf: today, locationIds: [warehouse] } });
    assert.equal(report.summary.greenKg, '40.000');
    assert.deepEqual(report.summary.values, [{ currency: 'EUR', amount: '320.00' }]);
  });
});

describe('production_summary', () => {
  test('batches, green used, roasted, loss and DTR per profile and machine', async () => {
    const other = await server.createOrg('enterprise', 'Summit Roasters');
    const house = await makeProfile(other, { name: 'House espresso', code: 'HOUSE' });
    const machine = await makeRoaster(other, { name: 'Probat P12', code: 'P12' });
    const token = await bridgeToken(other, machine.id);
    // Two live batches with telemetry (DTR 20 %) and one imported logger roast without a machine.
    // The first live batch and the imported one roast costed green; the second live batch names no green lot (no roasted lot, no cost).
    const costlyGreen = await importLot(other, { weightKg: '50', unitCost: '7.85', currency: 'EUR' });
    const cheapGreen = await importLot(other, { weightKg: '50', unitCost: '6.40', currency: 'EUR' });
    for (const [drop, greenLotId] of [['8.500', costlyGreen.id], ['8.000', undefined]] as const) {
      const batch = await startBatch(other, { machineId: machine.id, chargeWeightKg: '10', profileId: house.id, ...(greenLotId ? { greenLotId } : {}) });
      await postCurve(server, token, batch.id, syntheticRoast());
      const done = await other.call('production.roast.completeRoastBatch', { id: batch.id, dropWeightKg: drop });
      assert.equal(done.status, 200, JSON.stringify(done.body));
    }
    const imported = await roastLot(other, { kg: '4', profileId: house.id, greenLotId: cheapGreen.id });
    // The DTRs the batches were given at completion (the imported log's own, if it has one).
    const importedDtr = (await other.call('production.roast.getRoastBatch', { id: imported.batchId })).body.metrics?.developmentTimeRatioPct ?? null;
    const dtrs = [20, 20, ...(importedDtr === null ? [] : [importedDtr])];
    const dtrMean = (dtrs.reduce((a, b) => a + b, 0) / dtrs.length).toFixed(1);
    const today = new Date().toISOString().slice(0, 10);
    const report = await generated(other, { kind: 'production_summary', parameters: { from: today, to: today } });
    assert.equal(report.status, 'ready', JSON.stringify(report));
    // Charge 10 + 10 + 5, drop 8.5 + 8 + 4: loss (25 − 20.5) / 25 = 18 %.
    assert.equal(report.summary.batches, 3);
    assert.equal(report.summary.greenConsumedKg, '25.000');
    assert.equal(report.summary.roastedProducedKg, '20.500');
    assert.equal(report.summary.weightLossPct, '18.00');
    assert.equal(report.summary.dtr.n, dtrs.length);
    assert.equal(report.summary.dtr.mean, dtrMean);
    // 10 kg at 7.85 roasted to 8.5 kg (78.50, 9.2353 / kg) and 5 kg at 6.40 to 4 kg (32.00, 8.0000 / kg): 110.50 / 12.5 kg = 8.8400.
    assert.deepEqual(report.summary.cost, [{ currency: 'EUR', batches: 2, greenCost: '110.5000', roastedKg: '12.500', perKg: '8.8400' }]);
    assert.equal(report.summary.notCostedBatches, 1);

    const { pdf, csv } = await download(server, other, report.id);
    const text = pdfText(pdf);
    for (const expected of ['Summit Roasters', 'Production summary', 'By profile', 'By machine', 'House espresso (HOUSE)', 'Probat P12 (P12)', 'Page 1 of']) {
      assert.ok(text.includes(expected), `the PDF shows ${expected}:\n${text}`);
    }
    assert.match(text, new RegExp(`Total\\s+3\\s+25\\.000\\s+20\\.500\\s+18\\.00\\s+${dtrMean.replace('.', '\\.')}`), `the totals row:\n${text}`);
    assert.match(text, /Probat P12 \(P12\)\s+2\s+20\.000\s+16\.500\s+17\.50\s+20\.0/, 'the machine row');
    const rows = csvRows(csv);
    assert.equal(rows.length, 4, 'a header and one row per batch');
    assert.deepEqual(rows.slice(1).map((r) => r[9]).sort(), ['15.00', '20.00', '20.00']);
    assert.deepEqual(rows.slice(1).map((r) => [r[12], r[13], r[14], r[15]]).sort(), [['', '', '', 'no_green_input'], ['EUR', '32.0000', '8.0000', ''], ['EUR', '78.5000', '9.2353', '']]);
    assert.match(text, /9\.2353 EUR/, 'the batch row shows its cost per roasted kg');
    assert.match(text, /EUR\s+2\s+110\.5000\s+12\.5 kg|EUR\s+2\s+110\.5000\s+12\.500\s+8\.8400/, `the cost table:\n${text}`);
    assert.match(text.replace(/\s+/g, ' '), /Cost Per batch, its roasted lot's cost per kg, where green cost = the current landed cost per kg/, 'the rule is stated');
  });

  test('a range without batches renders, saying so', async () => {
    const report = await generated(org, { kind: 'production_summary', parameters: { from: '2020-01-01', to: '2020-01-31' } });
    assert.equal(report.status, 'ready');
    assert.equal(report.summary.batches, 0);
    assert.ok(pdfText((await download(server, org, report.id)).pdf).includes('No batch was completed in this range.'), 'the empty table says so');
  });
});

describe('traceability_certificate', () => {
  test('the certificate’s frozen chain, its token and a QR code of its public page', async () => {
    const chain = await buildChain(org);
    const issued = await org.call('traceability.issueCertificate', { roastedLotId: chain.firstRoast.roastedLotId, orderLineId: chain.nordShipment.lineId });
    assert.equal(issued.status, 200, JSON.stringify(issued.body));
    const report = await generated(org, { kind: 'traceability_certificate', parameters: { roastedLotId: chain.firstRoast.roastedLotId, publicBaseUrl: 'https://roast.example.com' } });
    assert.equal(report.status, 'ready', JSON.stringify(report));
    assert.equal(report.parameters.certificateId, issued.body.id);
    assert.equal(report.summary.verifyUrl, `https://roast.example.com/c/${issued.body.token}`);
    const { pdf, csv } = await download(server, org, report.id);
    const text = pdfText(pdf);
    for (const expected of ['Traceability certificate', chain.firstRoast.lotCode, 'Gerba Cooperative', 'Ethiopia Gerba', issued.body.token, 'Café Nord', 'Chain of custody']) {
      assert.ok(text.includes(expected), `the PDF shows ${expected}:\n${text}`);
    }
    const rows = csvRows(csv);
    assert.ok(rows.some((r) => r[0] === 'producer' && r[3] === 'Gerba Cooperative'), 'the CSV lists the producer');
    // A token may start with '-' (base64url), which the CSV guards against formula injection with a leading quote.
    assert.ok(rows.some((r) => r[0] === 'certificate' && r[2].replace(/^'(?=-)/, '') === issued.body.token), 'the CSV carries the token');
  });

  test('a lot without a certificate is a 404 naming the parameter', async () => {
    const lot = await roastLot(org, { kg: '2' });
    await assertRefusedWithout(() => reportCount(org.id), () => org.call('reporting.generateReport', { kind: 'traceability_certificate', parameters: { roastedLotId: lot.roastedLotId } }), 404, 'not_found', 'parameters.roastedLotId');
  });
});

describe('quality_summary', () => {
  test('a range without cuppings, gradings or quarantines renders its three sections, saying so', async () => {
    const quiet = await server.createOrg('enterprise', 'Quiet roastery');
    const report = await generated(quiet, { kind: 'quality_summary', parameters: { from: '2026-11-01', to: '2026-11-24' } });
    assert.equal(report.status, 'ready', JSON.stringify(report));
    assert.deepEqual(report.summary, {
      cupping: { coffees: 0, meanOfMeans: null },
      gradings: { total: 0, passed: 0, failed: 0, notJudged: 0 },
      quarantines: { started: 0, released: 0, inQuarantineNow: 0 },
    });
    const text = pdfText((await download(server, quiet, report.id)).pdf).replace(/\s+/g, ' ');
    for (const expected of ['Quality summary', 'Cupping results', 'Physical gradings', 'Quarantines', 'No cupping session was finalized in this range.', 'Page 1 of']) {
      assert.ok(text.includes(expected), `the PDF shows ${expected}: ${text}`);
    }
  });
});

describe('cafe_performance', () => {
  test('per site from the hourly rollups: shots, sale shot-equivalents and variance, with totals', async () => {
    const cafeOrg = await server.createOrg('enterprise', 'Bar Nord');
    const siteId = await makeSite(cafeOrg, { name: 'Hafenbar', code: 'HAFEN', timezone: 'America/New_York' });
    const quiet = await makeSite(cafeOrg, { name: 'Quiet corner', code: 'QUIET' });
    const machineId = await makeMachine(cafeOrg, siteId, { groupCount: 2 });
    const token = await issueToken(cafeOrg, machineId);
    const posted = await postShots(server.url, token, machineId, {
      shots: [
        shot({ group: 1, startedAt: '2026-11-20T13:10:00Z' }),
        shot({ group: 1, startedAt: '2026-11-20T13:20:00Z', durationS: 45 }),
        shot({ group: 2, startedAt: '2026-11-21T03:30:00Z' }),
        shot({ group: 2, startedAt: '2026-11-21T14:00:00Z' }),
      ],
    });
    assert.ok(posted.status < 300, JSON.stringify(posted.body));
    const sale = (posLineId: string, soldAt: string, shotEquivalents: number) => ({ posLineId, soldAt, item: 'Double espresso', quantity: 1, shotEquivalents });
    assert.equal((await cafeOrg.call('cafe.importPosSales', { siteId, lines: [sale('P1', '2026-11-20T13:15:00Z', 2), sale('P2', '2026-11-21T14:05:00Z', 1)] })).status, 200);

    const report = await generated(cafeOrg, { kind: 'cafe_performance', parameters: { from: '2026-11-20', to: '2026-11-22' } });
    assert.equal(report.status, 'ready', JSON.stringify(report));
    assert.deepEqual(report.summary, { sites: 2, shots: 4, outsideTargetShots: 1, saleShotEquivalents: 3, variance: 1 });
    const { pdf, csv } = await download(server, cafeOrg, report.id);
    const text = pdfText(pdf);
    for (const expected of ['Bar Nord', 'Cafe performance', 'By site', 'Hafenbar (HAFEN) by day', 'Page 1 of']) {
      assert.ok(text.includes(expected), `the PDF shows ${expected}:\n${text}`);
    }
    assert.match(text, /Hafenbar \(HAFEN\)\s+4\s+1\s+25\.0 %\s+0\s+3\s+1/, `the site row:\n${text}`);
    // A site without any POS sale sold 0, in its row and its day table's total alike.
    assert.match(text, /Quiet corner \(QUIET\)\s+0\s+0\s+0\.0 %\s+0\s+0\s+0/, `the quiet site's row:\n${text}`);
    assert.ok(!/\bnull\b/.test(text), `no figure prints null:\n${text}`);
    const rows = csvRows(csv);
    assert.deepEqual(rows.filter((r) => r[0] === siteId).map((r) => [r[3], r[4], r[8], r[9]]), [['2026-11-20', '3', '2', '1'], ['2026-11-21', '1', '1', '0'], ['2026-11-22', '0', '0', '0']]);

    const one = await generated(cafeOrg, { kind: 'cafe_performance', parameters: { from: '2026-11-20', to: '2026-11-22', siteIds: [quiet] } });
    assert.deepEqual(one.summary, { sites: 1, shots: 0, outsideTargetShots: 0, saleShotEquivalents: 0, variance: 0 });
    assertProblem(await cafeOrg.call('reporting.generateReport', { kind: 'cafe_performance', parameters: { from: '2026-11-20', to: '2026-11-22', siteIds: ['cs_nothere'] } }), 404, 'not_found', 'parameters.siteIds[0]');
  });
});

describe('parameters', () => {
  const refused = (input: Record<string, unknown>, status: number, code: string, path: string) =>
    assertRefusedWithout(() => reportCount(org.id), () => org.call('reporting.generateReport', input), status, code, path);

  test('unknown, missing and malformed parameters are 400 naming the field; nothing is stored', async () => {
    await refused({ kind: 'inventory_valuation', parameters: { at: '2026-01-01' } }, 400, 'invalid_input', 'parameters.at');
    await refused({ kind: 'inventory_valuation', parameters: { asOf: 'yesterday' } }, 400, 'invalid_input', 'parameters.asOf');
    await refused({ kind: 'inventory_valuation', parameters: { asOf: '2999-01-01' } }, 400, 'invalid_input', 'parameters.asOf');
    await refused({ kind: 'production_summary', parameters: { to: '2026-01-01' } }, 400, 'invalid_input', 'parameters.from');
    await refused({ kind: 'production_summary', parameters: { from: '2026-02-01', to: '2026-01-01' } }, 400, 'invalid_input', 'parameters.to');
    await refused({ kind: 'quality_summary' }, 400, 'invalid_input', 'parameters.from');
    await refused({ kind: 'traceability_certificate', parameters: {} }, 400, 'invalid_input', 'parameters.certificateId');
    await refused({ kind: 'traceability_certificate', parameters: { certificateId: 'cert_nothere', publicBaseUrl: 'ftp://x' } }, 400, 'invalid_input', 'parameters.publicBaseUrl');
    await refused({ kind: 'payroll' }, 400, 'invalid_input', 'kind');
    await refused({ kind: 'inventory_valuation', parameters: [] }, 400, 'invalid_input', 'parameters');
  });

  test('records that do not exist are 404 naming the parameter', async () => {
    await refused({ kind: 'inventory_valuation', parameters: { locationIds: ['loc_nothere'] } }, 404, 'not_found', 'parameters.locationIds[0]');
    await refused({ kind: 'production_summary', parameters: { from: '2026-01-01', to: '2026-01-02', locationId: 'loc_nothere' } }, 404, 'not_found', 'parameters.locationId');
    await refused({ kind: 'traceability_certificate', parameters: { certificateId: 'cert_nothere' } }, 404, 'not_found', 'parameters.certificateId');
  });
});

describe('download links', () => {
  let reportId: string;
  before(async () => {
    reportId = (await generated(org, { kind: 'quality_summary', title: 'Links', parameters: { from: '2026-11-01', to: '2026-11-02' } })).id;
  });

  test('work without a credential; an altered link is 403, whichever part was altered', async () => {
    const links = await org.call('reporting.getDownloadUrl', { id: reportId, expiresInSeconds: 120 });
    assert.equal(links.status, 200, JSON.stringify(links.body));
    assert.equal(links.body.signedBy, 'service');
    assert.ok(Date.parse(links.body.expiresAt) - Date.now() <= 120_000, 'expires within the asked lifetime');
    const ok = await server.request(links.body.pdfUrl);
    assert.equal(ok.status, 200);
    assert.equal(Buffer.from(await ok.arrayBuffer()).subarray(0, 5).toString(), '%PDF-');
    assert.match(ok.headers.get('content-disposition') ?? '', /attachment; filename="Links-rpt_/);
    const url = new URL(links.body.pdfUrl, server.url);
    const altered = (name: string, value: string) => {
      const copy = new URL(url);
      copy.searchParams.set(name, value);
      return copy.pathname + copy.search;
    };
    const other = await server.createOrg();
    for (const path of [
      altered('sig', url.searchParams.get('sig')!.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'))),
      altered('expires', String(Number(url.searchParams.get('expires')) + 3600)),
      altered('org', other.id),
      altered('v', '2'),
      url.pathname.replace('.pdf', '.csv') + url.search, // the PDF's signature does not open the CSV
      url.pathname,
    ]) {
      const res = await server.request(path);
      assert.equal(res.status, 403, path);
      assert.equal((await res.json()).code, 'link_invalid');
    }
  });

  test('an expired link is 410', async () => {
    const links = await org.call('reporting.getDownloadUrl', { id: reportId, expiresInSeconds: 1 });
    assert.equal(links.status, 200);
    await pause(Math.max(0, Date.parse(links.body.expiresAt) - Date.now()) + 50);
    const res = await server.request(links.body.csvUrl);
    assert.equal(res.status, 410);
    assert.equal((await res.json()).code, 'link_expired');
  });

  test('lifetime bounds, and a report that is not ready is 409', async () => {
    assertProblem(await org.call('reporting.getDownloadUrl', { id: reportId, expiresInSeconds: 0 }), 400, 'invalid_input', 'expiresInSeconds');
    assertProblem(await org.call('reporting.getDownloadUrl', { id: reportId, expiresInSeconds: 7 * 24 * 3600 + 1 }), 400, 'invalid_input', 'expiresInSeconds');
    assert.equal((await org.call('reporting.getDownloadUrl', { id: reportId, expiresInSeconds: 7 * 24 * 3600 })).status, 200);
    // A report still waiting for the worker, written as the job queue would find it.
    const [queued] = await server.owner.query<{ id: string }>(
      `insert into reports (org_id, id, kind, title, parameters, credential_id) values ($1, 'rpt_waiting01', 'quality_summary', 'Waiting', '{}', 'key_test') returning id`,
      [org.id],
    );
    assertProblem(await org.call('reporting.getDownloadUrl', { id: queued.id }), 409, 'report_not_ready');
    assertProblem(await org.call('reporting.getDownloadUrl', { id: 'rpt_nothere' }), 404, 'not_found', 'id');
  });
});

describe('listReports', () => {
  test('newest first, filtered by kind and status, paged', async () => {
    const a = await generated(org, { kind: 'cafe_performance', title: 'First', parameters: { from: '2026-11-01', to: '2026-11-02' } });
    const b = await generated(org, { kind: 'cafe_performance', title: 'Second', parameters: { from: '2026-11-01', to: '2026-11-02' } });
    const first = await org.call('reporting.listReports', { filter: { kind: 'cafe_performance', status: 'ready' }, page: { limit: 1 } }, { method: 'GET' });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.deepEqual(first.body.items.map((r: any) => r.id), [b.id]);
    const next = await org.call('reporting.listReports', { filter: { kind: 'cafe_performance', status: 'ready' }, page: { limit: 5, cursor: first.body.nextCursor } }, { method: 'GET' });
    assert.ok(next.body.items.some((r: any) => r.id === a.id), 'the second page holds the older report');
    const failed = await org.call('reporting.listReports', { filter: { status: 'failed' } });
    assert.deepEqual(failed.body.items, []);
    assertProblem(await org.call('reporting.listReports', { filter: { owner: 'me' } }), 400, 'invalid_input', 'filter.owner');
  });
});

test('a report whose job dies for good is failed with a reason a person can act on', async () => {
  // Retries exhausted: the render runs as the final retry against a report whose stored parameters no longer make sense.
  const { renderReport } = await import('./render.js');
  await server.owner.query(
    `insert into reports (org_id, id, kind, title, parameters, credential_id) values ($1, 'rpt_broken01', 'traceability_certificate', 'Broken', '{"certificateId":"cert_gone"}', 'key_test')`,
    [org.id],
  );
  const log = { info() {}, warn() {}, error() {} };
  await renderReport(
    { databases: server.app.databases, blobs: server.app.services.blobs, log, jobId: 'test', retryCount: 2, signal: new AbortController().signal, config: loadConfig(), jobs: server.app.services.jobs },
    { orgId: org.id, reportId: 'rpt_broken01' },
  );
  const report = await finished(org, 'rpt_broken01');
  assert.equal(report.status, 'failed');
  assert.match(report.failureReason, /Generate the report again/);
});

test('a report reads one snapshot: repeatable read, read only; a write committed meanwhile is not seen', async () => {
  const { service, owner } = server.app.databases;
  await service.transaction(
    async (tx) => {
      const [setting] = await tx.query<{ isolation: string; readOnly: string }>(`select current_setting('transaction_isolation') as isolation, current_setting('transaction_read_only') as "readOnly"`);
      assert.deepEqual(setting, { isolation: 'repeatable read', readOnly: 'on' });
      const count = async () => (await tx.query<{ n: number }>(`select count(*)::int as n from reports where org_id = $1`, [org.id]))[0].n;
      const first = await count();
      // Another connection commits a report while the snapshot is open (PGlite has one connection: nothing can).
      if (server.kind === 'postgres') {
        await owner.query(`insert into reports (org_id, id, kind, title, parameters, credential_id) values ($1, 'rpt_meanwhile01', 'quality_summary', 'Meanwhile', '{}', 'key_test')`, [org.id]);
      }
      assert.equal(await count(), first, 'the snapshot does not move');
    },
    { orgId: org.id, snapshot: true },
  );
});

test('the files render on a worker thread: a QR code crosses into it intact; what the render throws there rejects with its message', async () => {
  const { offThread } = await import('../../lib/off-thread.js');
  const render = offThread<ReportDocument, { pdf: Uint8Array; csv: Uint8Array }>(import.meta.url, './render-task');
  const document = (png: Buffer): ReportDocument => ({
    organizationName: 'Worker roastery',
    title: 'Rendered apart',
    subtitle: 'On a thread of its own',
    reportId: 'rpt_worker01',
    generatedAt: new Date().toISOString(),
    timeZone: 'UTC',
    parameters: [['Lot', 'R-1']],
    notices: [],
    blocks: [{ type: 'qr', heading: 'Verify', png, caption: ['https://roast.example.com/c/x'] }],
    csv: { columns: ['a', 'b'], rows: [['=1+1', 2]] },
    summary: {},
  });
  const files = await render(document(await QRCode.toBuffer('https://roast.example.com/c/x', { type: 'png' })));
  const pdf = Buffer.from(files.pdf);
  assert.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-');
  assert.match(pdfText(pdf), /Rendered apart[\s\S]*Verify[\s\S]*roast\.example\.com\/c\/x/);
  assert.equal(Buffer.from(files.csv).toString('utf8'), "\uFEFFa,b\r\n'=1+1,2\r\n");
  await assert.rejects(render(document(Buffer.from('not a png'))), /Unknown image format/);
});

test('a render whose worker died is taken up again once its lease runs out and finishes once; after 3 attempts the report fails; a live lease is left alone', async () => {
  const { sweepReports, LEASE_SECONDS } = await import('./render.js');
  const repo = await import('./repository.js');
  const log = { info() {}, warn() {}, error() {} };
  const ctx = { databases: server.app.databases, blobs: server.app.services.blobs, log, jobId: 'test', retryCount: 0, signal: new AbortController().signal, config: loadConfig(), jobs: server.app.services.jobs };
  const model = await generated(org, { kind: 'inventory_valuation' });
  // What a worker killed mid-render leaves: rendering under its lease, which then runs out.
  const insert = (id: string, attempts: number, lease: string) =>
    server.owner.query(
      `insert into reports (org_id, id, kind, title, parameters, credential_id, status, started_at, lease_token, lease_expires_at, attempts)
       select org_id, $2, kind, 'Died', parameters, credential_id, 'rendering', now(), 'dead-worker', now() + $3::interval, $4 from reports where org_id = $1 and id = $5`,
      [org.id, id, lease, attempts, model.id],
    );
  await insert('rpt_died0001', 1, '-1 second');
  await insert('rpt_died0003', 3, '-1 second');
  await insert('rpt_alive001', 1, `${LEASE_SECONDS} seconds`);
  // The dead attempt's lease is not taken by a new render while it holds.
  assert.equal(await server.app.databases.service.transaction((tx) => repo.startRendering(tx, org.id, 'rpt_alive001', 'another', LEASE_SECONDS), { orgId: org.id }), undefined);

  const swept = await sweepReports(ctx);
  assert.deepEqual(swept, { requeued: 1, failed: 1 });
  const again = await finished(org, 'rpt_died0001');
  assert.equal(again.status, 'ready', JSON.stringify(again));
  const [row] = await server.owner.query<{ attempts: number; lease_token: string | null }>(`select attempts, lease_token from reports where org_id = $1 and id = 'rpt_died0001'`, [org.id]);
  assert.deepEqual(row, { attempts: 2, lease_token: null });
  // The dead attempt, had it come back, could not mark it ready a second time.
  const late = await server.app.databases.service.transaction(
    (tx) => repo.markReady(tx, org.id, 'rpt_died0001', 'dead-worker', { pdfKey: 'x', pdfBytes: 1, csvKey: 'y', csvBytes: 1, summary: {} }),
    { orgId: org.id },
  );
  assert.equal(late, false);
  const gaveUp = await finished(org, 'rpt_died0003');
  assert.equal(gaveUp.status, 'failed');
  assert.match(gaveUp.failureReason, /stopped 3 times/);
  assert.equal((await org.call('reporting.getReport', { id: 'rpt_alive001' })).body.status, 'rendering', 'a live lease is left alone');
  assert.deepEqual(await sweepReports(ctx), { requeued: 0, failed: 0 }, 'nothing else is stalled');
  await server.owner.query(`update reports set status = 'failed', failure_reason = 'test', lease_token = null where org_id = $1 and id = 'rpt_alive001'`, [org.id]);
});
