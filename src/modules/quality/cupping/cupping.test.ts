import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestOrg, type TestServer } from '../../../testing/harness.js';
import { assertProblem } from '../../../testing/problems.js';
import { importLot } from '../../inventory/green/testing.js';
import { roastLot } from '../../orders/testing.js';
import { makeSample } from '../../sourcing/sample/testing.js';
import { BLIND_CODE_ALPHABET, blindCodes } from './blind-codes.js';
import { publishedCupping } from './service.js';
import { assertRefusedUnchanged, createSession, form, score, uniqueNumber } from './testing.js';

const server: TestServer = await startTestServer();
const org: TestOrg = await server.createOrg();
const other: TestOrg = await server.createOrg();

const call = (operation: string, input: unknown) => org.call(`quality.cupping.${operation}`, input);
const refused = (operation: string, input: unknown, status: number, code: string, path?: string) =>
  assertRefusedUnchanged(server.owner, org, () => call(operation, input), status, code, path);

async function table(sessionId: string, cupperName?: string) {
  const res = await call('getCuppingTable', { sessionId, ...(cupperName ? { cupperName } : {}) });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

async function finalize(sessionId: string) {
  const res = await call('finalizeCuppingSession', { sessionId });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

async function events(type: string): Promise<any[]> {
  const rows = await server.owner.query<{ data: any }>(`select data from events where org_id = $1 and type = $2 order by id`, [org.id, type]);
  return rows.map((r) => r.data);
}

test('blind codes: a seeded shuffle, the same for the same session, short and unambiguous, another order for another session', () => {
  const codes = blindCodes('cs_0123456789abcdefghjkmnpqrs', 12);
  assert.deepEqual(blindCodes('cs_0123456789abcdefghjkmnpqrs', 12), codes, 'the same session id yields the same codes');
  assert.equal(new Set(codes).size, 12, 'codes are distinct');
  for (const code of codes) {
    assert.match(code, /^[A-Z2-9]{3}$/);
    assert.ok(![...code].some((c) => '0O1IL'.includes(c)), `${code} has no ambiguous symbol`);
    assert.ok([...code].every((c) => BLIND_CODE_ALPHABET.includes(c)), `${code} is drawn from the alphabet`);
  }
  // Another session deals the coffees another way: the order of the codes differs.
  const orderOf = (list: string[]) => list.map((c) => [...list].sort().indexOf(c)).join(',');
  const orders = new Set(Array.from({ length: 8 }, (_, i) => orderOf(blindCodes(`cs_session${i}`, 12))));
  assert.ok(orders.size >= 7, `eight sessions dealt ${orders.size} distinct orders`);
  assert.notDeepEqual(blindCodes('cs_other', 12), codes, 'another session yields other codes');
});

test('createCuppingSession: coffees by reference or name, codes seeded by the session id, identities as the records read', async () => {
  const green = await importLot(org, { name: 'Kochere Natural', lotCode: uniqueNumber('ETH') });
  const roasted = await roastLot(org, { kg: '4' });
  const offer = await makeSample(org, { name: 'Pre-shipment Nariño', sampleType: 'pre_shipment' });
  const created = await createSession(org, {
    mode: 'blind',
    scheduledAt: '2026-11-26T09:00:00Z',
    samples: [
      { kind: 'green_lot', id: green.id },
      { kind: 'roast_batch', id: roasted.batchId },
      { kind: 'roasted_lot', id: roasted.roastedLotId },
      { kind: 'outside', name: 'Competitor Kenya AA' },
      { kind: 'sample', id: offer.id },
    ],
  });
  assert.match(created.session.id, /^cup_/, 'cupping sessions have their own prefix (cs_ is the cafe site’s)');
  assert.deepEqual(
    { mode: created.session.mode, status: created.session.status, sampleCount: created.session.sampleCount, scheduledAt: created.session.scheduledAt },
    { mode: 'blind', status: 'open', sampleCount: 5, scheduledAt: '2026-11-26T09:00:00.000Z' },
  );
  assert.deepEqual(created.samples.map((s: any) => s.blindCode), blindCodes(created.session.id, 5), 'codes are those seeded by the session id');
  assert.deepEqual(
    created.samples.map((s: any) => [s.identity.position, s.identity.kind, s.identity.id, s.identity.code, s.identity.name]),
    [
      [1, 'green_lot', green.id, green.lotCode, 'Kochere Natural'],
      [2, 'roast_batch', roasted.batchId, (await server.owner.query<{ batch_number: string }>(`select batch_number from roast_batches where id = $1`, [roasted.batchId]))[0].batch_number, null],
      [3, 'roasted_lot', roasted.roastedLotId, roasted.lotCode, null],
      [4, 'outside', null, null, 'Competitor Kenya AA'],
      [5, 'sample', offer.id, offer.sampleNumber, 'Pre-shipment Nariño'],
    ],
  );
  const [event] = (await events('quality.cupping.session_created')).filter((e) => e.session.id === created.session.id);
  assert.ok(event && !JSON.stringify(event).includes(green.id), 'the created event carries the session, not the organizer’s key');
});

test('createCuppingSession refuses unknown or foreign records, repeats, taken numbers and samples, changing nothing', async () => {
  const foreign = await importLot(other);
  const own = await importLot(org);
  await refused('createCuppingSession', { sessionNumber: 'X1', name: 'x', samples: [{ kind: 'outside', name: 'A' }, { kind: 'green_lot', id: foreign.id }] }, 404, 'not_found', 'samples[1].id');
  await refused('createCuppingSession', { sessionNumber: 'X1', name: 'x', samples: [{ kind: 'roasted_lot', id: 'rl_0000000000nothing' }] }, 404, 'not_found', 'samples[0].id');
  await refused('createCuppingSession', { sessionNumber: 'X1', name: 'x', samples: [{ kind: 'green_lot', id: own.id }, { kind: 'green_lot', id: own.id }] }, 400, 'invalid_input', 'samples[1]');
  await refused('createCuppingSession', { sessionNumber: 'X1', name: 'x', samples: [] }, 400, 'invalid_input', 'samples');
  await refused('createCuppingSession', { sessionNumber: 'X1', name: 'x', mode: 'triple_blind', samples: [{ kind: 'outside', name: 'A' }] }, 400, 'invalid_input', 'mode');
  const foreignSample = await makeSample(other);
  await refused('createCuppingSession', { sessionNumber: 'X1', name: 'x', samples: [{ kind: 'sample', id: foreignSample.id }] }, 404, 'not_found', 'samples[0].id');
  await createSession(org, { sessionNumber: 'TAKEN-1', samples: [{ kind: 'outside', name: 'A' }] });
  await refused('createCuppingSession', { sessionNumber: 'TAKEN-1', name: 'x', samples: [{ kind: 'outside', name: 'A' }] }, 409, 'duplicate', 'sessionNumber');
});

test('submitCuppingScore: quarter points 6.00–10.00, per-cup attributes 2 a cup, else 400 naming it; totals; a cupper’s second form replaces the first', async () => {
  const created = await createSession(org, { samples: [{ kind: 'outside', name: 'House espresso' }] });
  const sessionSampleId = created.samples[0].sessionSampleId;
  for (const [attribute, value] of [
    ['flavor', 6.3], ['acidity', 10.25], ['body', 5.75], ['overall', 6.1], ['sweetness', 11],
    ['uniformity', 9.25], ['cleanCup', 7], ['sweetness', -2], ['uniformity', 12], ['cleanCup', 7.5],
  ] as const) {
    await refused('submitCuppingScore', { sessionSampleId, cupperName: 'Ana', scores: form(7.5, { [attribute]: value }) }, 400, 'invalid_input', `scores.${attribute}`);
  }
  const { cleanCup: _omitted, ...incomplete } = form();
  await refused('submitCuppingScore', { sessionSampleId, cupperName: 'Ana', scores: incomplete }, 400, 'invalid_input', 'scores.cleanCup');
  await refused('submitCuppingScore', { sessionSampleId, cupperName: 'Ana', scores: { ...form(), crema: 8 } }, 400, 'invalid_input', 'scores.crema');
  for (const defectsPenalty of [2.1, 2.25, 3, 14, 18, 22]) {
    await refused('submitCuppingScore', { sessionSampleId, cupperName: 'Ana', scores: form(), defectsPenalty }, 400, 'invalid_input', 'defectsPenalty');
  }
  await refused('submitCuppingScore', { sessionSampleId, cupperName: 'Ana', scores: form(), defects: { cups: 6, intensity: 2 } }, 400, 'invalid_input', 'defects.cups');
  await refused('submitCuppingScore', { sessionSampleId, cupperName: 'Ana', scores: form(), defects: { cups: 1, intensity: 3 } }, 400, 'invalid_input', 'defects.intensity');
  await refused('submitCuppingScore', { sessionSampleId, cupperName: 'Ana', scores: form(), defects: { cups: 1, intensity: 2 }, defectsPenalty: 2 }, 400, 'invalid_input', 'defects');
  await refused('submitCuppingScore', { sessionSampleId: 'css_0000000000nothing', cupperName: 'Ana', scores: form() }, 404, 'not_found', 'sessionSampleId');

  // Uniformity 4 (two cups of five passed), clean cup 8, sweetness 10; one cup with a taint (1 × 2).
  const first = await score(org, {
    sessionSampleId, cupperName: 'Ana', scores: form(6, { flavor: 6.25, overall: 10, uniformity: 4, cleanCup: 8 }), defectsPenalty: 2, descriptors: ['cocoa'], notes: 'first pass',
  });
  assert.equal(first.totalScore, 6 * 5 + 6.25 + 10 + 4 + 8 + 10);
  assert.equal(first.finalScore, first.totalScore - 2);
  // Two cups with a fault: 2 × 4 = 8.
  const faulty = await score(org, { sessionSampleId, cupperName: 'Ana', scores: form(6, { uniformity: 0, cleanCup: 0, sweetness: 0 }), defects: { cups: 2, intensity: 4 } });
  assert.deepEqual([faulty.totalScore, faulty.defectsPenalty, faulty.finalScore], [42, 8, 34]);
  assert.deepEqual({ replaced: first.replaced, revision: first.revision, blindCode: first.blindCode }, { replaced: false, revision: 1, blindCode: created.samples[0].blindCode });
  const second = await score(org, { sessionSampleId, cupperName: '  ana ', scores: form(8) });
  assert.deepEqual(
    { id: second.id, replaced: second.replaced, revision: second.revision, totalScore: second.totalScore, defectsPenalty: second.defectsPenalty, notes: second.notes },
    { id: first.id, replaced: true, revision: 3, totalScore: 86, defectsPenalty: 0, notes: null },
  );
  const [{ n }] = await server.owner.query<{ n: number }>(`select count(*)::int as n from cupping_scores where session_sample_id = $1`, [sessionSampleId]);
  assert.equal(n, 1, 'the replaced form is gone, one form per cupper and coffee');
});

test('blind and double_blind tables leave out every hidden coffee’s identity, and double_blind other cuppers’ scores, until finalized', async () => {
  const green = await importLot(org, { name: 'Secret Geisha Lot', lotCode: uniqueNumber('SECRETGL') });
  const roasted = await roastLot(org, { kg: '3' });
  const outsideName = 'Rival Roasters Sidamo';
  const [{ batch_number: batchNumber }] = await server.owner.query<{ batch_number: string }>(`select batch_number from roast_batches where id = $1`, [roasted.batchId]);
  const offer = await makeSample(org, { name: 'Hidden Offer Sample' });
  const hidden = [green.id, green.lotCode, green.name, roasted.roastedLotId, roasted.lotCode, roasted.batchId, batchNumber, outsideName, offer.id, offer.sampleNumber, offer.name];
  for (const mode of ['blind', 'double_blind'] as const) {
    const created = await createSession(org, {
      mode,
      samples: [
        { kind: 'green_lot', id: green.id },
        { kind: 'roasted_lot', id: roasted.roastedLotId },
        { kind: 'roast_batch', id: roasted.batchId },
        { kind: 'outside', name: outsideName },
        { kind: 'sample', id: offer.id },
      ],
    });
    const [a, b] = created.samples;
    await score(org, { sessionSampleId: a.sessionSampleId, cupperName: 'Ana', scores: form(8), notes: 'ana-note' });
    await score(org, { sessionSampleId: b.sessionSampleId, cupperName: 'Ben', scores: form(7), notes: 'ben-note' });

    const view = await table(created.session.id, 'Ana');
    const text = JSON.stringify(view);
    for (const secret of hidden) assert.ok(!text.includes(secret), `${mode}: the table names ${secret}`);
    assert.deepEqual(view.coffees.map((c: any) => c.identity), [null, null, null, null, null]);
    assert.deepEqual(view.coffees.map((c: any) => c.blindCode), [...created.samples.map((s: any) => s.blindCode)].sort(), 'coffees in blind-code order');
    assert.equal(view.identitiesHidden, true);
    if (mode === 'double_blind') {
      assert.ok(text.includes('ana-note') && !text.includes('ben-note'), 'a cupper sees their own scores, not the others’');
      assert.equal(view.otherCuppersHidden, true);
      assert.deepEqual(view.coffees.map((c: any) => c.scoreCount).sort(), [0, 0, 0, 1, 1], 'how many scored is still shown');
      const anonymous = JSON.stringify(await table(created.session.id));
      assert.ok(!anonymous.includes('ana-note') && !anonymous.includes('ben-note'), 'no cupper named: no one else’s scores');
    } else {
      assert.ok(text.includes('ana-note') && text.includes('ben-note'), 'blind shows every cupper’s scores');
      assert.equal(view.otherCuppersHidden, false);
    }

    await finalize(created.session.id);
    const revealed = await table(created.session.id);
    const revealedText = JSON.stringify(revealed);
    for (const secret of hidden) assert.ok(revealedText.includes(secret), `${mode}: finalized, the table reveals ${secret}`);
    assert.ok(revealedText.includes('ana-note') && revealedText.includes('ben-note'), 'finalized, every score is shown');
    assert.deepEqual([revealed.identitiesHidden, revealed.otherCuppersHidden], [false, false]);
  }

  const open = await createSession(org, { mode: 'open', samples: [{ kind: 'green_lot', id: green.id }] });
  assert.equal((await table(open.session.id)).coffees[0].identity.id, green.id, 'an open session shows identities at once');
});

test('finalizeCuppingSession publishes mean, spread, count, attribute means and top descriptors; closes the session; twice is 409', async () => {
  const green = await importLot(org, { name: 'Huila Washed' });
  const empty = await createSession(org, { mode: 'blind', samples: [{ kind: 'outside', name: 'Never cupped' }] });
  await refused('finalizeCuppingSession', { sessionId: empty.session.id }, 409, 'cupping_session_unscored', 'sessionId');
  const created = await createSession(org, { mode: 'blind', samples: [{ kind: 'green_lot', id: green.id }, { kind: 'outside', name: 'Nobody scored me' }] });
  const [lot, unscored] = created.samples;
  const coffee = lot.sessionSampleId;
  await score(org, { sessionSampleId: coffee, cupperName: 'Ana', scores: form(8), descriptors: ['Citrus', 'jasmine'] });
  await score(org, { sessionSampleId: coffee, cupperName: 'Ben', scores: form(7.5), defectsPenalty: 2, descriptors: ['citrus ', 'Cocoa', 'CITRUS'] });
  await score(org, { sessionSampleId: coffee, cupperName: 'Caro', scores: form(9), descriptors: ['cocoa', 'citrus', 'honey'] });

  const done = await finalize(created.session.id);
  assert.equal(done.session.status, 'finalized');
  assert.ok(done.session.finalizedAt, 'finalizedAt is stamped');
  const result = done.coffees.find((c: any) => c.sessionSampleId === coffee);
  // Final scores 86, 80.5 (82.5 − 2) and 93: mean 86.5, sample standard deviation √39.25 = 6.265.
  assert.deepEqual(
    { ...result.result, attributeMeans: result.result.attributeMeans.flavor },
    {
      meanScore: '86.50',
      stddevScore: '6.26',
      minScore: '80.50',
      maxScore: '93.00',
      cupperCount: 3,
      attributeMeans: '8.17',
      topDescriptors: [
        { descriptor: 'citrus', count: 3 },
        { descriptor: 'cocoa', count: 2 },
        { descriptor: 'honey', count: 1 },
        { descriptor: 'jasmine', count: 1 },
      ],
    },
  );
  assert.equal(result.identity.id, green.id, 'the answer reveals the identities');
  const nobody = done.coffees.find((c: any) => c.sessionSampleId === unscored.sessionSampleId).result;
  assert.deepEqual([nobody.meanScore, nobody.stddevScore, nobody.cupperCount, nobody.attributeMeans, nobody.topDescriptors], [null, null, 0, null, []]);

  await refused('finalizeCuppingSession', { sessionId: created.session.id }, 409, 'cupping_session_finalized', 'sessionId');
  await refused('submitCuppingScore', { sessionSampleId: coffee, cupperName: 'Late', scores: form() }, 409, 'cupping_session_finalized', 'sessionSampleId');
  await refused('submitCuppingScore', { sessionSampleId: coffee, cupperName: 'Ana', scores: form(6) }, 409, 'cupping_session_finalized', 'sessionSampleId');
  const published = (await events('quality.cupping.finalized')).filter((e) => e.session.id === created.session.id);
  assert.equal(published.length, 1, 'one finalized event');
  assert.equal(published[0].coffees.find((c: any) => c.sessionSampleId === coffee).result.meanScore, '86.50');

  // The published mean, as other modules show it on the lot.
  const shown = await publishedCupping(server.owner, org.id, [{ kind: 'green_lot', id: green.id }]);
  assert.deepEqual(
    shown.get(`green_lot:${green.id}`)?.map((p) => [p.sessionId, p.meanScore, p.cupperCount]),
    [[created.session.id, '86.50', 3]],
  );
  const open = await createSession(org, { samples: [{ kind: 'green_lot', id: green.id }] });
  await score(org, { sessionSampleId: open.samples[0].sessionSampleId, cupperName: 'Ana', scores: form(6) });
  assert.equal((await publishedCupping(server.owner, org.id, [{ kind: 'green_lot', id: green.id }])).get(`green_lot:${green.id}`)?.length, 1, 'an open session publishes nothing');
  const lotAnswer = await org.call('inventory.green.getGreenLot', { id: green.id });
  assert.deepEqual([lotAnswer.body.cupping?.sessionId, lotAnswer.body.cupping?.meanScore], [created.session.id, '86.50'], 'getGreenLot shows the published mean');
});

test('the published mean shows on the roasted lot, cupped as the lot or as the batch that made it', async () => {
  const roasted = await roastLot(org, { kg: '4' });
  const before = await org.call('inventory.roast.getRoastedLot', { id: roasted.roastedLotId });
  assert.equal(before.body.cupping, null);
  const batchSession = await createSession(org, { samples: [{ kind: 'roast_batch', id: roasted.batchId }] });
  await score(org, { sessionSampleId: batchSession.samples[0].sessionSampleId, cupperName: 'Ana', scores: form(8.5) });
  await finalize(batchSession.session.id);
  const byBatch = await org.call('inventory.roast.getRoastedLot', { id: roasted.roastedLotId });
  assert.deepEqual([byBatch.body.cupping?.sessionId, byBatch.body.cupping?.meanScore], [batchSession.session.id, '89.50']);
  const lotSession = await createSession(org, { samples: [{ kind: 'roasted_lot', id: roasted.roastedLotId }] });
  await score(org, { sessionSampleId: lotSession.samples[0].sessionSampleId, cupperName: 'Ana', scores: form(9) });
  await finalize(lotSession.session.id);
  const byLot = await org.call('inventory.roast.getRoastedLot', { id: roasted.roastedLotId });
  assert.deepEqual([byLot.body.cupping?.sessionId, byLot.body.cupping?.meanScore], [lotSession.session.id, '93.00'], 'the latest cupping wins');
});

test('scores submitted while the session is finalized either count in the results or are refused, never lost', async () => {
  const created = await createSession(org, { mode: 'double_blind', samples: [{ kind: 'outside', name: 'Race coffee' }] });
  const sessionSampleId = created.samples[0].sessionSampleId;
  await score(org, { sessionSampleId, cupperName: 'Cupper 0', scores: form(8) });
  const cuppers = Array.from({ length: 12 }, (_, i) => `Cupper ${i + 1}`);
  const submissions = cuppers.map((cupperName) => org.call('quality.cupping.submitCuppingScore', { sessionSampleId, cupperName, scores: form(7) }));
  const finalizing = call('finalizeCuppingSession', { sessionId: created.session.id });
  const answers = await Promise.all(submissions);
  const final = await finalizing;
  assert.equal(final.status, 200, JSON.stringify(final.body));
  const accepted = answers.filter((r) => r.status === 200);
  for (const r of answers.filter((r) => r.status !== 200)) assertProblem(r, 409, 'cupping_session_finalized');
  const stored = await server.owner.query<{ cupper_name: string }>(`select cupper_name from cupping_scores where session_sample_id = $1`, [sessionSampleId]);
  assert.deepEqual(
    stored.map((s) => s.cupper_name).sort(),
    ['Cupper 0', ...accepted.map((r) => r.body.cupperName)].sort(),
    'every accepted score is stored, no refused one is',
  );
  assert.equal(final.body.coffees[0].result.cupperCount, stored.length, 'the published result counts exactly the stored scores');
});

test('listCuppingSessions filters by status, mode, schedule and text, newest first, with cursor paging', async () => {
  const tag = uniqueNumber('LIST');
  const a = await createSession(org, { sessionNumber: `${tag}-A`, mode: 'open', scheduledAt: '2030-01-01T08:00:00Z', samples: [{ kind: 'outside', name: 'A' }] });
  const b = await createSession(org, { sessionNumber: `${tag}-B`, mode: 'blind', scheduledAt: '2030-01-02T08:00:00Z', samples: [{ kind: 'outside', name: 'B' }] });
  const c = await createSession(org, { sessionNumber: `${tag}-C`, mode: 'blind', scheduledAt: '2030-01-03T08:00:00Z', samples: [{ kind: 'outside', name: 'C' }] });
  await score(org, { sessionSampleId: c.samples[0].sessionSampleId, cupperName: 'Ana' });
  await finalize(c.session.id);
  const ids = async (filter: Record<string, unknown>) => {
    const res = await call('listCuppingSessions', { filter: { q: tag, ...filter } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.items.map((s: any) => s.id);
  };
  assert.deepEqual(await ids({}), [c.session.id, b.session.id, a.session.id]);
  assert.deepEqual(await ids({ status: 'finalized' }), [c.session.id]);
  assert.deepEqual(await ids({ mode: 'blind', status: 'open' }), [b.session.id]);
  assert.deepEqual(await ids({ scheduledFrom: '2030-01-02T00:00:00Z', scheduledTo: '2030-01-03T00:00:00Z' }), [b.session.id]);
  const first = await call('listCuppingSessions', { filter: { q: tag }, page: { limit: 2 } });
  const second = await call('listCuppingSessions', { filter: { q: tag }, page: { limit: 2, cursor: first.body.nextCursor } });
  assert.deepEqual([...first.body.items, ...second.body.items].map((s: any) => s.id), [c.session.id, b.session.id, a.session.id]);
  assert.equal(second.body.nextCursor, null);
  assertProblem(await call('listCuppingSessions', { filter: { lot: 'x' } }), 400, 'invalid_input', 'filter.lot');
});

test('a published cup score travels with the chain: the roasted lot’s traceability, the frozen certificate and its public page', async () => {
  const green = await importLot(org, { weightKg: '60' });
  const roasted = await roastLot(org, { kg: '10', greenLotId: green.id });
  const created = await createSession(org, { mode: 'open', samples: [{ kind: 'green_lot', id: green.id }] });
  const sessionSampleId = created.samples[0].sessionSampleId;
  await score(org, { sessionSampleId, cupperName: 'Ana', scores: form(8.5) });
  await score(org, { sessionSampleId, cupperName: 'Ben', scores: form(8) });
  const before = await org.call('inventory.roast.getRoastedLotTraceability', { id: roasted.roastedLotId });
  assert.deepEqual(before.body.cupScores, [], 'nothing is published before the session is finalized');
  await finalize(created.session.id);

  const chain = await org.call('inventory.roast.getRoastedLotTraceability', { id: roasted.roastedLotId });
  assert.equal(chain.status, 200, JSON.stringify(chain.body));
  assert.deepEqual(
    chain.body.cupScores.map((c: any) => [c.kind, c.id, c.sessionNumber, c.meanScore, c.cupperCount]),
    [['green_lot', green.id, created.session.sessionNumber, '87.75', 2]],
    'the green lot’s published mean (sum of ten attributes, 89.5 and 86)',
  );
  const certificate = await org.call('traceability.issueCertificate', { roastedLotId: roasted.roastedLotId });
  assert.equal(certificate.status, 200, JSON.stringify(certificate.body));
  assert.deepEqual(certificate.body.snapshot.cupScores, chain.body.cupScores, 'the certificate freezes the score');
  const page = await (await server.request(certificate.body.publicPath)).text();
  assert.match(page, /Cup score.*87\.75 \(2 cuppers\)/s, 'the public page shows it');
});

test('a session created while sessions were cs_… keeps its id: table, scores and finalize work on it', async () => {
  const id = 'cs_0000000000legacysession1';
  await server.owner.query(
    `insert into cupping_sessions (org_id, id, session_number, name, mode, created_by) values ($1, $2, $3, 'Legacy', 'open', 'key_legacy')`,
    [org.id, id, uniqueNumber('LEGACY')],
  );
  await server.owner.query(
    `insert into cupping_session_samples (org_id, id, session_id, position, blind_code, ref_kind, ref_name) values ($1, 'css_0000000000legacysample1', $2, 1, 'ABC', 'outside', 'Old coffee')`,
    [org.id, id],
  );
  const view = await table(id);
  assert.deepEqual(view.coffees.map((c: any) => c.blindCode), ['ABC']);
  await score(org, { sessionSampleId: 'css_0000000000legacysample1', cupperName: 'Ana', scores: form(8) });
  const done = await finalize(id);
  assert.deepEqual([done.session.id, done.coffees[0].result.meanScore], [id, '86.00']);
});
