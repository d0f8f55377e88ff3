import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { z } from 'zod';
import { startTestServer } from '../src/testing/harness.js';
import { fieldErrors, parseInput, strict } from '../src/rpc/schemas.js';
import { encodeCursor, sealCursor } from '../src/db/paging.js';
import { ProblemError } from '../src/rpc/errors.js';
import { makeGreenLot } from '../src/modules/inventory/green/testing.js';

const server = await startTestServer();
const org = await server.createOrg('enterprise', 'Validation roastery');

const line = { roastedLotId: 'rl_1', quantityKg: '1', unitPrice: '10' };
const errorsOf = (body: { errors?: { path: string; message: string }[] }) => Object.fromEntries((body.errors ?? []).map((e) => [e.path, e.message]));

async function count(table: string): Promise<number> {
  const [row] = await server.owner.query<{ n: number }>(`select count(*)::int as n from ${table} where org_id = $1`, [org.id]);
  return row.n;
}

test('every message names the rule the value broke', async () => {
  const missing = await org.call('catalog.location.createLocation', {});
  assert.equal(missing.status, 400);
  assert.equal(missing.body.code, 'invalid_input');
  assert.deepEqual(errorsOf(missing.body), { name: 'is required', code: 'is required', kind: 'is required' });

  const wrong = await org.call('catalog.location.createLocation', { name: 5, code: 'c/1', kind: 'spaceship', address: { country: 'Ethiopia' } });
  assert.deepEqual(errorsOf(wrong.body), {
    name: 'must be a string',
    kind: 'must be one of roastery, warehouse, cafe, lab, transit, external',
    'address.country': 'must be an ISO 3166-1 alpha-2 country code such as ET',
  });

  const long = await org.call('catalog.location.updateLocation', { id: 'loc_1', name: 'x'.repeat(201), isActive: 'yes', timezone: 'Mars/Olympus' });
  assert.deepEqual(errorsOf(long.body), {
    name: 'must be at most 200 characters',
    isActive: 'must be true or false',
    timezone: 'must be an IANA time zone such as Europe/Berlin',
  });

  const decimals = await org.call('inventory.green.importGreenLot', { name: 'Lot', lotCode: 'L-1', weightKg: '10.1234' });
  assert.deepEqual(errorsOf(decimals.body), { weightKg: 'must be a decimal with at most 3 decimals' });
  const notDecimal = await org.call('inventory.green.importGreenLot', { name: 'Lot', lotCode: 'L-1', weightKg: true });
  assert.match(errorsOf(notDecimal.body).weightKg, /^must be a non-negative decimal with at most 12 digits before the point and 3 decimals/);

  const limits = await org.call('catalog.location.listLocations', { page: { limit: 0 }, filter: { q: '' } });
  assert.deepEqual(errorsOf(limits.body), { 'page.limit': 'must be at least 1', 'filter.q': 'must not be empty' });
  const kinds = await org.call('traceability.traceForward', { kind: 'bean', id: 'gl_1' });
  assert.equal(errorsOf(kinds.body).kind, 'must be one of producer, green_lot, roast_batch, roasted_lot, blend_lot, product_batch, order_line');
  const unknown = await org.call('catalog.location.listLocations', { filter: { colour: 'brown' } });
  assert.deepEqual(unknown.body.errors, [{ path: 'filter.colour', message: 'unknown field' }]);

  // No message in the answers above is zod's default wording.
  for (const body of [missing.body, wrong.body, long.body, decimals.body, limits.body, kinds.body]) {
    for (const e of body.errors) assert.doesNotMatch(e.message, /^Invalid|expected .*, received|Too (big|small)/, e.message);
  }
});

test('the same entry is listed once', () => {
  const fail = () => false;
  const schema = strict({ code: z.string().refine(fail, 'must be free').refine(fail, 'must be free'), other: z.string() });
  const parsed = schema.safeParse({ code: 'A', other: 1 });
  assert.ok(!parsed.success, 'the schema refuses it');
  assert.equal(parsed.error.issues.length, 3, 'zod reports the rule twice');
  assert.deepEqual(fieldErrors(parsed.error), [
    { path: 'code', message: 'must be free' },
    { path: 'other', message: 'must be a string' },
  ]);
  assert.throws(
    () => parseInput(schema, { code: 'A\u0000', other: 'ok' }),
    (e: ProblemError) => e.status === 400 && JSON.stringify(e.extensions.errors) === JSON.stringify([
      { path: 'code', message: 'must not contain the NUL character (\\u0000)' },
      { path: 'code', message: 'must be free' },
    ]),
  );
});

test('text PostgreSQL cannot store is a 400 naming the field, at any depth, over POST and GET', async () => {
  const before = await count('locations');
  const nul = await org.call('catalog.location.createLocation', { name: 'Roastery', code: 'R1', kind: 'roastery', address: { city: 'Addis\u0000Ababa' } });
  assert.equal(nul.status, 400);
  assert.equal(nul.body.code, 'invalid_input');
  assert.deepEqual(nul.body.errors, [{ path: 'address.city', message: 'must not contain the NUL character (\\u0000)' }]);

  for (const surrogate of ['\ud800', 'x\udc00y', '\udbff\ud800']) {
    const res = await org.call('catalog.location.createLocation', { name: `Site ${surrogate}`, code: 'R1', kind: 'roastery' });
    assert.equal(res.status, 400, JSON.stringify(surrogate));
    assert.deepEqual(res.body.errors, [{ path: 'name', message: 'must not contain a lone UTF-16 surrogate such as \\ud800' }]);
  }
  // A surrogate pair is a real character (an emoji) and is kept.
  const emoji = await org.call('catalog.location.createLocation', { name: 'Roastery \ud83d\udd25', code: 'EMOJI', kind: 'roastery' });
  assert.equal(emoji.status, 200);
  assert.equal(emoji.body.name, 'Roastery 🔥');

  const inList = await org.call('orders.createOrder', {
    orderNumber: 'SO-1',
    customerId: 'cus_1',
    lines: [line, { ...line, quantityKg: '1\u0000' }],
  });
  assert.equal(inList.status, 400);
  assert.ok(inList.body.errors.some((e: { path: string; message: string }) => e.path === 'lines[1].quantityKg' && /NUL/.test(e.message)), JSON.stringify(inList.body.errors));

  const filter = await org.call('catalog.location.listLocations', { filter: { q: 'a\u0000' } }, { method: 'GET' });
  assert.equal(filter.status, 400);
  assert.deepEqual(filter.body.errors, [{ path: 'filter.q', message: 'must not contain the NUL character (\\u0000)' }]);

  const key = await org.call('catalog.location.createLocation', { name: 'R', code: 'R2', kind: 'roastery', 'evil\u0000': 1 });
  assert.equal(key.status, 400);
  assert.ok(key.body.errors.some((e: { path: string; message: string }) => e.path === 'evil\\u0000' && /^field name must not contain the NUL/.test(e.message)), 'the NUL field name is named');
  assert.equal(await count('locations'), before + 1, 'only the emoji location was written');
});

test('a body that is not UTF-8 is 400 malformed_json before it is parsed, and nothing is stored', async () => {
  const before = await count('locations');
  const json = Buffer.from(JSON.stringify({ name: 'Roastery XX', code: 'UTF8', kind: 'roastery' }));
  // Invalid sequences: a lone continuation byte, an overlong form, a truncated sequence, a byte never used.
  for (const bad of [[0x80], [0xc0, 0xaf], [0xe2, 0x82], [0xff]]) {
    const body = Buffer.concat([json.subarray(0, json.indexOf('XX')), Buffer.from(bad), json.subarray(json.indexOf('XX') + 2)]);
    const res = await fetch(`${server.url}/rpc/v1/catalog.location.createLocation`, {
      method: 'POST',
      headers: { authorization: `Bearer ${org.key}`, 'content-type': 'application/json' },
      body,
    });
    const problem = await res.json();
    assert.equal(res.status, 400, JSON.stringify(bad));
    assert.equal(problem.code, 'malformed_json');
    assert.match(problem.detail, /not valid UTF-8/);
  }
  // A GET's input percent-encodes its bytes: ones that are not UTF-8 are refused alike.
  const get = await fetch(`${server.url}/rpc/v1/catalog.location.listLocations?input=${encodeURIComponent('{"filter":{"q":"a')}%FF%C3%28b%22%7D%7D`, {
    headers: { authorization: `Bearer ${org.key}` },
  });
  assert.equal(get.status, 400);
  assert.equal((await get.json()).code, 'malformed_json');
  assert.equal(await count('locations'), before, 'nothing was stored with U+FFFD in place of the bytes');
});

test('every decimal field reads its string by one rule: no spaces, no leading zeros, no sign or exponent', async () => {
  const lotId = await makeGreenLot(org, { weightKg: '100' });
  const cases: [string, Record<string, unknown>, string][] = [
    ['inventory.green.importGreenLot', { name: 'Lot', lotCode: 'D-1' }, 'weightKg'],
    ['inventory.green.reserveGreenLot', { id: lotId }, 'weightKg'],
    ['inventory.green.releaseGreenLotReservation', { id: lotId }, 'weightKg'],
    ['inventory.green.splitGreenLot', { id: lotId, newLotCode: 'D-2' }, 'weightKg'],
    ['orders.createOrder', { orderNumber: 'SO-D', customerId: 'cus_1', lines: [{ ...line, quantityKg: '{}' }] }, 'lines[0].quantityKg'],
    ['orders.createOrder', { orderNumber: 'SO-D', customerId: 'cus_1', lines: [{ ...line, unitPrice: '{}' }] }, 'lines[0].unitPrice'],
  ];
  const set = (input: Record<string, unknown>, path: string, value: unknown) => {
    const copy = structuredClone(input);
    const parts = path.split(/[.[\]]+/).filter(Boolean);
    let node: any = copy;
    for (const part of parts.slice(0, -1)) node = node[part];
    node[parts.at(-1)!] = value;
    return copy;
  };
  for (const [operation, input, path] of cases) {
    for (const bad of [' 1', '1 ', '00012', '01.5', '+1', '1e3', '.5', '1.', '']) {
      const res = await org.call(operation, set(input, path, bad));
      assert.equal(res.status, 400, `${operation} ${path} ${JSON.stringify(bad)}`);
      assert.match(errorsOf(res.body)[path] ?? '', /^must be a (non-negative )?decimal/, `${operation} ${path} ${JSON.stringify(bad)}: ${JSON.stringify(res.body.errors)}`);
    }
  }
  // The same amounts well written pass, as strings and as JSON numbers.
  for (const good of ['0.5', '12', '10.250', 12, 0.5]) {
    const res = await org.call('inventory.green.reserveGreenLot', { id: lotId, weightKg: good });
    assert.equal(res.status, 200, `${JSON.stringify(good)}: ${JSON.stringify(res.body)}`);
  }
});

test('dates before 1900, past 9999-12-30 or not on the calendar are a 400, in inputs and in filters', async () => {
  for (const [value, message] of [
    ['0000-01-01', 'must be a date between 1900-01-01 and 9999-12-30'],
    ['0001-01-01', 'must be a date between 1900-01-01 and 9999-12-30'],
    ['0999-12-31', 'must be a date between 1900-01-01 and 9999-12-30'],
    ['1899-12-31', 'must be a date between 1900-01-01 and 9999-12-30'],
    ['9999-12-31', 'must be a date between 1900-01-01 and 9999-12-30'],
    ['2026-02-30', 'must be a calendar date (YYYY-MM-DD) such as 2026-01-31'],
    ['2025-02-29', 'must be a calendar date (YYYY-MM-DD) such as 2026-01-31'],
    ['10000-01-01', 'must be a calendar date (YYYY-MM-DD) such as 2026-01-31'],
  ]) {
    const list = await org.call('production.roast.listRoastBatches', { filter: { from: value } });
    assert.equal(list.status, 400, value);
    assert.deepEqual(list.body.errors, [{ path: 'filter.from', message }], value);
    const machine = await org.call('catalog.machine.registerMachine', { name: 'Probat', code: 'P1', capacityKg: '12', installedAt: value });
    assert.equal(machine.status, 400, value);
    assert.equal(errorsOf(machine.body).installedAt, message, value);
  }
  assert.equal((await org.call('production.roast.listRoastBatches', { filter: { from: '1900-01-01', to: '9999-12-30' } })).status, 200);
  assert.equal((await org.call('production.roast.listRoastBatches', { filter: { from: '2024-02-29' } })).status, 200);
  const range = 'must be a date-time between 1900-01-01T00:00:00Z and 9999-12-31T23:59:59Z with an offset of at most 14:00';
  for (const [value, message] of [
    ['0000-06-01T00:00:00Z', range],
    ['0001-01-01T00:00:00Z', range],
    ['0999-06-01T00:00:00Z', range],
    ['1900-01-01T00:00:00+01:00', range],
    ['9999-12-31T23:00:00-05:00', range],
    ['2026-01-01T10:00:00+16:00', range],
    ['2026-02-30T10:00:00Z', 'must be an RFC 3339 date-time with a real date and an offset, such as 2026-01-31T09:30:00Z'],
  ]) {
    const order = await org.call('orders.createOrder', { orderNumber: 'SO-1', customerId: 'cus_1', requestedShipAt: value, lines: [line] });
    assert.equal(order.status, 400, value);
    assert.ok(order.body.errors.some((e: { path: string; message: string }) => e.path === 'requestedShipAt' && e.message.includes(message.slice(8))), `${value}: ${JSON.stringify(order.body.errors)}`);
  }
});

test('a forged or foreign cursor is 400 invalid_cursor naming page.cursor; a real one pages on', async () => {
  for (const code of ['PG-A', 'PG-B', 'PG-C']) assert.equal((await org.call('catalog.location.createLocation', { name: code, code, kind: 'warehouse' })).status, 200);
  const first = await org.call('catalog.location.listLocations', { page: { limit: 1 } });
  assert.equal(first.status, 200);
  assert.ok(first.body.nextCursor, 'a first page with more to come');
  const second = await org.call('catalog.location.listLocations', { page: { limit: 1, cursor: first.body.nextCursor } });
  assert.equal(second.status, 200);
  assert.notEqual(second.body.items[0].id, first.body.items[0].id);

  const refused = async (operation: string, input: Record<string, unknown>, cursor: string) => {
    const res = await org.call(operation, { ...input, page: { cursor } });
    assert.equal(res.status, 400, `${operation} ${cursor}: ${JSON.stringify(res.body)}`);
    assert.equal(res.body.code, 'invalid_cursor');
    assert.deepEqual(res.body.errors, [{ path: 'page.cursor', message: 'not a cursor returned by this list' }]);
  };
  // From another list: same shape, another list.
  await refused('catalog.party.listPartners', {}, first.body.nextCursor);
  await refused('catalog.machine.listMachines', {}, first.body.nextCursor);
  // Forged: valid base64 of the wrong shape or types, and of the right shape (the issue's hand-made cursor).
  for (const forged of [{ id: 'loc_1' }, ['locations'], ['locations', 1.5], ['locations', { id: 1 }], ['locations', 'loc_1', 'loc_2'], 'loc_1', null, ['locations', 'loc_0']]) {
    await refused('catalog.location.listLocations', {}, Buffer.from(JSON.stringify(forged)).toString('base64url'));
  }
  // Of the right form but not sealed for this organization: the real cursor's own key with a changed seal or
  // none, a cursor of this list with another key under the real one's seal, another organization's real cursor.
  const [plain, seal] = first.body.nextCursor.split('.');
  await refused('catalog.location.listLocations', {}, plain);
  await refused('catalog.location.listLocations', {}, `${plain}.${seal.startsWith('A') ? 'B' : 'A'}${seal.slice(1)}`);
  await refused('catalog.location.listLocations', {}, `${encodeCursor('locations', ['loc_0'])}.${seal}`);
  const other = await server.createOrg('enterprise', 'Another roastery');
  for (const code of ['PG-A', 'PG-B']) await other.call('catalog.location.createLocation', { name: code, code, kind: 'warehouse' });
  const foreign = await other.call('catalog.location.listLocations', { page: { limit: 1 } });
  assert.ok(foreign.body.nextCursor, 'the other organization has a next page');
  await refused('catalog.location.listLocations', {}, foreign.body.nextCursor);
  assert.equal((await other.call('catalog.location.listLocations', { page: { limit: 1, cursor: foreign.body.nextCursor } })).status, 200, 'it pages on where it was issued');
  // Sealed for this organization but with keys of the wrong kinds, or of another list: refused where the list is read.
  const sealed = (list: string, key: (string | number)[]) => sealCursor(server.app.services.config, org.id, encodeCursor(list, key));
  await refused('production.roast.listRoastBatches', {}, sealed('roast_batches', ['0000-01-01T00:00:00.000Z', 'rb_1']));
  await refused('production.roast.listRoastBatches', {}, sealed('roast_batches', ['2026-02-30T00:00:00.000Z', 'rb_1']));
  await refused('production.roast.listRoastBatches', {}, sealed('roast_batches', ['rb_1', '2026-01-01T00:00:00.000Z']));
  await refused('traceability.listCertificates', {}, sealed('roast_batches', ['2026-01-01T00:00:00.000Z', 'rb_1']));

  // A list of one record's rows: the record exists, the cursor is another list's.
  const lot = await makeGreenLot(org);
  const ledger = await org.call('inventory.green.listGreenLotTransactions', { greenLotId: lot });
  assert.equal(ledger.status, 200);
  await refused('inventory.green.listGreenLotTransactions', { greenLotId: lot }, first.body.nextCursor);
  await refused('inventory.green.listGreenLotTransactions', { greenLotId: lot }, sealed('green_lot_transactions', [-1]));
  await refused('inventory.green.listGreenLotTransactions', { greenLotId: 'gl_missing' }, Buffer.from('[1]').toString('base64url'));

  // A cursor wrong together with another field: every field is listed, as invalid input.
  const both = await org.call('catalog.location.listLocations', { page: { limit: 0, cursor: 'garbage' } });
  assert.equal(both.body.code, 'invalid_input');
  assert.deepEqual(both.body.errors.map((e: { path: string }) => e.path).sort(), ['page.cursor', 'page.limit']);
});

test('the roaster’s own site is kind roastery; the specification’s spelling is accepted for it', async () => {
  const created = await org.call('catalog.location.createLocation', { name: 'Home', code: 'HOME', kind: 'roastery' });
  assert.equal(created.status, 200);
  assert.equal(created.body.kind, 'roastery');
  const spec = await org.call('catalog.location.createLocation', { name: 'Spec', code: 'SPEC', kind: 'the service' });
  assert.equal(spec.status, 200);
  assert.equal(spec.body.kind, 'roastery');
  const updated = await org.call('catalog.location.updateLocation', { id: created.body.id, kind: 'the service' });
  assert.equal(updated.body.kind, 'roastery');
  for (const kind of ['roastery', 'the service']) {
    const list = await org.call('catalog.location.listLocations', { filter: { kind } });
    const ids = list.body.items.map((l: { id: string }) => l.id);
    assert.ok(ids.includes(created.body.id) && ids.includes(spec.body.id), kind);
    assert.ok(list.body.items.every((l: { kind: string }) => l.kind === 'roastery'), kind);
  }
  const got = await org.call('catalog.location.getLocation', { id: spec.body.id }, { method: 'GET' });
  assert.equal(got.body.kind, 'roastery');
  const [row] = await server.owner.query<{ kind: string }>(`select kind from locations where org_id = $1 and id = $2`, [org.id, spec.body.id]);
  assert.equal(row.kind, 'roastery', 'stored as roastery');
});

test('the migration turns stored `the service` rows into roastery, and the check refuses the old spelling', async () => {
  const file = readdirSync(new URL('../migrations/', import.meta.url)).find((f) => f.endsWith('_catalog_location_roastery.sql'));
  assert.ok(file, 'the file exists');
  const sql = readFileSync(new URL(`../migrations/${file}`, import.meta.url), 'utf8');
  const id = 'loc_oldspelling';
  const undo = new Error('rolled back');
  await assert.rejects(
    server.owner.transaction(async (tx) => {
      // The table's rule as it was before the migration (not checked against the rows of today), and a row in the old spelling.
      await tx.exec(`alter table locations drop constraint locations_kind_check;
        alter table locations add constraint locations_kind_check check (kind in ('the service', 'warehouse', 'cafe', 'lab', 'transit', 'external')) not valid`);
      await tx.query(`insert into locations (org_id, id, code, name, kind) values ($1, $2, 'OLD', 'Old', 'the service')`, [org.id, id]);
      await tx.exec(sql);
      const [row] = await tx.query<{ kind: string }>(`select kind from locations where org_id = $1 and id = $2`, [org.id, id]);
      assert.equal(row.kind, 'roastery');
      await assert.rejects(tx.query(`update locations set kind = 'the service' where org_id = $1 and id = $2`, [org.id, id]), /locations_kind_check/);
      throw undo;
    }),
    (e) => e === undo,
  );
  assert.deepEqual(await server.owner.query(`select id from locations where id = $1`, [id]), []);
});
