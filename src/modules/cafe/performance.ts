import type { Site, SaleFigures, ShotFigures } from './repository.js';

/** Shares to four decimals. */
const share = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 10_000) / 10_000 : 0);

/** `entry` with the figures appended after its own keys (the answer lists `date` or `hour` first). */
function withFigures<T extends object>(entry: T, shots: ShotFigures | undefined, sold: number) {
  const n = shots?.shots ?? 0;
  const outside = shots?.outside_target ?? 0;
  return Object.assign(entry, {
    shots: n,
    outsideTargetShots: outside,
    failingShare: share(outside, n),
    channelingShots: shots?.channeling ?? 0,
    saleShotEquivalents: sold,
    variance: n - sold,
  });
}

const pad = (n: number) => (n < 10 ? `0${n}` : `${n}`);

/**
 * Days from `from` to `to` inclusive, as YYYY-MM-DD (calendar arithmetic in UTC, which has no DST). Built from
 * the UTC fields rather than Date#toISOString, which builds and then cuts a longer string for each of up to
 * 365 days a year (bench/README.md, "Cafe").
 */
function daysOf(from: string, to: string): string[] {
  const days: string[] = [];
  const end = Date.parse(`${to}T00:00:00Z`);
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= end; t += 86_400_000) {
    const d = new Date(t);
    days.push(`${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`);
  }
  return days;
}

/**
 * The performance answer from the rollups' grouping sets: (day), (hour of day), (machine, group) and the total.
 * A row's `day` is its offset from `from`, so the range's days are looked up by index.
 */
export function performanceOf(site: Site, from: string, to: string, shots: ShotFigures[], sales: SaleFigures[]) {
  const dates = daysOf(from, to);
  let total: ShotFigures | undefined;
  const shotsByDay = new Array<ShotFigures | undefined>(dates.length);
  const shotsByHour = new Array<ShotFigures | undefined>(24);
  const heads: ShotFigures[] = [];
  for (const r of shots) {
    if (r.day !== null) shotsByDay[r.day] = r;
    else if (r.h !== null) shotsByHour[r.h] = r;
    else if (r.machine_id !== null) heads.push(r);
    else total = r;
  }
  let soldTotal = 0;
  const soldByDay = new Array<number>(dates.length).fill(0);
  const soldByHour = new Array<number>(24).fill(0);
  for (const r of sales) {
    if (r.day !== null) soldByDay[r.day] = r.shot_equivalents;
    else if (r.h !== null) soldByHour[r.h] = r.shot_equivalents;
    else soldTotal = r.shot_equivalents;
  }
  return {
    siteId: site.id,
    timezone: site.timezone,
    from,
    to,
    totals: withFigures({}, total, soldTotal),
    days: dates.map((date, i) => withFigures({ date }, shotsByDay[i], soldByDay[i])),
    hours: Array.from({ length: 24 }, (_, hour) => withFigures({ hour }, shotsByHour[hour], soldByHour[hour])),
    groupHeads: heads
      .sort((a, b) => a.machine_id!.localeCompare(b.machine_id!) || a.group_no! - b.group_no!)
      .map((r) => ({
        machineId: r.machine_id!,
        group: r.group_no!,
        shots: r.shots,
        outsideTargetShots: r.outside_target,
        failingShare: share(r.outside_target, r.shots),
        channelingShots: r.channeling,
        meanDurationS: r.shots > 0 ? Math.round((r.duration_sum_s / r.shots) * 10) / 10 : null,
      })),
  };
}
