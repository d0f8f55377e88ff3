import type { Site, SaleFigures, ShotFigures } from './repository.js';

/** Shares to four decimals. */
const share = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 10_000) / 10_000 : 0);

const figures = (shots: ShotFigures | undefined, sold: number) => {
  const n = shots?.shots ?? 0;
  return {
    shots: n,
    outsideTargetShots: shots?.outside_target ?? 0,
    failingShare: share(shots?.outside_target ?? 0, n),
    channelingShots: shots?.channeling ?? 0,
    saleShotEquivalents: sold,
    variance: n - sold,
  };
};

/** Days from `from` to `to` inclusive, as YYYY-MM-DD (calendar arithmetic in UTC, which has no DST). */
function daysOf(from: string, to: string): string[] {
  const days: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += 86_400_000) days.push(new Date(t).toISOString().slice(0, 10));
  return days;
}

/** The performance answer from the rollups' grouping sets: (day), (hour of day), (machine, group) and the total. */
export function performanceOf(site: Site, from: string, to: string, shots: ShotFigures[], sales: SaleFigures[]) {
  const total = shots.find((r) => r.day === null && r.h === null && r.machine_id === null);
  const shotsByDay = new Map(shots.filter((r) => r.day !== null).map((r) => [r.day!, r]));
  const shotsByHour = new Map(shots.filter((r) => r.h !== null).map((r) => [r.h!, r]));
  const soldTotal = sales.find((r) => r.day === null && r.h === null)?.shot_equivalents ?? 0;
  const soldByDay = new Map(sales.filter((r) => r.day !== null).map((r) => [r.day!, r.shot_equivalents]));
  const soldByHour = new Map(sales.filter((r) => r.h !== null).map((r) => [r.h!, r.shot_equivalents]));
  return {
    siteId: site.id,
    timezone: site.timezone,
    from,
    to,
    totals: figures(total, soldTotal),
    days: daysOf(from, to).map((date) => ({ date, ...figures(shotsByDay.get(date), soldByDay.get(date) ?? 0) })),
    hours: Array.from({ length: 24 }, (_, hour) => ({ hour, ...figures(shotsByHour.get(hour), soldByHour.get(hour) ?? 0) })),
    groupHeads: shots
      .filter((r) => r.machine_id !== null)
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
