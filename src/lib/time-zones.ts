/**
 * Wall clocks in IANA time zones, with the platform's Intl data (no dependency): a local time without a zone read in
 * a named zone, and an instant shown in one.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let format = formatters.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, format);
  }
  return format;
}

/** The wall clock in `zone` at `ms`, as `YYYY-MM-DDTHH:MM:SS` (whole seconds, the fraction dropped). */
export function wallClockAt(ms: number, zone: string): string {
  const parts = Object.fromEntries(formatter(zone).formatToParts(new Date(Math.floor(ms / 1000) * 1000)).map((p) => [p.type, p.value]));
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}`;
}

/** The zone's offset from UTC at `ms`, in seconds east (Europe/Berlin in winter: 3600). */
export function offsetSecondsAt(ms: number, zone: string): number {
  const whole = Math.floor(ms / 1000) * 1000;
  return (Date.parse(`${wallClockAt(whole, zone)}Z`) - whole) / 1000;
}

/**
 * The instant a wall clock (`YYYY-MM-DDTHH:MM:SS`, optionally with a fraction) shows in `zone`. A time the clocks skip
 * (spring forward) is read with the offset before the change; a time they show twice (fall back), as its first
 * occurrence.
 */
export function instantOfWallClock(wall: string, zone: string): number {
  const asUtc = Date.parse(`${wall}Z`);
  if (Number.isNaN(asUtc)) throw new Error(`not a wall clock: ${wall}`);
  // Offsets change at most once within a day: the offsets half a day before and after give every candidate.
  const before = asUtc - offsetSecondsAt(asUtc - 43_200_000, zone) * 1000;
  const after = asUtc - offsetSecondsAt(asUtc + 43_200_000, zone) * 1000;
  const shown = wall.slice(0, 19);
  const valid = [before, after].filter((ms) => wallClockAt(ms, zone) === shown);
  return valid.length > 0 ? Math.min(...valid) : before;
}
