// The cafe module under load (`node --import tsx bench/cafe.ts`; DATABASE_URL and REDIS_URL for server mode):
//  (a) shot ingest: 20 espresso machines, each its own bar token, posting one shot per post (a machine's real
//      pace, one post per shot) through the full channel (guard chain, own budget, validation, the posts arriving
//      together stored with their hourly, day and hour-of-day rollups in one statement, the live session) against a bare route that
//      parses the same bodies and answers 202, in the same process and run, rounds alternating. Goal: full ≥ 50%
//      of bare. Two more routes show what bounds it: `round trip` parses the body and runs `select 1` on the
//      service pool (any route that touches the database at all), `statement` validates, judges and runs the
//      channel's own insert statement for that post alone (no group, no guard chain, no live session).
//  (b) getSitePerformance over a year of one site against a week of it: the shots (CAFE_BENCH_SHOTS, 1,000,000
//      on PostgreSQL, 100,000 on PGlite by default) and their rollups are seeded with bare SQL. Goal: ≤ 1.5.
//      A bound row: a bare route answering the same precomputed answer objects, year against week (what
//      serializing, sending and parsing a year's 365 days costs, whatever computes them).
//  (c) getLiveBar p99 while 100 sites post shots, one every 5 s each (each site's live session holding an hour of shots).
import type autocannon from 'autocannon';
import { createOrganization } from '../src/auth/organizations.js';
import { loadConfig } from '../src/config.js';
import { GENEROUS_WINDOWS } from '../src/testing/harness.js';
import { simulatedShot } from '../src/modules/cafe/simulator.js';
import * as cafeRepo from '../src/modules/cafe/repository.js';
import { ShotsPost } from '../src/modules/cafe/schemas.js';
import { DEFAULT_SHOT_TARGET, judgeShot } from '../src/modules/cafe/targets.js';
import { announce, cpuSince, cpuSnapshot, load, median, printTable, record, settledNote, startBenchApp, untilSettled } from './lib.js';

const MACHINES = 20;
const SITES = 100;
/** Each site posts a shot every 5 s (a busy bar: 3 machines × 2 group heads, a shot every 30 s each): 20 posts/s in all. */
const POST_INTERVAL_MS = 5000;

export async function benchCafe(rounds = Number(process.env.BENCH_ROUNDS ?? 3)) {
  announce('cafe');
  const redisUrl = loadConfig().redisUrl;
  /** The organization and site the bound routes write for, set once they exist. */
  let scope: { orgId: string; site: { id: string; timezone: string } } | undefined;
  /** getSitePerformance's answers for the week and the year, for the bare performance route. */
  const perfAnswers: Record<string, unknown> = {};
  const bench = await startBenchApp(
    {
      cafeIngestRateWindows: GENEROUS_WINDOWS,
      plugins: [
        (app) => {
          app.post<{ Params: { machineId: string }; Body: { shots: unknown[] } }>('/bench/bare/cafe/:machineId', async (request, reply) =>
            reply.code(202).send({ accepted: request.body.shots.length, duplicates: 0 }),
          );
          app.post<{ Params: { machineId: string }; Body: { shots: unknown[] } }>('/bench/roundtrip/cafe/:machineId', async (request, reply) => {
            await bench.app.databases.service.transaction((tx) => tx.query('select 1'), { orgId: scope!.orgId, readOnly: true });
            return reply.code(202).send({ accepted: request.body.shots.length, duplicates: 0 });
          });
          app.post<{ Body: { range: string } }>('/bench/bare/performance', async (request, reply) =>
            // Encoded as the RPC route encodes an answer.
            reply.type('application/json; charset=utf-8').send(Buffer.from(JSON.stringify(perfAnswers[request.body.range]))),
          );
          app.post<{ Params: { machineId: string }; Body: unknown }>('/bench/statement/cafe/:machineId', async (request, reply) => {
            const { shots } = ShotsPost.parse(request.body);
            const judged = shots.map((shot) => ({ ...shot, ...judgeShot(DEFAULT_SHOT_TARGET, shot) }));
            const { orgId, site } = scope!;
            const [stored] = await bench.app.databases.service.transaction(
              (tx) => cafeRepo.insertShots(tx, orgId, [{ site, machineId: request.params.machineId, shots: judged }]),
              { orgId, readOnly: true },
            );
            return reply.code(202).send({ accepted: stored.length, duplicates: shots.length - stored.length });
          });
        },
      ],
    },
    { redisUrl },
  );
  const store = redisUrl ? 'Redis' : 'memory';
  const { organizationId, apiKey } = await createOrganization(bench.app.databases.owner, 'Bench cafes', 'enterprise');
  const rpc = async (operation: string, input: unknown) => {
    const response = await fetch(`${bench.url}/rpc/v1/${operation}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(input),
    });
    if (!response.ok) throw new Error(`${operation}: ${response.status} ${await response.text()}`);
    return (await response.json()) as any;
  };
  const postShots = (machineId: string, token: string, shots: unknown[]) =>
    fetch(`${bench.url}/ingest/v1/cafe/machines/${machineId}/shots`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ shots }),
    }).then(async (r) => {
      if (r.status !== 202) throw new Error(`post shots: ${r.status} ${await r.text()}`);
    });

  // CAFE_BENCH_PARTS=ingest,performance,live runs only those parts (all three by default).
  const parts = new Set((process.env.CAFE_BENCH_PARTS ?? 'ingest,performance,live').split(','));
  let ingestRatio = NaN;
  let perfRatio = NaN;
  let liveP99Ms = NaN;
  if (parts.has('ingest')) {
  // (a) Shot ingest.
  const ingestSite = await rpc('cafe.createSite', { name: 'Ingest bench', code: 'INGEST', timezone: 'Europe/Berlin' });
  scope = { orgId: organizationId, site: { id: ingestSite.id, timezone: 'Europe/Berlin' } };
  const machines: { id: string; token: string; n: number }[] = [];
  for (let i = 0; i < MACHINES; i++) {
    const machine = await rpc('cafe.registerMachine', { siteId: ingestSite.id, name: `EM ${i}`, code: `EM-${i}`, kind: 'espresso_machine', groupCount: 3 });
    const { token } = await rpc('cafe.issueBarMachineToken', { machineId: machine.id });
    machines.push({ id: machine.id, token, n: 0 });
  }
  const PATHS = { full: 'ingest/v1/cafe/machines', bare: 'bench/bare/cafe', 'round trip': 'bench/roundtrip/cafe', statement: 'bench/statement/cafe' };
  let runs = 0;
  // Each run's CPU per post, the server's and its database backends': steadier than posts/s on a busy machine.
  const run = async (target: keyof typeof PATHS, duration: number) => {
    const data: ShotLoad = { url: bench.url, target, path: PATHS[target], duration, runId: `${runs++}`, machines: machines.map(({ id, token }) => ({ id, token })) };
    const before = await cpuSnapshot(bench.app.databases.owner);
    const result = await load({}, { module: import.meta.url, name: 'shotLoad', data });
    const used = await cpuSince(before, bench.app.databases.owner);
    const posts = Math.max(1, result.requestsPerSecond * duration);
    return { ...result, serverMicros: Math.round(used.server / posts), databaseMicros: Math.round(used.database / posts) };
  };
  const fullCpu: number[] = [];
  const bareCpu: number[] = [];
  await run('bare', 2);
  await run('full', 2);
  const full: number[] = [];
  const bare: number[] = [];
  const roundTrip: number[] = [];
  const statement: number[] = [];
  const details: Record<string, string | number>[] = [];
  const settled = await untilSettled(async (round) => {
    const b = await run('bare', 5);
    const f = await run('full', 5);
    const r = await run('round trip', 5);
    const s = await run('statement', 5);
    bare.push(b.requestsPerSecond);
    full.push(f.requestsPerSecond);
    roundTrip.push(r.requestsPerSecond);
    statement.push(s.requestsPerSecond);
    bareCpu.push(b.serverMicros + b.databaseMicros);
    fullCpu.push(f.serverMicros + f.databaseMicros);
    details.push({
      round,
      'bare posts/s': b.requestsPerSecond,
      'full posts/s': f.requestsPerSecond,
      'full p99 ms': f.p99Ms,
      'bare CPU µs/post': b.serverMicros + b.databaseMicros,
      'full CPU µs/post (server + db)': `${f.serverMicros} + ${f.databaseMicros}`,
      'round trip/s': r.requestsPerSecond,
      'statement/s': s.requestsPerSecond,
      'non-2xx': b.non2xx + f.non2xx + r.non2xx + s.non2xx,
    });
    return f.requestsPerSecond / b.requestsPerSecond;
  }, { minRounds: rounds });
  ingestRatio = settled.ratio;
  const pct = (x: number[]) => `${((median(x) / median(bare)) * 100).toFixed(1)}%`;
  printTable(`cafe shot ingest on ${bench.kind} + ${store} live store: ${MACHINES} machines, one shot per post, full channel vs bare route (5 s rounds)`, details);
  record({ measure: `cafe shot ingest full / bare (${store})`, goal: '≥ 50%', figure: ingestRatio, unit: 'ratio', pass: ingestRatio >= 0.5, note: settledNote(settled) });
  console.log(`by CPU per post (server process and its PostgreSQL backends): ${((median(bareCpu) / median(fullCpu)) * 100).toFixed(1)}%`);
  console.log(`bounds, of bare: one database round trip ${pct(roundTrip)}, the channel's statement alone ${pct(statement)}, full channel ${pct(full)}`);
  }

  if (parts.has('performance')) {

  // (b) getSitePerformance, a year against a week.
  const shots = Number(process.env.CAFE_BENCH_SHOTS ?? (bench.kind === 'postgres' ? 1_000_000 : 100_000));
  const perfSite = await rpc('cafe.createSite', { name: 'Performance bench', code: 'PERF', timezone: 'Europe/Berlin' });
  const perfMachines: string[] = [];
  for (let i = 0; i < 3; i++) perfMachines.push((await rpc('cafe.registerMachine', { siteId: perfSite.id, name: `P ${i}`, code: `P-${i}`, kind: 'espresso_machine', groupCount: 2 })).id);
  const owner = bench.app.databases.owner;
  const seeded = Date.now();
  // Shots between 07:00 and 19:00 UTC every day of 2025, spread over 3 machines × 2 group heads; a fifth off target.
  await owner.query(
    `insert into cafe_shots (org_id, id, site_id, machine_id, shot_id, group_no, started_at, duration_s, dose_g, yield_g, outside_target, channeling)
     select $1, 'sht_' || lpad(i::text, 12, '0'), $2, ($3::text[])[1 + i % 3], 'b' || i, 1 + (i / 3) % 2,
            timestamptz '2025-01-01 07:00:00+00' + ((i / $5::int) * interval '1 day') + ((i % $5::int) * (interval '12 hours' / $5::int)),
            case when i % 5 = 0 then 40 else 28 end, 18, 38, i % 5 = 0, false
     from generate_series(0, $4::int - 1) as i`,
    [organizationId, perfSite.id, perfMachines, shots, Math.ceil(shots / 365)],
  );
  await owner.query(
    `insert into cafe_shot_rollups (org_id, site_id, hour, machine_id, group_no, local_date, local_hour, shots, outside_target, channeling, duration_sum_s)
     select org_id, site_id, hour, machine_id, group_no, (hour at time zone 'Europe/Berlin')::date, extract(hour from hour at time zone 'Europe/Berlin')::int,
            shots, outside_target, channeling, duration_sum_s
     from (select org_id, site_id, date_trunc('hour', started_at at time zone 'UTC') at time zone 'UTC' as hour, machine_id, group_no, count(*) as shots,
                  count(*) filter (where outside_target) as outside_target, count(*) filter (where channeling) as channeling, sum(duration_s) as duration_sum_s
           from cafe_shots where org_id = $1 and site_id = $2 group by 1, 2, 3, 4, 5) g`,
    [organizationId, perfSite.id],
  );
  await owner.query(
    `insert into cafe_sale_rollups (org_id, site_id, hour, local_date, local_hour, lines, shot_equivalents)
     select org_id, site_id, hour, min(local_date), min(local_hour), sum(shots) / 2, sum(shots) - 3
     from cafe_shot_rollups where org_id = $1 and site_id = $2 group by 1, 2, 3`,
    [organizationId, perfSite.id],
  );
  // The day and month × hour-of-day rollups the channel and the POS import keep beside the hourly ones.
  await owner.query(
    `insert into cafe_shot_day_rollups (org_id, site_id, local_date, shots, outside_target, channeling, duration_sum_s)
     select org_id, site_id, local_date, sum(shots), sum(outside_target), sum(channeling), sum(duration_sum_s)
     from cafe_shot_rollups where org_id = $1 and site_id = $2 group by 1, 2, 3`,
    [organizationId, perfSite.id],
  );
  await owner.query(
    `insert into cafe_shot_hour_of_day_rollups (org_id, site_id, local_month, local_hour, machine_id, group_no, shots, outside_target, channeling, duration_sum_s)
     select org_id, site_id, date_trunc('month', local_date)::date, local_hour, machine_id, group_no, sum(shots), sum(outside_target), sum(channeling), sum(duration_sum_s)
     from cafe_shot_rollups where org_id = $1 and site_id = $2 group by 1, 2, 3, 4, 5, 6`,
    [organizationId, perfSite.id],
  );
  await owner.query(
    `insert into cafe_sale_day_rollups (org_id, site_id, local_date, lines, shot_equivalents)
     select org_id, site_id, local_date, sum(lines), sum(shot_equivalents) from cafe_sale_rollups where org_id = $1 and site_id = $2 group by 1, 2, 3`,
    [organizationId, perfSite.id],
  );
  await owner.query(
    `insert into cafe_sale_hour_of_day_rollups (org_id, site_id, local_month, local_hour, lines, shot_equivalents)
     select org_id, site_id, date_trunc('month', local_date)::date, local_hour, sum(lines), sum(shot_equivalents)
     from cafe_sale_rollups where org_id = $1 and site_id = $2 group by 1, 2, 3, 4`,
    [organizationId, perfSite.id],
  );
  for (const table of ['cafe_shot_day_rollups', 'cafe_shot_hour_of_day_rollups', 'cafe_sale_day_rollups', 'cafe_sale_hour_of_day_rollups']) await owner.query(`analyze ${table}`);
  await owner.query(`analyze cafe_shots`);
  await owner.query(`analyze cafe_shot_rollups`);
  await owner.query(`analyze cafe_sale_rollups`);
  const [{ n: rollupRows }] = await owner.query<{ n: number }>(`select count(*)::int as n from cafe_shot_rollups where org_id = $1`, [organizationId]);
  console.log(`\nseeded ${shots.toLocaleString('en')} shots and ${rollupRows.toLocaleString('en')} hourly rollup rows in ${((Date.now() - seeded) / 1000).toFixed(1)} s`);
  // Week and year calls alternate, so whatever else loads the machine meanwhile weighs on both alike.
  const PERF_CALLS = Number(process.env.CAFE_BENCH_PERF_CALLS ?? 100);
  const call = async (from: string, to: string) => {
    const started = performance.now();
    await rpc('cafe.getSitePerformance', { siteId: perfSite.id, from, to });
    return performance.now() - started;
  };
  const weekMs: number[] = [];
  const yearMs: number[] = [];
  for (let i = 0; i < PERF_CALLS + 5; i++) {
    const w = await call('2025-06-02', '2025-06-08');
    const y = await call('2025-01-01', '2025-12-31');
    if (i >= 5) weekMs.push(w), yearMs.push(y);
  }
  const week = median(weekMs);
  const year = median(yearMs);
  perfRatio = year / week;
  // The bound: the same answers from a bare route, alternating likewise, after the measured calls.
  perfAnswers.week = await rpc('cafe.getSitePerformance', { siteId: perfSite.id, from: '2025-06-02', to: '2025-06-08' });
  perfAnswers.year = await rpc('cafe.getSitePerformance', { siteId: perfSite.id, from: '2025-01-01', to: '2025-12-31' });
  const bytes = (range: string) => Buffer.byteLength(JSON.stringify(perfAnswers[range]));
  const bareCall = async (range: string) => {
    const started = performance.now();
    const response = await fetch(`${bench.url}/bench/bare/performance`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ range }),
    });
    await response.json();
    return performance.now() - started;
  };
  const bareWeekMs: number[] = [];
  const bareYearMs: number[] = [];
  for (let i = 0; i < PERF_CALLS + 5; i++) {
    const w = await bareCall('week');
    const y = await bareCall('year');
    if (i >= 5) bareWeekMs.push(w), bareYearMs.push(y);
  }
  const ms = (x: number) => Math.round(x * 100) / 100;
  printTable(`getSitePerformance on ${bench.kind}: ${shots.toLocaleString('en')} shots in a year, one site (median of ${PERF_CALLS} calls each, alternating)`, [
    { range: 'week', 'median ms': ms(week), 'answer bytes': bytes('week') },
    { range: 'year', 'median ms': ms(year), 'answer bytes': bytes('year') },
    { range: 'week, bare route (same answer)', 'median ms': ms(median(bareWeekMs)), 'answer bytes': bytes('week') },
    { range: 'year, bare route (same answer)', 'median ms': ms(median(bareYearMs)), 'answer bytes': bytes('year') },
  ]);
  record({ measure: 'getSitePerformance year / week', goal: '≤ 1.5×', figure: perfRatio, unit: '×', pass: perfRatio <= 1.5 });
  console.log(
    `bound: a year's answer costs ${ms(median(bareYearMs) - median(bareWeekMs))} ms more than a week's to serialize, send and parse from a bare route; ` +
      `the operation's year costs ${ms(year - week)} ms more than its week`,
  );
  }

  if (parts.has('live')) {

  // (c) getLiveBar while 100 sites post.
  const sites: { id: string; machineId: string; token: string }[] = [];
  for (let i = 0; i < SITES; i++) {
    const site = await rpc('cafe.createSite', { name: `Live ${i}`, code: `LIVE-${i}`, timezone: 'Europe/Berlin' });
    const machine = await rpc('cafe.registerMachine', { siteId: site.id, name: 'EM', code: 'EM', kind: 'espresso_machine', groupCount: 2 });
    const { token } = await rpc('cafe.issueBarMachineToken', { machineId: machine.id });
    sites.push({ id: site.id, machineId: machine.id, token });
    // An hour of shots already in the session: 120 per group head.
    const now = Date.now();
    await postShots(machine.id, token, Array.from({ length: 240 }, (_, k) => simulatedShot((k % 2) + 1, k % 7 === 0, new Date(now - 3_590_000 + k * 14_900))));
  }
  let posting = true;
  let posted = 0;
  const poster = (async () => {
    while (posting) {
      const tick = Date.now();
      await Promise.all(sites.map((s) => postShots(s.machineId, s.token, [simulatedShot(1 + (posted % 2), false)]).then(() => posted++)));
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, POST_INTERVAL_MS - (Date.now() - tick))));
    }
  })();
  const liveRun = () => load({}, { module: import.meta.url, name: 'liveBarLoad', data: { url: bench.url, apiKey, siteIds: sites.map((site) => site.id) } });
  await liveRun();
  const live = await liveRun();
  posting = false;
  await poster;
  printTable(`getLiveBar on ${bench.kind} + ${store} live store while ${SITES} sites post (a shot every ${POST_INTERVAL_MS / 1000} s each), 10 connections, 10 s`, [
    { 'reads/s': live.requestsPerSecond, 'p50 ms': live.p50Ms, 'p99 ms': live.p99Ms, 'non-2xx': live.non2xx, 'shots posted meanwhile': posted },
  ]);
  liveP99Ms = live.p99Ms;
  record({ measure: `getLiveBar p99 while ${SITES} sites post`, goal: 'reported', figure: live.p99Ms, unit: 'ms', pass: true });
  }
  await bench.close();
  return { ingestRatio, perfRatio, liveP99Ms };
}

export interface ShotLoad {
  url: string;
  target: string;
  path: string;
  duration: number;
  /** Makes this run's shot ids new: a repeated one would be a duplicate, which stores nothing. */
  runId: string;
  machines: { id: string; token: string }[];
}

/** The shot load, built in the generator's process (bench/load-child.ts): each connection one machine, a shot per post. */
export function shotLoad({ url, target, path, duration, runId, machines }: ShotLoad): autocannon.Options {
  let next = 0;
  return {
    url,
    connections: machines.length,
    duration,
    setupClient(client) {
      const machine = machines[next++ % machines.length];
      let n = 0;
      client.setRequests([
        {
          method: 'POST',
          path: target === 'full' ? `/${path}/${machine.id}/shots` : `/${path}/${machine.id}`,
          headers: { authorization: `Bearer ${machine.token}`, 'content-type': 'application/json' },
          setupRequest(request) {
            const shot = simulatedShot((n++ % 3) + 1, false);
            request.body = JSON.stringify({ shots: [{ ...shot, shotId: `${target.replace(' ', '-')}-${runId}-${n}-${shot.shotId}` }] });
            return request;
          },
        },
      ]);
    },
  };
}

/** getLiveBar reads, built in the generator's process: each connection reads one site's live bar. */
export function liveBarLoad({ url, apiKey, siteIds }: { url: string; apiKey: string; siteIds: string[] }): autocannon.Options {
  let next = 0;
  return {
    url,
    connections: 10,
    duration: 10,
    setupClient(client) {
      const siteId = siteIds[next++ % siteIds.length];
      client.setRequests([{ method: 'POST', path: '/rpc/v1/cafe.getLiveBar', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ siteId }) }]);
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) await benchCafe();
