import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { startTestServer, type TestOrg } from '../../testing/harness.js';
import { assertProblem, assertRefusedWithout } from '../../testing/problems.js';
import { MemoryLiveWindowStore, RedisLiveWindowStore } from '../../streaming/live-window.js';
import { LIVE_BAR, type LiveBarStore, type LiveShot } from './live-bar.js';
import { performanceOf } from './performance.js';
import * as repo from './repository.js';
import { DEFAULT_SHOT_TARGET, LIVE_RETAIN_SECONDS } from './targets.js';
import { issueToken, makeMachine, makeSite, postShots, shot, uniqueCode } from './testing.js';

const server = await startTestServer();
const org = await server.createOrg('enterprise', 'Cafe roastery');
const other = await server.createOrg('enterprise', 'Other roastery');

const count = async (table: string, orgId = org.id) =>
  (await server.owner.query<{ n: number }>(`select count(*)::int as n from ${table} where org_id = $1`, [orgId]))[0].n;

/** Everything the cafe module stores for an organization, for proving a refused call changed nothing. */
const cafeState = (orgId = org.id) =>
  Promise.all(
    ['cafe_sites', 'cafe_machines', 'cafe_shots', 'cafe_shot_rollups', 'cafe_shot_day_rollups', 'cafe_shot_hour_of_day_rollups', 'cafe_pos_sales', 'cafe_sale_rollups', 'cafe_sale_day_rollups', 'cafe_sale_hour_of_day_rollups', 'cafe_reconciliations', 'events', 'credentials'].map(
      async (t) => [t, await count(t, orgId)],
    ),
  );

/**
 * Sends the posts while the shot table is locked, so that the first post's write waits for the lock and the
 * others queue behind it; released, they are written as one group. The machines' credentials and bar machines
 * must be known to the service already (a post shortly before), as on PGlite the lock holds the one connection.
 */
async function writtenTogether<T>(posting: () => Promise<T>): Promise<T> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const isLocked = new Promise<void>((resolve) => (locked = resolve));
  const holding = server.owner.transaction(async (tx) => {
    await tx.query('lock table cafe_shots in share mode');
    locked();
    await released;
  });
  await isLocked;
  const answers = posting();
  await new Promise((resolve) => setTimeout(resolve, 300));
  release();
  await holding;
  return answers;
}

/**
 * The site's hourly, local-day and month × hour-of-day rollups hold exactly the sums of its stored shots, each
 * local day and hour that of the UTC hour's start in the site's timezone.
 */
async function assertRollupsMatchShots(siteId: string) {
  const sums = `count(*)::int as shots, count(*) filter (where outside_target)::int as outside_target,
                count(*) filter (where channeling)::int as channeling, round(sum(duration_s)::numeric, 6)::float8 as duration_sum_s`;
  const rollupSums = `sum(shots)::int as shots, sum(outside_target)::int as outside_target, sum(channeling)::int as channeling,
                      round(sum(duration_sum_s)::numeric, 6)::float8 as duration_sum_s`;
  const [row] = await server.owner.query<Record<string, unknown>>(
    `with s as (
       select x.*, date_trunc('hour', x.started_at at time zone 'UTC') at time zone 'UTC' as hour, c.timezone
       from cafe_shots x join cafe_sites c on c.org_id = x.org_id and c.id = x.site_id where x.org_id = $1 and x.site_id = $2
     ), l as (select s.*, (hour at time zone timezone)::date as local_date, extract(hour from hour at time zone timezone)::int as local_hour from s)
     select
       (select json_agg(t order by t) from (select machine_id, group_no, hour, ${sums} from l group by 1, 2, 3) t) as hours_expected,
       (select json_agg(t order by t) from (select machine_id, group_no, hour, ${rollupSums} from cafe_shot_rollups where org_id = $1 and site_id = $2 group by 1, 2, 3) t) as hours,
       (select json_agg(t order by t) from (select local_date, ${sums} from l group by 1) t) as days_expected,
       (select json_agg(t order by t) from (select local_date, ${rollupSums} from cafe_shot_day_rollups where org_id = $1 and site_id = $2 group by 1) t) as days,
       (select json_agg(t order by t) from (select machine_id, group_no, date_trunc('month', local_date)::date as local_month, local_hour, ${sums} from l group by 1, 2, 3, 4) t) as hours_of_day_expected,
       (select json_agg(t order by t) from (select machine_id, group_no, local_month, local_hour, ${rollupSums} from cafe_shot_hour_of_day_rollups where org_id = $1 and site_id = $2 group by 1, 2, 3, 4) t) as hours_of_day`,
    [org.id, siteId],
  );
  assert.ok(row.hours_expected, 'the site has shots');
  assert.deepEqual(row.hours, row.hours_expected, 'hourly rollups');
  assert.deepEqual(row.days, row.days_expected, 'local-day rollups');
  assert.deepEqual(row.hours_of_day, row.hours_of_day_expected, 'month × hour-of-day rollups');
}

async function location(kind: string, timezone?: string, as: TestOrg = org) {
  const res = await as.call('catalog.location.createLocation', { name: `${kind} place`, code: uniqueCode('L'), kind, ...(timezone ? { timezone } : {}) });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.id as string;
}

describe('sites', () => {
  test('a site at a cafe location takes its timezone and the default shot target', async () => {
    const locationId = await location('cafe', 'America/New_York');
    const res = await org.call('cafe.createSite', { name: 'Corner', code: uniqueCode('S'), locationId });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.timezone, 'America/New_York');
    assert.deepEqual(res.body.shotTarget, DEFAULT_SHOT_TARGET);
    const own = await org.call('cafe.createSite', { name: 'Own', code: uniqueCode('S'), locationId, timezone: 'Europe/Vienna', shotTarget: { timeMinS: 22 } });
    assert.equal(own.body.timezone, 'Europe/Vienna');
    assert.equal(own.body.shotTarget.timeMinS, 22);
    assert.equal(own.body.shotTarget.timeMaxS, DEFAULT_SHOT_TARGET.timeMaxS);
    const list = await org.call('cafe.listSites', { page: { limit: 200 } }, { method: 'GET' });
    assert.ok(list.body.items.some((s: { id: string }) => s.id === res.body.id), 'the site is listed');
  });

  test('the location must be a cafe location of the organization, not archived', async () => {
    const warehouse = await location('warehouse', 'Europe/Berlin');
    await assertRefusedWithout(cafeState, () => org.call('cafe.createSite', { name: 'X', code: uniqueCode('S'), locationId: warehouse }), 409, 'location_not_cafe', 'locationId');
    const archived = await location('cafe', 'Europe/Berlin');
    await org.call('catalog.location.archiveLocation', { id: archived });
    await assertRefusedWithout(cafeState, () => org.call('cafe.createSite', { name: 'X', code: uniqueCode('S'), locationId: archived }), 409, 'location_archived', 'locationId');
    const foreign = await location('cafe', 'Europe/Berlin', other);
    await assertRefusedWithout(cafeState, () => org.call('cafe.createSite', { name: 'X', code: uniqueCode('S'), locationId: foreign }), 404, 'not_found', 'locationId');
  });

  test('the timezone is an IANA name, and required without a location that has one', async () => {
    await assertRefusedWithout(cafeState, () => org.call('cafe.createSite', { name: 'X', code: uniqueCode('S'), timezone: 'Mars/Olympus' }), 400, 'invalid_input', 'timezone');
    await assertRefusedWithout(cafeState, () => org.call('cafe.createSite', { name: 'X', code: uniqueCode('S') }), 400, 'invalid_input', 'timezone');
    const bare = await location('cafe');
    await assertRefusedWithout(cafeState, () => org.call('cafe.createSite', { name: 'X', code: uniqueCode('S'), locationId: bare }), 400, 'invalid_input', 'timezone');
    await assertRefusedWithout(
      cafeState,
      () => org.call('cafe.createSite', { name: 'X', code: uniqueCode('S'), timezone: 'UTC', shotTarget: { timeMinS: 40, timeMaxS: 30 } }),
      400,
      'invalid_input',
      'shotTarget.timeMaxS',
    );
  });

  test('codes are unique per organization', async () => {
    const code = uniqueCode('S');
    await makeSite(org, { code });
    await assertRefusedWithout(cafeState, () => org.call('cafe.createSite', { name: 'Again', code, timezone: 'UTC' }), 409, 'duplicate', 'code');
    assert.equal((await other.call('cafe.createSite', { name: 'Theirs', code, timezone: 'UTC' })).status, 200, 'free in another organization');
  });
});

describe('bar machines', () => {
  test('an espresso machine has 1 group head by default; other kinds have none', async () => {
    const siteId = await makeSite(org);
    const em = await org.call('cafe.registerMachine', { siteId, name: 'Linea', code: 'EM1', kind: 'espresso_machine', brand: 'La Marzocco', deviceId: uniqueCode('dev') });
    assert.equal(em.status, 200, JSON.stringify(em.body));
    assert.equal(em.body.groupCount, 1);
    const grinder = await org.call('cafe.registerMachine', { siteId, name: 'Mythos', code: 'GR1', kind: 'grinder' });
    assert.equal(grinder.body.groupCount, 0);
    await assertRefusedWithout(cafeState, () => org.call('cafe.registerMachine', { siteId, name: 'G', code: 'GR2', kind: 'grinder', groupCount: 2 }), 400, 'invalid_input', 'groupCount');
    await assertRefusedWithout(cafeState, () => org.call('cafe.registerMachine', { siteId, name: 'E', code: 'EM7', kind: 'espresso_machine', groupCount: 7 }), 400, 'invalid_input', 'groupCount');
    await assertRefusedWithout(cafeState, () => org.call('cafe.registerMachine', { siteId, name: 'E', code: 'EM9', kind: 'kettle' }), 400, 'invalid_input', 'kind');
    await assertRefusedWithout(cafeState, () => org.call('cafe.registerMachine', { siteId, name: 'E', code: 'EM1', kind: 'espresso_machine' }), 409, 'duplicate', 'code');
    const otherSite = await makeSite(org);
    await assertRefusedWithout(
      cafeState,
      () => org.call('cafe.registerMachine', { siteId: otherSite, name: 'E', code: 'EM2', kind: 'espresso_machine', deviceId: em.body.deviceId }),
      409,
      'duplicate',
      'deviceId',
    );
    assert.equal((await org.call('cafe.registerMachine', { siteId: otherSite, name: 'E', code: 'EM1', kind: 'espresso_machine' })).status, 200, 'codes are per site');
    const bySite = await org.call('cafe.listMachines', { filter: { siteId, kind: 'grinder' } }, { method: 'GET' });
    assert.deepEqual(bySite.body.items.map((m: { id: string }) => m.id), [grinder.body.id]);
    await assertRefusedWithout(cafeState, () => org.call('cafe.issueBarMachineToken', { machineId: grinder.body.id }), 409, 'not_an_espresso_machine');
  });
});

describe('the shot channel', () => {
  test('a machine posts its shots; a resent shotId is harmless', async () => {
    const siteId = await makeSite(org);
    const machineId = await makeMachine(org, siteId);
    const token = await issueToken(org, machineId);
    assert.match(token, /^fcb_/);
    const shots = [shot({ group: 1 }), shot({ group: 2, durationS: 15, pressureBar: [2, 9, 9, 8.5] })];
    const first = await postShots(server.url, token, machineId, { shots });
    assert.equal(first.status, 202, JSON.stringify(first.body));
    assert.deepEqual(first.body, { accepted: 2, duplicates: 0 });
    assert.ok(first.headers.get('ratelimit-policy'), 'the channel answers its own RateLimit headers');
    const again = await postShots(server.url, token, machineId, { shots: [...shots, shot({ group: 1 })] });
    assert.deepEqual(again.body, { accepted: 1, duplicates: 2 });
    const rollups = await server.owner.query<{ group_no: number; shots: number; channeling: number }>(
      `select group_no, shots, channeling from cafe_shot_rollups where org_id = $1 and machine_id = $2 order by group_no`,
      [org.id, machineId],
    );
    assert.deepEqual(rollups, [{ group_no: 1, shots: 2, channeling: 0 }, { group_no: 2, shots: 1, channeling: 1 }]);
    const now = Date.now();
    const listed = await org.call('cafe.listShots', { filter: { siteId, from: new Date(now - 60_000).toISOString(), to: new Date(now + 60_000).toISOString() } });
    assert.equal(listed.body.items.length, 3);
    const channeled = listed.body.items.find((s: { group: number }) => s.group === 2);
    assert.deepEqual(channeled.pressureBar, [2, 9, 9, 8.5]);
    assert.equal(channeled.channeling, true);
    assert.equal(channeled.outsideTarget, true);
  });

  test('posts arriving together are stored together, each answered with its own counts', async () => {
    // Two sites in different timezones, three machines each (in turns, so a group holds both), every machine with a shot stored already.
    const sites = [await makeSite(org, { timezone: 'Europe/Berlin' }), await makeSite(org, { timezone: 'Asia/Kolkata' })];
    const machines = [];
    for (let i = 0; i < 3; i++) {
      for (const siteId of sites) {
        const machineId = await makeMachine(org, siteId);
        machines.push({ siteId, machineId, token: await issueToken(org, machineId), old: shot({ startedAt: '2026-11-19T23:30:00Z' }) });
      }
    }
    for (const res of await Promise.all(machines.map((m) => postShots(server.url, m.token, m.machineId, { shots: [m.old] })))) {
      assert.deepEqual(res.body, { accepted: 1, duplicates: 0 });
    }
    // Each machine at once: a post of two new shots (in different hours and local days), its old shot again and
    // one of the new shots twice; and a post of one new shot.
    const posts = machines.flatMap(({ machineId, token, old }, i) => {
      const a = shot({ group: 1, startedAt: '2026-11-20T18:10:00Z', durationS: 20 + i });
      const b = shot({ group: 2, startedAt: '2026-11-20T19:40:00Z', durationS: 15 });
      return [
        { machineId, token, shots: [a, b, old, a], expected: { accepted: 2, duplicates: 2 } },
        { machineId, token, shots: [shot({ group: 2, startedAt: '2026-11-21T00:20:00Z' })], expected: { accepted: 1, duplicates: 0 } },
      ];
    });
    const answers = await writtenTogether(() => Promise.all(posts.map((p) => postShots(server.url, p.token, p.machineId, { shots: p.shots }))));
    answers.forEach((res, i) => {
      assert.equal(res.status, 202, JSON.stringify(res.body));
      assert.deepEqual(res.body, posts[i].expected, `post ${i}`);
    });
    for (const { machineId } of machines) {
      const [{ n }] = await server.owner.query<{ n: number }>(`select count(*)::int as n from cafe_shots where org_id = $1 and machine_id = $2`, [org.id, machineId]);
      assert.equal(n, 4, 'the old shot and three new ones, each once');
    }
    for (const siteId of sites) await assertRollupsMatchShots(siteId);
  });

  test('a shotId in two posts arriving together is stored once, for one of them', async () => {
    const siteId = await makeSite(org);
    const machineId = await makeMachine(org, siteId);
    const token = await issueToken(org, machineId);
    assert.equal((await postShots(server.url, token, machineId, { shots: [shot()] })).status, 202);
    const shared = shot();
    const posts = [[shared, shot()], [shot(), shared], [shared]];
    const answers = await writtenTogether(() => Promise.all(posts.map((shots) => postShots(server.url, token, machineId, { shots }))));
    for (const res of answers) assert.equal(res.status, 202, JSON.stringify(res.body));
    assert.deepEqual(answers.map((r) => r.body.accepted + r.body.duplicates), [2, 2, 1]);
    assert.deepEqual(answers.map((r) => r.body.duplicates).sort(), [0, 1, 1], 'one post stored the shared shot; every other shot was new');
    const [{ n }] = await server.owner.query<{ n: number }>(`select count(*)::int as n from cafe_shots where org_id = $1 and machine_id = $2 and shot_id = $3`, [org.id, machineId, shared.shotId]);
    assert.equal(n, 1);
    await assertRollupsMatchShots(siteId);
  });

  test('a refused or failing post stores nothing and does not disturb the posts arriving with it', async () => {
    const siteId = await makeSite(org);
    const machines = [];
    for (let i = 0; i < 4; i++) {
      const machineId = await makeMachine(org, siteId, { groupCount: 2 });
      machines.push({ machineId, token: await issueToken(org, machineId) });
    }
    const [bad, failing, ...good] = machines;
    for (const { machineId, token } of machines) assert.equal((await postShots(server.url, token, machineId, { shots: [shot({ group: 2 })] })).status, 202);
    const kept = shot({ group: 1 });
    // A post that passes validation and fails in the write: the database refuses this shot id (a trigger this
    // test adds to its own database).
    await server.owner.exec(`
      create function cafe_test_refuse_shot() returns trigger language plpgsql as $$
      begin raise exception 'shot % refused by the test', new.shot_id; end $$;
      create trigger cafe_test_refuse_shot before insert on cafe_shots for each row
        when (new.shot_id = 'refused-by-the-database') execute function cafe_test_refuse_shot();`);
    try {
      const failingShots = [kept, shot({ shotId: 'refused-by-the-database' })];
      const answers = await writtenTogether(() => Promise.all([
        postShots(server.url, bad.token, bad.machineId, { shots: [shot({ group: 1 }), shot({ group: 3 })] }),
        postShots(server.url, failing.token, failing.machineId, { shots: failingShots }),
        ...good.flatMap(({ machineId, token }) => [0, 1, 2].map(() => postShots(server.url, token, machineId, { shots: [shot({ group: 1 }), shot({ group: 2 })] }))),
      ]));
      assertProblem(answers[0], 400, 'invalid_input', 'shots[1].group');
      assert.notEqual(answers[1].status, 202, 'the failing post is not acknowledged');
      for (const res of answers.slice(2)) assert.deepEqual(res.body, { accepted: 2, duplicates: 0 });
      const stored = await server.owner.query<{ machine_id: string; n: number }>(
        `select machine_id, count(*)::int as n from cafe_shots where org_id = $1 and site_id = $2 group by machine_id`,
        [org.id, siteId],
      );
      assert.deepEqual(new Map(stored.map((r) => [r.machine_id, r.n])), new Map(machines.map((m) => [m.machineId, good.includes(m) ? 7 : 1])), 'nothing of the refused or failing post');
      await assertRollupsMatchShots(siteId);
      // The failing post's good shot was not stored, so posting it alone now stores it.
      assert.deepEqual((await postShots(server.url, failing.token, failing.machineId, { shots: [kept] })).body, { accepted: 1, duplicates: 0 });
    } finally {
      // The trigger goes whatever the assertions found: later tests of this file post shots too.
      await server.owner.exec('drop trigger cafe_test_refuse_shot on cafe_shots; drop function cafe_test_refuse_shot()');
    }
  });

  test('one bad shot refuses the whole post, naming it', async () => {
    const siteId = await makeSite(org);
    const machineId = await makeMachine(org, siteId, { groupCount: 2 });
    const token = await issueToken(org, machineId);
    const post = (shots: unknown[]) => async () => ({ ...(await postShots(server.url, token, machineId, { shots })) });
    await assertRefusedWithout(cafeState, post([shot(), shot({ group: 3 })]), 400, 'invalid_input', 'shots[1].group');
    await assertRefusedWithout(cafeState, post([shot({ durationS: -1 })]), 400, 'invalid_input', 'shots[0].durationS');
    await assertRefusedWithout(cafeState, post([shot({ startedAt: 'yesterday' })]), 400, 'invalid_input', 'shots[0].startedAt');
    await assertRefusedWithout(cafeState, post([]), 400, 'invalid_input', 'shots');
    // Text the database cannot hold is invalid input naming the field, not a failed write.
    await assertRefusedWithout(cafeState, post([shot(), shot({ shotId: 'nul\u0000shot' })]), 400, 'invalid_input', 'shots[1].shotId');
  });

  test('a token posts only for its own machine; API keys and no credential are refused', async () => {
    const siteId = await makeSite(org);
    const mine = await makeMachine(org, siteId);
    const sibling = await makeMachine(org, siteId);
    const token = await issueToken(org, mine);
    await assertRefusedWithout(cafeState, async () => postShots(server.url, token, sibling, { shots: [shot()] }), 403, 'wrong_machine');
    // Another organization's machine is no different: the token names one machine only.
    const theirSite = await makeSite(other);
    const theirs = await makeMachine(other, theirSite);
    await assertRefusedWithout(() => cafeState(other.id), async () => postShots(server.url, token, theirs, { shots: [shot()] }), 403, 'wrong_machine');
    await assertRefusedWithout(cafeState, async () => postShots(server.url, org.key, mine, { shots: [shot()] }), 403, 'bridge_token_required');
    await assertRefusedWithout(cafeState, async () => postShots(server.url, undefined, mine, { shots: [shot()] }), 401, 'unauthenticated');
    // The bar token opens nothing on the API.
    assertProblem(await server.call(token, 'cafe.listSites', {}), 403, 'bridge_token_not_allowed');
    // A roasting machine's bridge token is no bar token.
    const roaster = await org.call('catalog.machine.registerMachine', { name: 'Probat', code: uniqueCode('R') });
    const bridge = await org.call('catalog.machine.issueMachineBridgeToken', { machineId: roaster.body.id });
    assertProblem(await postShots(server.url, bridge.body.token, roaster.body.id, { shots: [shot()] }), 404, 'not_found');
  });

  test('a plan without the cafe module cannot call cafe operations', async () => {
    const small = await server.createOrg('starter', 'Small roastery');
    assertProblem(await small.call('cafe.listSites', {}), 403, 'module_not_enabled');
  });
});

describe('the live bar', () => {
  test('shows the last five minutes per group head and judges each group head on its own', async () => {
    const siteId = await makeSite(org);
    const machineId = await makeMachine(org, siteId, { groupCount: 3 });
    const token = await issueToken(org, machineId);
    const now = Date.now();
    const at = (secondsAgo: number) => new Date(now - secondsAgo * 1000).toISOString();
    const shots = [
      // Group 1: on target.
      shot({ group: 1, startedAt: at(30) }),
      shot({ group: 1, startedAt: at(90) }),
      // Group 2: three of its last five over-extracted (too long), one older than five minutes.
      shot({ group: 2, startedAt: at(20), durationS: 40 }),
      shot({ group: 2, startedAt: at(60), durationS: 41 }),
      shot({ group: 2, startedAt: at(100) }),
      shot({ group: 2, startedAt: at(400), durationS: 39 }),
      // Group 3: two channeling-fast shots.
      shot({ group: 3, startedAt: at(10), durationS: 12 }),
      shot({ group: 3, startedAt: at(50), durationS: 14 }),
      // Two hours ago: in the database, not in the live session.
      shot({ group: 1, startedAt: at(7200), durationS: 50 }),
    ];
    assert.equal((await postShots(server.url, token, machineId, { shots })).status, 202);

    // No query may touch the shot table: with it renamed away, the live bar still answers in full.
    await server.owner.query(`alter table cafe_shots rename to cafe_shots_hidden`);
    let res;
    try {
      res = await org.call('cafe.getLiveBar', { siteId });
    } finally {
      await server.owner.query(`alter table cafe_shots_hidden rename to cafe_shots`);
    }
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const heads = new Map(res.body.groupHeads.map((g: { group: number }) => [g.group, g]));
    const head = (n: number) => heads.get(n) as { shots: { startedAt: string }[]; failing: boolean; reasons: { code: string }[] };
    assert.equal(head(1).shots.length, 2);
    assert.equal(head(1).failing, false);
    assert.equal(head(2).shots.length, 3, 'only the last five minutes are shown');
    assert.deepEqual(head(2).reasons.map((r) => r.code), ['outside_target']);
    assert.deepEqual(head(3).reasons.map((r) => r.code), ['channeling'], 'two channeling-fast shots fail the group head');
    assert.deepEqual(res.body.failing.map((f: { group: number }) => f.group).sort(), [2, 3]);
    assert.ok(head(2).shots[0].startedAt > head(2).shots[1].startedAt, 'newest first');
  });

  test('a live session that fails to take the shots loses none: the post is stored and answered', async () => {
    const siteId = await makeSite(org);
    const machineId = await makeMachine(org, siteId);
    const token = await issueToken(org, machineId);
    const liveBar = server.app.services.liveBar;
    const record = liveBar.record;
    let refused = 0;
    liveBar.record = async () => {
      refused++;
      throw new Error('live store away');
    };
    const s = shot();
    try {
      const res = await postShots(server.url, token, machineId, { shots: [s] });
      assert.equal(res.status, 202);
      assert.deepEqual(res.body, { accepted: 1, duplicates: 0 });
    } finally {
      liveBar.record = record;
    }
    assert.equal(refused, 1, 'the session was sent the new shot');
    const now = Date.parse(s.startedAt);
    const listed = await org.call('cafe.listShots', { filter: { siteId, from: new Date(now - 60_000).toISOString(), to: new Date(now + 60_000).toISOString() } });
    assert.deepEqual(listed.body.items.map((x: { shotId: string }) => x.shotId), [s.shotId], 'the shot is stored');
  });

  test('in server mode the live session is in Redis, so any API process answers', async (t) => {
    const url = process.env.REDIS_URL;
    if (!url) return t.skip('REDIS_URL is not set (embedded: the live session is this process’s memory)');
    const siteId = await makeSite(org);
    const machineId = await makeMachine(org, siteId);
    const token = await issueToken(org, machineId);
    const s = shot();
    await postShots(server.url, token, machineId, { shots: [s] });
    // A store of its own, as another API process would have.
    const elsewhere = new RedisLiveWindowStore<LiveShot>(new Redis(url), { ...LIVE_BAR, ownsClient: true });
    try {
      const seen = await elsewhere.read(org.id, siteId, Date.now() - 60_000);
      assert.deepEqual(seen.map((x) => x.shotId), [s.shotId]);
    } finally {
      await elsewhere.close();
    }
  });
});

describe('live bar stores', () => {
  const liveShot = (shotId: string, startedAt: number): LiveShot => ({
    shotId, machineId: 'bm_1', group: 1, startedAt, durationS: 27, doseG: 18, yieldG: 38, outsideTarget: false, channeling: false,
  });
  const stores: [string, () => LiveBarStore | undefined][] = [
    ['memory', () => new MemoryLiveWindowStore<LiveShot>(LIVE_BAR)],
    ['Redis', () => (process.env.REDIS_URL ? new RedisLiveWindowStore<LiveShot>(new Redis(process.env.REDIS_URL), { ...LIVE_BAR, keyPrefix: `fc-test-bar-${uniqueCode('K')}`, ownsClient: true }) : undefined)],
  ];
  for (const [name, open] of stores) {
    test(`${name}: keeps the retention window, each shot once, and at most 5,000 shots a site`, async (t) => {
      const store = open();
      if (!store) return t.skip('REDIS_URL is not set');
      try {
        const now = Date.parse('2026-11-25T12:00:00Z');
        const hour = LIVE_RETAIN_SECONDS * 1000;
        await store.record('org_a', 'cs_1', [liveShot('too-old', now - hour - 1), liveShot('a', now - hour), liveShot('b', now - 1000)], now);
        assert.deepEqual((await store.read('org_a', 'cs_1', 0)).map((s) => s.shotId), ['a', 'b'], 'a shot from before the window is not kept');
        await store.record('org_a', 'cs_1', [liveShot('b', now - 1000), liveShot('c', now)], now + 1);
        assert.deepEqual((await store.read('org_a', 'cs_1', 0)).map((s) => s.shotId), ['b', 'c'], 'a later write drops what left the window; a resent shot is kept once');
        assert.deepEqual((await store.read('org_a', 'cs_1', now)).map((s) => s.shotId), ['c'], 'read answers what started at or after sinceMs');
        assert.deepEqual(await store.read('org_b', 'cs_1', 0), [], 'another organization’s site of the same id is apart');
        const many = Array.from({ length: 5200 }, (_, i) => liveShot(`m${i}`, now + 10 + i));
        await store.record('org_a', 'cs_2', many, now + 10);
        const kept = await store.read('org_a', 'cs_2', 0);
        assert.equal(kept.length, 5000, 'a site keeps at most 5,000 shots');
        assert.equal(kept[0].shotId, 'm200', 'the newest are kept');
      } finally {
        await store.close();
      }
    });
  }
});

describe('listShots', () => {
  test('requires a time window of at most seven days and honours the limit', async () => {
    const siteId = await makeSite(org);
    const machineId = await makeMachine(org, siteId);
    const token = await issueToken(org, machineId);
    const base = Date.parse('2026-11-20T10:00:00Z');
    await postShots(server.url, token, machineId, { shots: [0, 1, 2].map((i) => shot({ startedAt: new Date(base + i * 60_000).toISOString() })) });
    assertProblem(await org.call('cafe.listShots', { filter: { siteId } }), 400, 'invalid_input', 'filter.from');
    assertProblem(await org.call('cafe.listShots', { limit: 5 }), 400, 'invalid_input', 'filter');
    assertProblem(await org.call('cafe.listShots', { filter: { from: '2026-11-01T00:00:00Z', to: '2026-11-09T00:00:00Z' } }), 400, 'invalid_input', 'filter.to');
    const window = { siteId, from: '2026-11-20T00:00:00Z', to: '2026-11-21T00:00:00Z' };
    const page = await org.call('cafe.listShots', { filter: window, limit: 2 }, { method: 'GET' });
    assert.equal(page.status, 200, JSON.stringify(page.body));
    assert.equal(page.body.items.length, 2);
    assert.equal(page.body.truncated, true);
    const all = await org.call('cafe.listShots', { filter: window });
    assert.equal(all.body.items.length, 3);
    assert.equal(all.body.truncated, false);
  });
});

const line = (posLineId: string, soldAt: string, quantity = 1, shotEquivalents = 2) => ({ posLineId, soldAt, item: 'Double espresso', quantity, shotEquivalents });

describe('POS sales and reconciliation', () => {
  test('importing is idempotent per POS line id; one bad line refuses the batch', async () => {
    const siteId = await makeSite(org);
    const first = await org.call('cafe.importPosSales', { siteId, lines: [line('A1', '2026-11-20T09:00:00Z'), line('A2', '2026-11-20T09:05:00Z', 3, 1)] });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.deepEqual(first.body, { siteId, received: 2, new: 2, known: 0, newShotEquivalents: 5 });
    const again = await org.call('cafe.importPosSales', { siteId, lines: [line('A1', '2026-11-20T09:00:00Z'), line('A3', '2026-11-20T09:10:00Z'), line('A3', '2026-11-20T09:10:00Z')] });
    assert.deepEqual(again.body, { siteId, received: 3, new: 1, known: 2, newShotEquivalents: 2 });
    const stored = await server.owner.query<{ n: number }>(`select count(*)::int as n from cafe_pos_sales where org_id = $1 and site_id = $2`, [org.id, siteId]);
    assert.equal(stored[0].n, 3);
    const [rollup] = await server.owner.query<{ shot_equivalents: string }>(`select shot_equivalents from cafe_sale_rollups where org_id = $1 and site_id = $2`, [org.id, siteId]);
    assert.equal(Number(rollup.shot_equivalents), 7);
    await assertRefusedWithout(
      cafeState,
      () => org.call('cafe.importPosSales', { siteId, lines: [line('B1', '2026-11-20T10:00:00Z'), { ...line('B2', '2026-11-20T10:00:00Z'), quantity: 0 }] }),
      400,
      'invalid_input',
      'lines[1].quantity',
    );
  });

  test('a business day is the site’s local day: 25 hours when the clocks go back, 23 when they go forward', async () => {
    const siteId = await makeSite(org, { timezone: 'Europe/Berlin' });
    const machineId = await makeMachine(org, siteId, { groupCount: 2 });
    const token = await issueToken(org, machineId);
    // 2026-10-25 in Berlin: 00:00 CEST (22:00Z the day before) to 24:00 CET (23:00Z), 25 hours.
    const shots = [
      shot({ startedAt: '2026-10-24T21:59:00Z' }), // 23:59 the day before: not counted
      shot({ startedAt: '2026-10-24T22:01:00Z' }), // 00:01 local
      shot({ group: 2, startedAt: '2026-10-25T12:00:00Z' }),
      shot({ group: 2, startedAt: '2026-10-25T22:59:00Z' }), // 23:59 CET
      shot({ startedAt: '2026-10-25T23:01:00Z' }), // the next day
    ];
    assert.equal((await postShots(server.url, token, machineId, { shots })).status, 202);
    await org.call('cafe.importPosSales', { siteId, lines: [line('D1', '2026-10-25T08:00:00Z', 1, 2), line('D2', '2026-10-25T22:30:00Z', 1, 2), line('D3', '2026-10-24T21:00:00Z', 5, 2)] });
    const first = await org.call('cafe.reconcilePos', { siteId, businessDate: '2026-10-25' });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.hours, 25);
    assert.equal(first.body.dayStart, '2026-10-24T22:00:00.000Z');
    assert.equal(first.body.dayEnd, '2026-10-25T23:00:00.000Z');
    assert.equal(first.body.shotsPulled, 3);
    assert.equal(first.body.saleShotEquivalents, 4);
    assert.equal(first.body.variance, -1, 'sold more than the machines reported');
    assert.deepEqual(first.body.machines, [{ machineId, shotsPulled: 3, shareOfShots: 1 }]);
    assert.equal(first.body.version, 1);

    // More shots arrive late; running it again records version 2 and keeps version 1.
    await postShots(server.url, token, machineId, { shots: [shot({ startedAt: '2026-10-25T15:00:00Z' }), shot({ startedAt: '2026-10-25T15:01:00Z' })] });
    const second = await org.call('cafe.reconcilePos', { siteId, businessDate: '2026-10-25' });
    assert.equal(second.body.version, 2);
    assert.equal(second.body.variance, 1, 'pulled more than sold');
    const spring = await org.call('cafe.reconcilePos', { siteId, businessDate: '2026-03-29' });
    assert.equal(spring.body.hours, 23);

    const all = await org.call('cafe.listReconciliations', { filter: { siteId, from: '2026-10-25', to: '2026-10-25' } }, { method: 'GET' });
    assert.deepEqual(all.body.items.map((r: { version: number }) => r.version), [1, 2]);
    const latest = await org.call('cafe.listReconciliations', { filter: { siteId, latestOnly: true } });
    assert.deepEqual(latest.body.items.map((r: { businessDate: string; version: number }) => `${r.businessDate}@${r.version}`).sort(), ['2026-03-29@1', '2026-10-25@2']);
    assertProblem(await org.call('cafe.reconcilePos', { siteId, businessDate: '2026-02-30' }), 400, 'invalid_input', 'businessDate');
  });

  test('business days from 1900-01-01 to 9999-12-30 reconcile with four-digit years in every time zone; others are a 400', async () => {
    for (const timezone of ['Pacific/Kiritimati', 'Pacific/Pago_Pago']) {
      const siteId = await makeSite(org, { timezone });
      for (const businessDate of ['0001-01-01', '0999-12-31', '1899-12-31', '9999-12-31']) {
        assertProblem(await org.call('cafe.reconcilePos', { siteId, businessDate }), 400, 'invalid_input', 'businessDate');
      }
      for (const businessDate of ['1900-01-01', '9999-12-30']) {
        const res = await org.call('cafe.reconcilePos', { siteId, businessDate });
        assert.equal(res.status, 200, `${timezone} ${businessDate}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.businessDate, businessDate);
        assert.match(res.body.dayStart, /^\d{4}-\d{2}-\d{2}T/, res.body.dayStart);
        assert.match(res.body.dayEnd, /^\d{4}-\d{2}-\d{2}T/, res.body.dayEnd);
      }
      const listed = await org.call('cafe.listReconciliations', { filter: { siteId, from: '1900-01-01', to: '9999-12-30' } });
      assert.deepEqual(listed.body.items.map((r: { businessDate: string }) => r.businessDate).sort(), ['1900-01-01', '9999-12-30']);
    }
  });
});

describe('site performance', () => {
  test('per local day, hour of day and group head, from the rollups only', async () => {
    const siteId = await makeSite(org, { timezone: 'America/New_York' });
    const machineId = await makeMachine(org, siteId, { groupCount: 2 });
    const token = await issueToken(org, machineId);
    const shots = [
      shot({ group: 1, startedAt: '2026-11-20T13:10:00Z' }), // 08:10 local, Nov 20
      shot({ group: 1, startedAt: '2026-11-20T13:20:00Z', durationS: 45 }),
      shot({ group: 2, startedAt: '2026-11-21T03:30:00Z' }), // 22:30 local, still Nov 20
      shot({ group: 2, startedAt: '2026-11-21T14:00:00Z' }), // 09:00 local, Nov 21
    ];
    await postShots(server.url, token, machineId, { shots });
    await org.call('cafe.importPosSales', { siteId, lines: [line('P1', '2026-11-20T13:15:00Z', 1, 2), line('P2', '2026-11-21T14:05:00Z', 1, 1)] });

    // With the raw shots hidden, the answer is the same: it reads rollups only.
    await server.owner.query(`alter table cafe_shots rename to cafe_shots_hidden`);
    let res;
    try {
      res = await org.call('cafe.getSitePerformance', { siteId, from: '2026-11-20', to: '2026-11-22' }, { method: 'GET' });
    } finally {
      await server.owner.query(`alter table cafe_shots_hidden rename to cafe_shots`);
    }
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const body = res.body;
    assert.deepEqual(body.totals, { shots: 4, outsideTargetShots: 1, failingShare: 0.25, channelingShots: 0, saleShotEquivalents: 3, variance: 1 });
    assert.deepEqual(body.days.map((d: { date: string; shots: number }) => [d.date, d.shots]), [['2026-11-20', 3], ['2026-11-21', 1], ['2026-11-22', 0]]);
    assert.equal(body.hours[8].shots, 2);
    assert.equal(body.hours[8].saleShotEquivalents, 2);
    assert.equal(body.hours[22].shots, 1);
    assert.deepEqual(body.groupHeads.map((g: { group: number; shots: number; failingShare: number }) => [g.group, g.shots, g.failingShare]), [[1, 2, 0.5], [2, 2, 0]]);
    assertProblem(await org.call('cafe.getSitePerformance', { siteId, from: '2025-01-01', to: '2026-11-22' }), 400, 'invalid_input', 'to');
    assertProblem(await org.call('cafe.getSitePerformance', { siteId, from: '2026-11-22', to: '2026-11-20' }), 400, 'invalid_input', 'to');
  });
});

describe('the bar simulator', () => {
  test('posts shots through the channel; a faulty group head shows as failing', async () => {
    const { simulateBar } = await import('./simulator.js');
    const siteId = await makeSite(org);
    const stats = await simulateBar({ baseUrl: server.url, apiKey: org.key, siteId, machines: 2, groups: 2, rate: 600, durationSeconds: 1.5, faultyGroup: 1 });
    // At most 30 posts per machine token: well inside the channel's burst budget of 60 per 10 s.
    assert.ok(stats.accepted > 4, `shots were accepted: ${JSON.stringify(stats)}`);
    assert.equal(stats.refused, 0, 'no shot was refused');
    const machines = await org.call('cafe.listMachines', { filter: { siteId } });
    assert.deepEqual(machines.body.items.map((m: { code: string }) => m.code).sort(), ['SIM-1', 'SIM-2']);
    const [{ n }] = await server.owner.query<{ n: number }>(`select count(*)::int as n from cafe_shots where org_id = $1 and site_id = $2`, [org.id, siteId]);
    assert.equal(n, stats.accepted);
    // Run again: the machines are reused, not registered twice.
    await simulateBar({ baseUrl: server.url, apiKey: org.key, siteId, machines: 2, groups: 2, rate: 60, durationSeconds: 0.2 });
    assert.equal((await org.call('cafe.listMachines', { filter: { siteId } })).body.items.length, 2);
  });
});

describe('the shot channel’s budget', () => {
  test('is its own: posting shots draws nothing from the API budget', async () => {
    const tight = await startTestServer({ rateWindows: [{ name: 'burst', points: 4, seconds: 60 }, { name: 'sustained', points: 4, seconds: 60 }] });
    const cafe = await tight.createOrg('enterprise', 'Tight cafe');
    const siteId = await makeSite(cafe);
    const machineId = await makeMachine(cafe, siteId);
    const token = await issueToken(cafe, machineId);
    // Three API calls spent, one left; six posts go through the channel's own budget.
    for (let i = 0; i < 6; i++) assert.equal((await postShots(tight.url, token, machineId, { shots: [shot()] })).status, 202, `post ${i} accepted`);
    assert.equal((await cafe.call('cafe.listSites', {})).status, 200, 'the API budget still has its fourth call');
    assertProblem(await cafe.call('cafe.listSites', {}), 429, 'rate_limited');
  });
});

describe('site performance from day and hour-of-day rollups', () => {
  test('answers exactly what the hourly rollups answer: DST days, half-hour timezones, whole and partial months', async () => {
    const ranges: [string, string][] = [
      ['2026-01-01', '2026-12-31'],
      ['2026-02-15', '2026-11-20'],
      ['2026-03-28', '2026-03-30'],
      ['2026-10-01', '2026-10-31'],
      ['2026-10-25', '2026-10-25'],
      ['2026-01-31', '2026-03-01'],
      ['2025-12-15', '2026-01-10'],
      ['2026-01-27', '2026-12-26'],
      ['2026-06-02', '2026-06-29'],
      ['2026-01-15', '2026-02-14'],
    ];
    for (const timezone of ['Europe/Berlin', 'Asia/Kolkata', 'America/New_York']) {
      const siteId = await makeSite(org, { timezone });
      const machines = [await makeMachine(org, siteId, { groupCount: 2 }), await makeMachine(org, siteId, { groupCount: 1 })];
      // Shots every ~21.5 hours through 2026 plus every half hour around both Berlin DST changes and New York's.
      const instants: number[] = [];
      for (let t = Date.parse('2025-12-31T20:10:00Z'); t < Date.parse('2027-01-01T06:00:00Z'); t += 77_700_000) instants.push(t);
      for (const around of ['2026-03-29T00:00:00Z', '2026-10-25T00:00:00Z', '2026-03-08T05:00:00Z', '2026-11-01T04:00:00Z']) {
        for (let k = 0; k < 10; k++) instants.push(Date.parse(around) + k * 1_800_000);
      }
      for (const [m, machineId] of machines.entries()) {
        const token = await issueToken(org, machineId);
        const shots = instants.map((t, i) =>
          shot({ shotId: `eq-${m}-${i}`, group: m === 0 ? 1 + (i % 2) : 1, startedAt: new Date(t + m * 600_000).toISOString(), durationS: i % 4 === 0 ? 45 : 26.5 }),
        );
        const res = await postShots(server.url, token, machineId, { shots });
        assert.equal(res.status, 202, res.text);
      }
      const lines = instants.map((t, i) => line(`eq-${i}`, new Date(t + 300_000).toISOString(), 1 + (i % 2), 2));
      const imported = await org.call('cafe.importPosSales', { siteId, lines });
      assert.equal(imported.status, 200, JSON.stringify(imported.body));

      const site = (await repo.findSite(server.owner, org.id, siteId))!;
      for (const [from, to] of ranges) {
        const { start, end } = await repo.localRange(server.owner, timezone, from, to);
        const expected = performanceOf(
          site,
          from,
          to,
          await repo.shotRollupFigures(server.owner, org.id, siteId, from, start, end),
          await repo.saleRollupFigures(server.owner, org.id, siteId, from, start, end),
        );
        const res = await org.call('cafe.getSitePerformance', { siteId, from, to }, { method: 'GET' });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.deepEqual(res.body, JSON.parse(JSON.stringify(expected)), `${timezone} ${from}..${to}`);
        assert.ok(res.body.totals.shots > 0 || from === '2026-10-25', `${timezone} ${from}..${to} has shots`);
      }
    }
  });

  test('how a range is read: whole months, less or plus the hours of the days that read fewer', () => {
    const split = (from: string, to: string) => repo.splitByMonths(from, to);
    assert.deepEqual(split('2026-01-01', '2026-12-31'), { months: ['2026-01-01', '2027-01-01'], add: [], subtract: [] });
    // February half in (a tie reads the days in), November two thirds in (the month less its last ten days).
    assert.deepEqual(split('2026-02-15', '2026-11-20'), { months: ['2026-03-01', '2026-12-01'], add: [['2026-02-15', '2026-02-28']], subtract: [['2026-11-21', '2026-11-30']] });
    assert.deepEqual(split('2026-06-02', '2026-06-08'), { months: null, add: [['2026-06-02', '2026-06-08']], subtract: [] });
    assert.deepEqual(split('2026-06-02', '2026-06-29'), { months: ['2026-06-01', '2026-07-01'], add: [], subtract: [['2026-06-01', '2026-06-01'], ['2026-06-30', '2026-06-30']] });
    assert.deepEqual(split('2026-01-31', '2026-03-01'), { months: ['2026-02-01', '2026-03-01'], add: [['2026-01-31', '2026-01-31'], ['2026-03-01', '2026-03-01']], subtract: [] });
    assert.deepEqual(split('2026-01-15', '2026-02-14'), { months: ['2026-01-01', '2026-02-01'], add: [['2026-02-01', '2026-02-14']], subtract: [['2026-01-01', '2026-01-14']] });
    assert.deepEqual(split('2026-01-27', '2026-12-26'), { months: ['2026-02-01', '2027-01-01'], add: [['2026-01-27', '2026-01-31']], subtract: [['2026-12-27', '2026-12-31']] });
  });
});
