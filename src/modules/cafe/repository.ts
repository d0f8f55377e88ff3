import type { Queryable } from '../../db/client.js';
import { SqlParams, iso, isoDate } from '../../db/sql.js';
import { newId } from '../../lib/ids.js';
import { decodeCursor, pageOf, type Page } from '../../db/paging.js';
import type { ShotTarget } from './targets.js';
import type { MACHINE_KINDS, ShotInput } from './schemas.js';

// ---------------------------------------------------------------------------------------------------
// Sites

interface SiteRow {
  id: string;
  code: string;
  name: string;
  location_id: string | null;
  timezone: string;
  shot_target: ShotTarget;
  created_at: Date;
}

export type Site = ReturnType<typeof toSite>;

const toSite = (r: SiteRow) => ({
  id: r.id,
  code: r.code,
  name: r.name,
  locationId: r.location_id,
  timezone: r.timezone,
  shotTarget: r.shot_target,
  createdAt: iso(r.created_at)!,
});

export async function insertSite(
  q: Queryable,
  orgId: string,
  input: { code: string; name: string; locationId: string | null; timezone: string; shotTarget: ShotTarget },
): Promise<Site> {
  const [row] = await q.query<SiteRow>(
    `insert into cafe_sites (org_id, id, code, name, location_id, timezone, shot_target)
     values ($1, $2, $3, $4, $5, $6, $7) returning *`,
    [orgId, newId('cs'), input.code, input.name, input.locationId, input.timezone, JSON.stringify(input.shotTarget)],
  );
  return toSite(row);
}

export async function findSite(q: Queryable, orgId: string, id: string, options: { forUpdate?: boolean } = {}): Promise<Site | undefined> {
  const [row] = await q.query<SiteRow>(`select * from cafe_sites where org_id = $1 and id = $2${options.forUpdate ? ' for update' : ''}`, [orgId, id]);
  return row && toSite(row);
}

export async function listSites(q: Queryable, orgId: string, page: Page) {
  const params = new SqlParams();
  const where = [`org_id = ${params.add(orgId)}`];
  const after = decodeCursor(page.cursor, 'cafe_sites', ['id']);
  if (after) where.push(`id > ${params.add(String(after[0]))}`);
  const rows = await q.query<SiteRow>(`select * from cafe_sites where ${where.join(' and ')} order by id limit ${params.add(page.limit + 1)}`, params.values);
  return pageOf(rows.map(toSite), page.limit, 'cafe_sites', (s) => [s.id]);
}

// ---------------------------------------------------------------------------------------------------
// Bar machines

type MachineKind = (typeof MACHINE_KINDS)[number];

interface MachineRow {
  id: string;
  site_id: string;
  code: string;
  name: string;
  kind: MachineKind;
  group_count: number;
  brand: string | null;
  model: string | null;
  device_id: string | null;
  created_at: Date;
}

export type BarMachine = ReturnType<typeof toMachine>;

const toMachine = (r: MachineRow) => ({
  id: r.id,
  siteId: r.site_id,
  code: r.code,
  name: r.name,
  kind: r.kind,
  groupCount: r.group_count,
  brand: r.brand,
  model: r.model,
  deviceId: r.device_id,
  createdAt: iso(r.created_at)!,
});

export async function insertMachine(
  q: Queryable,
  orgId: string,
  input: { siteId: string; code: string; name: string; kind: MachineKind; groupCount: number; brand?: string; model?: string; deviceId?: string },
): Promise<BarMachine> {
  const [row] = await q.query<MachineRow>(
    `insert into cafe_machines (org_id, id, site_id, code, name, kind, group_count, brand, model, device_id)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) returning *`,
    [orgId, newId('bm'), input.siteId, input.code, input.name, input.kind, input.groupCount, input.brand ?? null, input.model ?? null, input.deviceId ?? null],
  );
  return toMachine(row);
}

export async function findMachine(q: Queryable, orgId: string, id: string, options: { forUpdate?: boolean } = {}): Promise<BarMachine | undefined> {
  const [row] = await q.query<MachineRow>(`select * from cafe_machines where org_id = $1 and id = $2${options.forUpdate ? ' for update' : ''}`, [orgId, id]);
  return row && toMachine(row);
}

/** A site and its espresso machines in one statement (the live bar's only database read); undefined when not here. */
export async function siteWithEspressoMachines(q: Queryable, orgId: string, siteId: string): Promise<{ site: Site; machines: BarMachine[] } | undefined> {
  const [row] = await q.query<SiteRow & { machines: (Omit<MachineRow, 'created_at'> & { created_at: string })[] }>(
    `select s.*, coalesce((select json_agg(m order by m.code, m.id) from cafe_machines m
                          where m.org_id = s.org_id and m.site_id = s.id and m.kind = 'espresso_machine'), '[]') as machines
     from cafe_sites s where s.org_id = $1 and s.id = $2`,
    [orgId, siteId],
  );
  return row && { site: toSite(row), machines: row.machines.map((m) => toMachine({ ...m, created_at: new Date(m.created_at) })) };
}

export async function listMachines(q: Queryable, orgId: string, filter: { siteId?: string; kind?: string }, page: Page) {
  const params = new SqlParams();
  const where = [`org_id = ${params.add(orgId)}`];
  if (filter.siteId) where.push(`site_id = ${params.add(filter.siteId)}`);
  if (filter.kind) where.push(`kind = ${params.add(filter.kind)}`);
  const after = decodeCursor(page.cursor, 'cafe_machines', ['id']);
  if (after) where.push(`id > ${params.add(String(after[0]))}`);
  const rows = await q.query<MachineRow>(`select * from cafe_machines where ${where.join(' and ')} order by id limit ${params.add(page.limit + 1)}`, params.values);
  return pageOf(rows.map(toMachine), page.limit, 'cafe_machines', (m) => [m.id]);
}

/** What the shot channel needs of a machine: the machine and its site's timezone and shot target. */
export async function machineForIngest(
  q: Queryable,
  orgId: string,
  machineId: string,
): Promise<{ machine: BarMachine; shotTarget: ShotTarget; timezone: string } | undefined> {
  const [row] = await q.query<MachineRow & { shot_target: ShotTarget; timezone: string }>(
    `select m.*, s.shot_target, s.timezone from cafe_machines m join cafe_sites s on s.org_id = m.org_id and s.id = m.site_id
     where m.org_id = $1 and m.id = $2`,
    [orgId, machineId],
  );
  return row && { machine: toMachine(row), shotTarget: row.shot_target, timezone: row.timezone };
}

// ---------------------------------------------------------------------------------------------------
// Shots

export interface JudgedShot extends ShotInput {
  outsideTarget: boolean;
  channeling: boolean;
}

/** One post's shots: a machine of a site, judged against the site's target. */
export interface ShotsToStore {
  site: { id: string; timezone: string };
  machineId: string;
  shots: JudgedShot[];
}

/**
 * Stores the shots of one or more posts of an organization (any sites and machines) that their machine has
 * not posted before (by its own shotId), and adds exactly those to the hourly, local-day and month ×
 * hour-of-day rollups, in one statement: all of it or nothing, and a resent shot adds to none. A shotId that
 * comes twice (in one post or in two) is stored for its first occurrence, in the order of `posts`. Answers,
 * per post, the shots it newly stored. The rollups are written in key order, so two such statements running
 * at once lock shared rollup rows in the same order.
 */
export async function insertShots(q: Queryable, orgId: string, posts: ShotsToStore[]): Promise<JudgedShot[][]> {
  const rows = posts.flatMap((post, index) => post.shots.map((shot) => ({ index, shot, id: newId('sht') })));
  // The rows go as one JSON parameter: JSON.stringify is native, where thirteen array parameters would be
  // escaped element by element in JavaScript.
  const incoming = rows.map(({ index, shot, id }) => {
    const { site, machineId } = posts[index];
    const series = shot.pressureBar || shot.temperatureC || shot.flow ? { pressureBar: shot.pressureBar ?? null, temperatureC: shot.temperatureC ?? null, flow: shot.flow ?? null } : null;
    return [id, site.id, machineId, site.timezone, shot.shotId, shot.group, shot.startedAt, shot.durationS, shot.doseG, shot.yieldG, shot.outsideTarget, shot.channeling, series];
  });
  const stored = await q.query<{ id: string }>(
    `with incoming as (
       select r->>0 as id, r->>1 as site_id, r->>2 as machine_id, r->>3 as timezone, r->>4 as shot_id, (r->>5)::int as group_no,
              (r->>6)::timestamptz as started_at, (r->>7)::float8 as duration_s, (r->>8)::float8 as dose_g, (r->>9)::float8 as yield_g,
              (r->>10)::bool as outside_target, (r->>11)::bool as channeling, nullif(r->12, 'null'::jsonb) as series, n
       from jsonb_array_elements($2::jsonb) with ordinality as x(r, n)
     ), inserted as (
       insert into cafe_shots (org_id, id, site_id, machine_id, shot_id, group_no, started_at, duration_s, dose_g, yield_g, outside_target, channeling, series)
       select $1, id, site_id, machine_id, shot_id, group_no, started_at, duration_s, dose_g, yield_g, outside_target, channeling, series
       from incoming order by n
       on conflict (org_id, machine_id, shot_id) do nothing
       returning id, site_id, machine_id, group_no, started_at, outside_target, channeling, duration_s
     ), g as (
       select h.site_id, h.machine_id, h.hour, h.group_no, (h.hour at time zone h.timezone)::date as local_date,
              extract(hour from h.hour at time zone h.timezone)::int as local_hour, h.shots, h.outside_target, h.channeling, h.duration_sum_s
       from (select i.site_id, i.machine_id, x.timezone, date_trunc('hour', i.started_at at time zone 'UTC') at time zone 'UTC' as hour, i.group_no,
                    count(*)::int as shots, count(*) filter (where i.outside_target)::int as outside_target,
                    count(*) filter (where i.channeling)::int as channeling, sum(i.duration_s) as duration_sum_s
             from inserted i join incoming x on x.id = i.id group by 1, 2, 3, 4, 5) h
     ), rolled as (
       insert into cafe_shot_rollups (org_id, site_id, hour, machine_id, group_no, local_date, local_hour, shots, outside_target, channeling, duration_sum_s)
       select $1, site_id, hour, machine_id, group_no, local_date, local_hour, shots, outside_target, channeling, duration_sum_s
       from g order by site_id, hour, machine_id, group_no
       on conflict (org_id, site_id, hour, machine_id, group_no) do update set
         shots = cafe_shot_rollups.shots + excluded.shots,
         outside_target = cafe_shot_rollups.outside_target + excluded.outside_target,
         channeling = cafe_shot_rollups.channeling + excluded.channeling,
         duration_sum_s = cafe_shot_rollups.duration_sum_s + excluded.duration_sum_s
     ), rolled_days as (
       insert into cafe_shot_day_rollups (org_id, site_id, local_date, shots, outside_target, channeling, duration_sum_s)
       select $1, site_id, local_date, sum(shots), sum(outside_target), sum(channeling), sum(duration_sum_s)
       from g group by site_id, local_date order by site_id, local_date
       on conflict (org_id, site_id, local_date) do update set
         shots = cafe_shot_day_rollups.shots + excluded.shots,
         outside_target = cafe_shot_day_rollups.outside_target + excluded.outside_target,
         channeling = cafe_shot_day_rollups.channeling + excluded.channeling,
         duration_sum_s = cafe_shot_day_rollups.duration_sum_s + excluded.duration_sum_s
     ), rolled_hours_of_day as (
       insert into cafe_shot_hour_of_day_rollups (org_id, site_id, local_month, local_hour, machine_id, group_no, shots, outside_target, channeling, duration_sum_s)
       select $1, site_id, date_trunc('month', local_date)::date, local_hour, machine_id, group_no, sum(shots), sum(outside_target), sum(channeling), sum(duration_sum_s)
       from g group by 2, 3, 4, 5, 6 order by 2, 3, 4, 5, 6
       on conflict (org_id, site_id, local_month, local_hour, machine_id, group_no) do update set
         shots = cafe_shot_hour_of_day_rollups.shots + excluded.shots,
         outside_target = cafe_shot_hour_of_day_rollups.outside_target + excluded.outside_target,
         channeling = cafe_shot_hour_of_day_rollups.channeling + excluded.channeling,
         duration_sum_s = cafe_shot_hour_of_day_rollups.duration_sum_s + excluded.duration_sum_s
     )
     select id from inserted`,
    [orgId, JSON.stringify(incoming)],
    // Prepared once per connection: the channel's hot statement.
    { name: 'cafe_insert_shots' },
  );
  // Each stored row carries the id given to one incoming shot, which names its post and the shot.
  const byId = new Map(rows.map((r) => [r.id, r]));
  const byPost: JudgedShot[][] = posts.map(() => []);
  for (const { id } of stored) {
    const { index, shot } = byId.get(id)!;
    byPost[index].push(shot);
  }
  return byPost;
}

interface ShotRow {
  id: string;
  site_id: string;
  machine_id: string;
  shot_id: string;
  group_no: number;
  started_at: Date;
  duration_s: number;
  dose_g: number;
  yield_g: number;
  outside_target: boolean;
  channeling: boolean;
  series: { pressureBar: number[] | null; temperatureC: number[] | null; flow: number[] | null } | null;
  received_at: Date;
}

const toShot = (r: ShotRow) => ({
  id: r.id,
  siteId: r.site_id,
  machineId: r.machine_id,
  shotId: r.shot_id,
  group: r.group_no,
  startedAt: iso(r.started_at)!,
  durationS: r.duration_s,
  doseG: r.dose_g,
  yieldG: r.yield_g,
  ratio: r.dose_g > 0 ? Math.round((r.yield_g / r.dose_g) * 100) / 100 : null,
  outsideTarget: r.outside_target,
  channeling: r.channeling,
  pressureBar: r.series?.pressureBar ?? null,
  temperatureC: r.series?.temperatureC ?? null,
  flow: r.series?.flow ?? null,
  receivedAt: iso(r.received_at)!,
});

export async function listShots(
  q: Queryable,
  orgId: string,
  filter: { from: string; to: string; siteId?: string; machineId?: string; group?: number; outsideTarget?: boolean },
  limit: number,
) {
  const params = new SqlParams();
  const where = [
    `org_id = ${params.add(orgId)}`,
    `started_at >= ${params.add(filter.from)}::timestamptz`,
    `started_at < ${params.add(filter.to)}::timestamptz`,
  ];
  if (filter.siteId) where.push(`site_id = ${params.add(filter.siteId)}`);
  if (filter.machineId) where.push(`machine_id = ${params.add(filter.machineId)}`);
  if (filter.group !== undefined) where.push(`group_no = ${params.add(filter.group)}`);
  if (filter.outsideTarget !== undefined) where.push(`outside_target = ${params.add(filter.outsideTarget)}`);
  const rows = await q.query<ShotRow>(
    `select * from cafe_shots where ${where.join(' and ')} order by started_at, id limit ${params.add(limit + 1)}`,
    params.values,
  );
  return { items: rows.slice(0, limit).map(toShot), truncated: rows.length > limit };
}

// ---------------------------------------------------------------------------------------------------
// Performance (rollups only)

export interface ShotFigures {
  /** The local day as its offset in days from the range's first day. */
  day: number | null;
  h: number | null;
  machine_id: string | null;
  group_no: number | null;
  shots: number;
  outside_target: number;
  channeling: number;
  duration_sum_s: number;
}

/** The local day's start of `from` and of the day after `to`, as instants. */
export async function localRange(q: Queryable, timezone: string, from: string, to: string): Promise<{ start: Date; end: Date }> {
  const [row] = await q.query<{ start: Date; end: Date }>(
    `select ($1::date::timestamp at time zone $3::text) as start, (($2::date + 1)::timestamp at time zone $3::text) as "end"`,
    [from, to, timezone],
  );
  return row;
}

/** Shot rollups of the range (local days `from`.. starting at `start`), summed per local day, per local hour of day, per group head and in total. */
export async function shotRollupFigures(q: Queryable, orgId: string, siteId: string, from: string, start: Date, end: Date): Promise<ShotFigures[]> {
  return q.query<ShotFigures>(
    // The () set answers one row even when no rollup matches, and sum over nothing is null: coalesced, so the figures are numbers.
    `select local_date - $5::date as day, local_hour as h, machine_id, group_no, coalesce(sum(shots), 0)::int as shots,
            coalesce(sum(outside_target), 0)::int as outside_target, coalesce(sum(channeling), 0)::int as channeling,
            coalesce(sum(duration_sum_s), 0)::float8 as duration_sum_s
     from cafe_shot_rollups where org_id = $1 and site_id = $2 and hour >= $3 and hour < $4
     group by grouping sets ((local_date), (local_hour), (machine_id, group_no), ())`,
    [orgId, siteId, start, end, from],
  );
}

export interface SaleFigures {
  /** As ShotFigures.day. */
  day: number | null;
  h: number | null;
  shot_equivalents: number;
}

export async function saleRollupFigures(q: Queryable, orgId: string, siteId: string, from: string, start: Date, end: Date): Promise<SaleFigures[]> {
  return q.query<SaleFigures>(
    // A site without any POS sale still gets its () row: 0 sold, not null.
    `select local_date - $5::date as day, local_hour as h, coalesce(sum(shot_equivalents), 0)::int as shot_equivalents
     from cafe_sale_rollups where org_id = $1 and site_id = $2 and hour >= $3 and hour < $4
     group by grouping sets ((local_date), (local_hour), ())`,
    [orgId, siteId, start, end, from],
  );
}

/** A Date's calendar day as YYYY-MM-DD (UTC calendar arithmetic, which has no DST). */
const dayOf = (t: number) => new Date(t).toISOString().slice(0, 10);

const DAY_MS = 86_400_000;
const monthOf = (t: number) => {
  const d = new Date(t);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
};
const monthAfter = (month: number) => {
  const d = new Date(month);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
};

/**
 * How a range of local days [from, to] is read for the hour-of-day profile and the group heads, month by
 * month: a month the range covers whole from the month × hour-of-day rollups; a month it covers in part either
 * the same way less the hourly rollups of the days outside the range (`subtract`), or from the hourly rollups
 * of its days inside the range (`add`), whichever reads fewer days. The months read whole are contiguous
 * (only the first and the last month can be partial); at most two stretches are added and two subtracted.
 */
export function splitByMonths(from: string, to: string): { months: [string, string] | null; add: [string, string][]; subtract: [string, string][] } {
  const start = Date.parse(`${from}T00:00:00Z`);
  const endExclusive = Date.parse(`${to}T00:00:00Z`) + DAY_MS;
  let months: [number, number] | null = null;
  const add: [string, string][] = [];
  const subtract: [string, string][] = [];
  for (let month = monthOf(start); month < endExclusive; month = monthAfter(month)) {
    const monthEnd = monthAfter(month);
    const inStart = Math.max(month, start);
    const inEnd = Math.min(monthEnd, endExclusive);
    const daysIn = (inEnd - inStart) / DAY_MS;
    const daysOut = (monthEnd - month) / DAY_MS - daysIn;
    if (daysOut < daysIn) {
      months = [months?.[0] ?? month, monthEnd];
      if (month < inStart) subtract.push([dayOf(month), dayOf(inStart - DAY_MS)]);
      if (inEnd < monthEnd) subtract.push([dayOf(inEnd), dayOf(monthEnd - DAY_MS)]);
    } else {
      add.push([dayOf(inStart), dayOf(inEnd - DAY_MS)]);
    }
  }
  return { months: months && [dayOf(months[0]), dayOf(months[1])], add, subtract };
}

/**
 * A range's shot and sale figures in one statement, from rollups only: per local day from the day rollups
 * (one row per site and day, so a year reads 365 rows); per local hour of day and per group head from the
 * month × hour-of-day rollups and the hourly rollups as splitByMonths says (together they count exactly the
 * range's local days: a rolling year, the 27th to the 26th, reads the hours of 10 days rather than 31). The
 * same figures as shotRollupFigures and saleRollupFigures over the range's hourly rollups. The database
 * answers one row of JSON: the days as parallel arrays of day offsets (from `from`) and counts (the array_aggs
 * of one aggregate see its rows in the same order, so they line up), shots and sales apart (no join, no date
 * formatting per day), the hours and group heads as arrays of rows; so a year's 365 days cost one JSON.parse
 * of flat number arrays rather than ~750 rows through the wire protocol. The totals are the sums of the days.
 */
export async function performanceFigures(
  q: Queryable,
  orgId: string,
  site: { id: string; timezone: string },
  from: string,
  to: string,
): Promise<{ shots: ShotFigures[]; sales: SaleFigures[] }> {
  const { months, add, subtract } = splitByMonths(from, to);
  // The hourly stretches, each counted once with its sign: +1 read in, -1 taken off its month.
  const stretches = [...add.map(([first, last]) => [first, last, 1] as const), ...subtract.map(([first, last]) => [first, last, -1] as const)];
  const [row] = await q.query<{
    days: [days: number[], shots: number[], outside: number[], channeling: number[]];
    sold_days: [days: number[], shotEquivalents: number[]];
    hours: [number, number, number, number, number][];
    heads: [string, number, number, number, number, number][];
  }>(
    `with stretches as (
       select first_day::timestamp at time zone $10::text as from_hour, (last_day + 1)::timestamp at time zone $10::text as to_hour, sign
       from unnest($7::date[], $8::date[], $9::int[]) as s(first_day, last_day, sign)
     ), shot_hours as (
       select local_hour, machine_id, group_no, shots, outside_target, channeling, duration_sum_s from cafe_shot_hour_of_day_rollups
       where org_id = $1 and site_id = $2 and local_month >= $5::date and local_month < $6::date
       union all
       select r.local_hour, r.machine_id, r.group_no, s.sign * r.shots, s.sign * r.outside_target, s.sign * r.channeling, s.sign * r.duration_sum_s
       from stretches s join cafe_shot_rollups r on r.org_id = $1 and r.site_id = $2 and r.hour >= s.from_hour and r.hour < s.to_hour
     ), shot_hour_sets as (
       select local_hour, machine_id, group_no, sum(shots)::int as shots, sum(outside_target)::int as outside_target,
              sum(channeling)::int as channeling, sum(duration_sum_s)::float8 as duration_sum_s
       from shot_hours group by grouping sets ((local_hour), (machine_id, group_no))
     ), sale_hours as (
       select local_hour, shot_equivalents from cafe_sale_hour_of_day_rollups
       where org_id = $1 and site_id = $2 and local_month >= $5::date and local_month < $6::date
       union all
       select r.local_hour, s.sign * r.shot_equivalents from stretches s
       join cafe_sale_rollups r on r.org_id = $1 and r.site_id = $2 and r.hour >= s.from_hour and r.hour < s.to_hour
     ), hours as (
       select coalesce(s.local_hour, d.local_hour) as h, coalesce(s.shots, 0) as shots, coalesce(s.outside_target, 0) as outside_target,
              coalesce(s.channeling, 0) as channeling, coalesce(d.shot_equivalents, 0) as shot_equivalents
       from (select * from shot_hour_sets where local_hour is not null) s
       full join (select local_hour, sum(shot_equivalents)::int as shot_equivalents from sale_hours group by local_hour) d on d.local_hour = s.local_hour
     )
     select
       (select json_build_array(coalesce(array_agg(local_date - $3::date), '{}'), coalesce(array_agg(shots), '{}'),
                                coalesce(array_agg(outside_target), '{}'), coalesce(array_agg(channeling), '{}'))
        from cafe_shot_day_rollups where org_id = $1 and site_id = $2 and local_date >= $3::date and local_date <= $4::date) as days,
       (select json_build_array(coalesce(array_agg(local_date - $3::date), '{}'), coalesce(array_agg(shot_equivalents::int), '{}')) from cafe_sale_day_rollups
        where org_id = $1 and site_id = $2 and local_date >= $3::date and local_date <= $4::date) as sold_days,
       (select coalesce(json_agg(json_build_array(h, shots, outside_target, channeling, shot_equivalents)), '[]') from hours) as hours,
       (select coalesce(json_agg(json_build_array(machine_id, group_no, shots, outside_target, channeling, duration_sum_s)), '[]')
        from shot_hour_sets where machine_id is not null and shots <> 0) as heads`,
    [orgId, site.id, from, to, months?.[0] ?? null, months?.[1] ?? null, stretches.map((s) => s[0]), stretches.map((s) => s[1]), stretches.map((s) => s[2]), site.timezone],
    // Prepared once per connection: planning this statement costs more database time than running it for a week.
    { name: 'cafe_performance_figures' },
  );
  const shots: ShotFigures[] = [];
  const sales: SaleFigures[] = [];
  const total = { day: null, h: null, machine_id: null, group_no: null, shots: 0, outside_target: 0, channeling: 0, duration_sum_s: 0 };
  let sold = 0;
  const [days, dayShots, dayOutside, dayChanneling] = row.days;
  for (let i = 0; i < days.length; i++) {
    shots.push({ day: days[i], h: null, machine_id: null, group_no: null, shots: dayShots[i], outside_target: dayOutside[i], channeling: dayChanneling[i], duration_sum_s: 0 });
    total.shots += dayShots[i];
    total.outside_target += dayOutside[i];
    total.channeling += dayChanneling[i];
  }
  const [saleDays, daySold] = row.sold_days;
  for (let i = 0; i < saleDays.length; i++) {
    sales.push({ day: saleDays[i], h: null, shot_equivalents: daySold[i] });
    sold += daySold[i];
  }
  for (const [h, n, outside, channeling, saleShots] of row.hours) {
    shots.push({ day: null, h, machine_id: null, group_no: null, shots: n, outside_target: outside, channeling, duration_sum_s: 0 });
    sales.push({ day: null, h, shot_equivalents: saleShots });
  }
  for (const [machineId, group, n, outside, channeling, durationSum] of row.heads) {
    shots.push({ day: null, h: null, machine_id: machineId, group_no: group, shots: n, outside_target: outside, channeling, duration_sum_s: durationSum });
    total.duration_sum_s += durationSum;
  }
  shots.push(total);
  sales.push({ day: null, h: null, shot_equivalents: sold });
  return { shots, sales };
}

// ---------------------------------------------------------------------------------------------------
// POS sales

export interface PosLineInput {
  posLineId: string;
  soldAt: string;
  item: string;
  quantity: number;
  shotEquivalents: number;
}

/**
 * Stores the lines whose posLineId the site has not seen and adds exactly those to the hourly sale rollups,
 * in one statement. Answers the lines stored now.
 */
export async function insertPosLines(q: Queryable, orgId: string, site: { id: string; timezone: string }, lines: PosLineInput[]): Promise<{ pos_line_id: string; shot_equivalents: number }[]> {
  return q.query(
    `with incoming as (
       select * from unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::int[], $8::int[]) with ordinality as x(id, pos_line_id, sold_at, item, quantity, shot_equivalents, n)
     ), inserted as (
       insert into cafe_pos_sales (org_id, id, site_id, pos_line_id, sold_at, item, quantity, shot_equivalents)
       select $1, id, $2, pos_line_id, sold_at::timestamptz, item, quantity, shot_equivalents from incoming order by n
       on conflict (org_id, site_id, pos_line_id) do nothing
       returning pos_line_id, sold_at, quantity, shot_equivalents
     ), g as (
       select h.hour, (h.hour at time zone $9::text)::date as local_date, extract(hour from h.hour at time zone $9::text)::int as local_hour, h.lines, h.shot_equivalents
       from (select date_trunc('hour', sold_at at time zone 'UTC') at time zone 'UTC' as hour, count(*)::int as lines,
                    sum(quantity * shot_equivalents) as shot_equivalents
             from inserted group by 1) h
     ), rolled as (
       insert into cafe_sale_rollups (org_id, site_id, hour, local_date, local_hour, lines, shot_equivalents)
       select $1, $2, hour, local_date, local_hour, lines, shot_equivalents from g
       on conflict (org_id, site_id, hour) do update set
         lines = cafe_sale_rollups.lines + excluded.lines,
         shot_equivalents = cafe_sale_rollups.shot_equivalents + excluded.shot_equivalents
     ), rolled_days as (
       insert into cafe_sale_day_rollups (org_id, site_id, local_date, lines, shot_equivalents)
       select $1, $2, local_date, sum(lines), sum(shot_equivalents) from g group by local_date
       on conflict (org_id, site_id, local_date) do update set
         lines = cafe_sale_day_rollups.lines + excluded.lines,
         shot_equivalents = cafe_sale_day_rollups.shot_equivalents + excluded.shot_equivalents
     ), rolled_hours_of_day as (
       insert into cafe_sale_hour_of_day_rollups (org_id, site_id, local_month, local_hour, lines, shot_equivalents)
       select $1, $2, date_trunc('month', local_date)::date, local_hour, sum(lines), sum(shot_equivalents)
       from g group by date_trunc('month', local_date)::date, local_hour
       on conflict (org_id, site_id, local_month, local_hour) do update set
         lines = cafe_sale_hour_of_day_rollups.lines + excluded.lines,
         shot_equivalents = cafe_sale_hour_of_day_rollups.shot_equivalents + excluded.shot_equivalents
     )
     select pos_line_id, (quantity * shot_equivalents)::int as shot_equivalents from inserted`,
    [
      orgId,
      site.id,
      lines.map(() => newId('pos')),
      lines.map((l) => l.posLineId),
      lines.map((l) => l.soldAt),
      lines.map((l) => l.item),
      lines.map((l) => l.quantity),
      lines.map((l) => l.shotEquivalents),
      site.timezone,
    ],
  );
}

// ---------------------------------------------------------------------------------------------------
// Reconciliations

/** The business day's bounds in the site's timezone and what was pulled (per espresso machine) and sold in it. */
export async function dayFigures(q: Queryable, orgId: string, siteId: string, timezone: string, businessDate: string) {
  const [bounds] = await q.query<{ day_start: Date; day_end: Date }>(
    `select ($1::date::timestamp at time zone $2::text) as day_start, (($1::date + 1)::timestamp at time zone $2::text) as day_end`,
    [businessDate, timezone],
  );
  const machines = await q.query<{ machine_id: string; shots: number }>(
    `select m.id as machine_id, count(s.id)::int as shots
     from cafe_machines m
     left join cafe_shots s on s.org_id = m.org_id and s.machine_id = m.id and s.site_id = m.site_id and s.started_at >= $3 and s.started_at < $4
     where m.org_id = $1 and m.site_id = $2 and (m.kind = 'espresso_machine' or s.id is not null)
     group by m.id order by m.id`,
    [orgId, siteId, bounds.day_start, bounds.day_end],
  );
  const [sold] = await q.query<{ shot_equivalents: number }>(
    `select coalesce(sum(quantity * shot_equivalents), 0)::int as shot_equivalents
     from cafe_pos_sales where org_id = $1 and site_id = $2 and sold_at >= $3 and sold_at < $4`,
    [orgId, siteId, bounds.day_start, bounds.day_end],
  );
  return { dayStart: bounds.day_start, dayEnd: bounds.day_end, machines, soldShotEquivalents: sold.shot_equivalents };
}

interface ReconciliationRow {
  id: string;
  site_id: string;
  business_date: Date | string;
  version: number;
  timezone: string;
  day_start: Date;
  day_end: Date;
  shots_pulled: number;
  sale_shot_equivalents: string | number;
  variance: string | number;
  machines: { machineId: string; shotsPulled: number; shareOfShots: number }[];
  created_at: Date;
}

export type Reconciliation = ReturnType<typeof toReconciliation>;

const toReconciliation = (r: ReconciliationRow) => ({
  id: r.id,
  siteId: r.site_id,
  businessDate: isoDate(r.business_date)!,
  version: r.version,
  timezone: r.timezone,
  dayStart: iso(r.day_start)!,
  dayEnd: iso(r.day_end)!,
  hours: Math.round((new Date(r.day_end).getTime() - new Date(r.day_start).getTime()) / 3_600_000),
  shotsPulled: r.shots_pulled,
  saleShotEquivalents: Number(r.sale_shot_equivalents),
  variance: Number(r.variance),
  machines: r.machines,
  createdAt: iso(r.created_at)!,
});

/** Call with the site row locked, so two runs for the same day cannot take the same version. */
export async function insertReconciliation(
  q: Queryable,
  orgId: string,
  input: {
    siteId: string;
    businessDate: string;
    timezone: string;
    dayStart: Date;
    dayEnd: Date;
    shotsPulled: number;
    saleShotEquivalents: number;
    machines: { machineId: string; shotsPulled: number; shareOfShots: number }[];
  },
): Promise<Reconciliation> {
  const [row] = await q.query<ReconciliationRow>(
    `insert into cafe_reconciliations (org_id, id, site_id, business_date, version, timezone, day_start, day_end, shots_pulled,
                                       sale_shot_equivalents, variance, machines)
     select $1, $2, $3, $4::date,
            coalesce((select max(version) from cafe_reconciliations where org_id = $1 and site_id = $3 and business_date = $4::date), 0) + 1,
            $5, $6, $7, $8::int, $9::bigint, $8::int - $9::bigint, $10::jsonb
     returning *`,
    [
      orgId, newId('rec'), input.siteId, input.businessDate, input.timezone, input.dayStart, input.dayEnd, input.shotsPulled,
      input.saleShotEquivalents, JSON.stringify(input.machines),
    ],
  );
  return toReconciliation(row);
}

export async function listReconciliations(
  q: Queryable,
  orgId: string,
  filter: { siteId?: string; from?: string; to?: string; latestOnly?: boolean },
  page: Page,
) {
  const params = new SqlParams();
  const where = [`r.org_id = ${params.add(orgId)}`];
  if (filter.siteId) where.push(`r.site_id = ${params.add(filter.siteId)}`);
  if (filter.from) where.push(`r.business_date >= ${params.add(filter.from)}::date`);
  if (filter.to) where.push(`r.business_date <= ${params.add(filter.to)}::date`);
  if (filter.latestOnly) {
    where.push(`not exists (select 1 from cafe_reconciliations n where n.org_id = r.org_id and n.site_id = r.site_id
                and n.business_date = r.business_date and n.version > r.version)`);
  }
  const after = decodeCursor(page.cursor, 'cafe_reconciliations', ['id']);
  if (after) where.push(`r.id > ${params.add(String(after[0]))}`);
  const rows = await q.query<ReconciliationRow>(
    `select r.* from cafe_reconciliations r where ${where.join(' and ')} order by r.id limit ${params.add(page.limit + 1)}`,
    params.values,
  );
  return pageOf(rows.map(toReconciliation), page.limit, 'cafe_reconciliations', (r) => [r.id]);
}

// ---------------------------------------------------------------------------------------------------
// For reports

/** Every site of the organization, by code. */
export async function allSites(q: Queryable, orgId: string): Promise<Site[]> {
  const rows = await q.query<SiteRow>(`select * from cafe_sites where org_id = $1 order by code`, [orgId]);
  return rows.map(toSite);
}
