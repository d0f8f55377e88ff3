import type { CurveSample, RoastEvent, RoastEventType } from '../curve.js';
import { assertRowWidth, indexColumns, parseNumberCell, readDelimited, type DelimitedRecord } from './delimited.js';
import { toCelsius } from './shared.js';
import { ImportError, type ParsedLog } from './types.js';

/**
 * Loring roaster CSV, about one row per 6 s:
 * - `Time` is local wall-clock `M/d/yyyy h:mm:ss AM|PM` (no zone); sample times are differences between rows.
 *   (Artisan does the same; the `RoastTimeSeconds` counter is imprecise.)
 * - Temperatures are integers ×10 (1614 = 161.4), `BurnerPercentage` ×100; `DegreesCelciusOnOff` 0 means °F.
 * - Events are 0/1 flag columns: CHARGE = `RoastingOnOff` rising (or the first row when it is already on), DROP =
 *   falling; DRY = first `ColorChangeOnOff`; FCs/FCe and SCs/SCe = rising/falling `FirstCrackOnOff`/`SecondCrackOnOff`.
 * BT = `BeanTemperature`, ET = `ReturnAirTemperature`; inlet, stack and burner become channels. The rate-of-rise
 * column is not imported (it is derived, and holds junk such as -29683 in early rows).
 */

const TEMPERATURE_COLUMNS = ['BeanTemperature', 'ReturnAirTemperature', 'InletAirTemperature', 'StackTemperature'];
const REQUIRED = ['Time', 'RoastingOnOff', 'DegreesCelciusOnOff', 'BurnerPercentage', ...TEMPERATURE_COLUMNS];
const FLAG_EVENTS: [column: string, rising: RoastEventType, falling?: RoastEventType][] = [
  ['RoastingOnOff', 'charge', 'drop'],
  ['ColorChangeOnOff', 'dry_end'],
  ['FirstCrackOnOff', 'first_crack_start', 'first_crack_end'],
  ['SecondCrackOnOff', 'second_crack_start', 'second_crack_end'],
];

const WALL_CLOCK = /^(\d{1,2})\/(\d{1,2})\/(\d{4}) (\d{1,2}):(\d{2}):(\d{2}) ?([AP]M)$/i;

export function parseLoringCsv(content: string): ParsedLog {
  const [header, ...allRows] = readDelimited(content, ',');
  if (!header || allRows.length === 0) throw new ImportError('Loring CSV: no data rows');
  const columns = indexColumns(header, REQUIRED);
  const timeColumn = columns.get('Time')!;
  const warnings: string[] = [];

  // The logger ends with a row holding only an id and a timestamp; such rows carry no reading.
  const rows = allRows.filter((row) => {
    assertRowWidth(row, header.cells.length);
    const empty = row.cells.every((cell, i) => i === columns.get('Id') || i === timeColumn || cell.trim() === '');
    if (empty) warnings.push(`line ${row.line}: row has a timestamp but no readings; skipped`);
    return !empty;
  });
  if (rows.length === 0) throw new ImportError('Loring CSV: no rows with readings');

  const unit = flag(rows[0], columns, 'DegreesCelciusOnOff') ? 'C' : 'F';
  const clock = rows.map((row) => wallClockSeconds(row, timeColumn));
  const seconds = clock.map((s) => s - clock[0]);
  const scaled = (row: DelimitedRecord, name: string, divisor: number) => {
    const raw = parseNumberCell(row, columns.get(name)!, name);
    return raw === null ? null : raw / divisor;
  };

  const samples: CurveSample[] = rows.map((row, i) => ({
    t: seconds[i] * 1000,
    bt: toCelsius(scaled(row, 'BeanTemperature', 10), unit),
    et: toCelsius(scaled(row, 'ReturnAirTemperature', 10), unit),
    channels: {
      InletAirTemperature: toCelsius(scaled(row, 'InletAirTemperature', 10), unit),
      StackTemperature: toCelsius(scaled(row, 'StackTemperature', 10), unit),
      BurnerPercentage: scaled(row, 'BurnerPercentage', 100),
    },
  }));

  const events: RoastEvent[] = [];
  for (const [column, rising, falling] of FLAG_EVENTS) {
    if (!columns.has(column)) continue;
    const on = rows.map((row) => flag(row, columns, column));
    const riseAt = on.findIndex((value, i) => value && (i === 0 || !on[i - 1]));
    if (riseAt < 0) continue;
    events.push({ type: rising, t: seconds[riseAt] * 1000 });
    if (riseAt === 0 && rising === 'charge') {
      warnings.push('roasting was already on in the first row; charge is placed on the first sample');
    }
    const fallAt = on.findIndex((value, i) => i > riseAt && !value);
    if (falling && fallAt > 0) events.push({ type: falling, t: seconds[fallAt] * 1000 });
  }

  // The first row's wall clock is t = 0; it has no zone, so the importing operation reads it in one.
  const localRoastedAt = new Date(clock[0] * 1000).toISOString().slice(0, 19);
  return { samples, events, meta: { machine: 'Loring', sourceUnit: unit, localRoastedAt }, warnings };
}

function flag(row: DelimitedRecord, columns: Map<string, number>, name: string): boolean {
  const value = parseNumberCell(row, columns.get(name)!, name);
  if (value !== 0 && value !== 1) throw new ImportError(`line ${row.line}: expected 0 or 1 in column ${name}`);
  return value === 1;
}

/** Seconds on a zone-less local clock; only differences between rows are used, so the zone does not matter. */
function wallClockSeconds(row: DelimitedRecord, column: number): number {
  const text = row.cells[column].trim();
  const match = WALL_CLOCK.exec(text);
  if (!match) throw new ImportError(`line ${row.line}: expected M/d/yyyy h:mm:ss AM|PM in column Time, got "${text}"`);
  const [, month, day, year, hour, minute, second, half] = match;
  const hour24 = (Number(hour) % 12) + (half.toUpperCase() === 'PM' ? 12 : 0);
  return Date.UTC(Number(year), Number(month) - 1, Number(day), hour24, Number(minute), Number(second)) / 1000;
}
