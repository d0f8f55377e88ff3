import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../../../testing/harness.js';

import { makeRoaster, refusedUnchanged } from '../roast/testing.js';
import { assertProblem } from '../../../testing/problems.js';

const server = await startTestServer();
const org = await server.createOrg('enterprise', 'Profile roastery');

const create = (input: Record<string, unknown>) => org.call('production.profile.createProfile', { name: 'Washed light', code: 'WL-1', ...input });

describe('roast profiles', () => {
  test('createProfile stores the targets, answers them typed, and records an event', async () => {
    const machine = await makeRoaster(org);
    const res = await create({
      code: 'ETH-LIGHT',
      name: 'Ethiopia light',
      machineId: machine.id,
      targetChargeKg: 12,
      targetDropTempC: '205.5',
      targetTotalTimeS: 630,
      targetDtrPct: 18.25,
      notes: 'gentle finish',
      shelfLifeDays: 21,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.match(res.body.id, /^prf_[0-9a-z]+$/);
    assert.deepEqual({ ...res.body, id: undefined, createdAt: undefined, updatedAt: undefined }, {
      id: undefined,
      code: 'ETH-LIGHT',
      name: 'Ethiopia light',
      machineId: machine.id,
      targetChargeKg: '12.000',
      targetDropTempC: 205.5,
      targetTotalTimeS: 630,
      targetDtrPct: 18.25,
      notes: 'gentle finish',
      shelfLifeDays: 21,
      createdAt: undefined,
      updatedAt: undefined,
    });
    const [event] = await server.owner.query<{ data: any }>(`select data from events where org_id = $1 and type = 'production.profile.created'`, [org.id]);
    assert.deepEqual(event.data.profile, res.body);
    assert.deepEqual((await org.call('production.profile.getProfile', { id: res.body.id }, { method: 'GET' })).body, res.body);
  });

  test('every target is optional', async () => {
    const res = await create({ code: 'BARE' });
    assert.equal(res.status, 200);
    assert.deepEqual(
      [res.body.machineId, res.body.targetChargeKg, res.body.targetDropTempC, res.body.targetTotalTimeS, res.body.targetDtrPct, res.body.shelfLifeDays],
      [null, null, null, null, null, null],
    );
  });

  test('refusals change nothing', async () => {
    await refusedUnchanged(server.owner, org, () => create({ code: 'BARE' }), 409, 'duplicate', 'code');
    await refusedUnchanged(server.owner, org, () => create({ code: 'X1', machineId: 'mch_0000000000ghost00000000000' }), 404, 'not_found', 'machineId');
    const invalid: [Record<string, unknown>, string][] = [
      [{ targetTotalTimeS: 600.5 }, 'targetTotalTimeS'],
      [{ targetTotalTimeS: 0 }, 'targetTotalTimeS'],
      [{ targetDtrPct: 100 }, 'targetDtrPct'],
      [{ targetDtrPct: '20.125' }, 'targetDtrPct'],
      [{ targetDropTempC: -5 }, 'targetDropTempC'],
      [{ targetDropTempC: '205.55' }, 'targetDropTempC'],
      [{ targetChargeKg: '0' }, 'targetChargeKg'],
      [{ code: 'has space' }, 'code'],
      [{ shelfLifeDays: 0 }, 'shelfLifeDays'],
      [{ shelfLifeDays: 731 }, 'shelfLifeDays'],
      [{ shelfLifeDays: 14.5 }, 'shelfLifeDays'],
      [{ color: 'brown' }, 'color'],
    ];
    for (const [input, path] of invalid) await refusedUnchanged(server.owner, org, () => create({ code: 'X2', ...input }), 400, 'invalid_input', path);
    const viewer = await org.createKey('viewer');
    await refusedUnchanged(server.owner, org, () => server.call(viewer, 'production.profile.createProfile', { name: 'n', code: 'X3' }), 403, 'permission_denied');
    assertProblem(await org.call('production.profile.getProfile', { id: 'prf_0000000000ghost00000000000' }), 404, 'not_found', 'id');
  });

  test('listProfiles pages oldest first and filters by machine and text', async () => {
    const listOrg = await server.createOrg('enterprise', 'List roastery');
    const machine = await makeRoaster(listOrg);
    const ids: string[] = [];
    for (const [code, name, machineId] of [['A-1', 'Kenya bright', machine.id], ['B-2', 'Brazil dark', undefined], ['C-3', 'Kenya espresso', undefined]] as const) {
      const res = await listOrg.call('production.profile.createProfile', { code, name, ...(machineId ? { machineId } : {}) });
      ids.push(res.body.id);
    }
    const list = (filter: Record<string, unknown>, page: Record<string, unknown> = {}) => listOrg.call('production.profile.listProfiles', { filter, page }, { method: 'GET' });
    const first = await list({}, { limit: 2 });
    assert.deepEqual(first.body.items.map((p: any) => p.id), ids.slice(0, 2));
    const rest = await list({}, { limit: 2, cursor: first.body.nextCursor });
    assert.deepEqual(rest.body.items.map((p: any) => p.id), ids.slice(2));
    assert.equal(rest.body.nextCursor, null);
    assert.deepEqual((await list({ machineId: machine.id })).body.items.map((p: any) => p.id), [ids[0]]);
    assert.deepEqual((await list({ q: 'kenya' })).body.items.map((p: any) => p.id), [ids[0], ids[2]]);
    assert.deepEqual((await list({ q: 'b-2' })).body.items.map((p: any) => p.id), [ids[1]]);
    assertProblem(await list({ roastLevel: 'dark' }), 400, 'invalid_input', 'filter.roastLevel');
  });
});
