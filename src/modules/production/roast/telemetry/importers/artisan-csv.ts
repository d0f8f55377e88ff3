import type { CurveSample, RoastEvent, RoastEventType } from '../curve.js';
import { artisanTemperature, artisanValue } from './artisan.js';
import { assertRowWidth, indexColumns, parseClock, parseNumberCell, readDelimited } from './delimited.js';
import { toCelsius, uniqueName } from './shared.js';
import { ImportError, type ParsedLog } from './types.js';

/**
 * Artisan CSV export (File >> Export >> Artisan CSV), tab-delimited:
 *   line 1: `Date:dd.MM.yyyy  Unit:C  CHARGE:mm:ss  TP:..  DRYe:..  FCs:..  FCe:..  SCs:..  SCe:..  DROP:..  COOL:..
 *           Time:HH:MM`, event times measured from the FIRST SAMPLE (not from CHARGE); empty = not set
 *   line 2: `Time1  Time2  ET  BT  Event` + two columns per extra device (names may be empty or repeat)
 *   rows:   Time1 = mm:ss since the first sample, Time2 = mm:ss since CHARGE (empty before it), -1 = no reading.
 * Like Artisan's own reader, events come from line 1 (a row carrying an event label can be missing, because the writer
 * skips rows whose Time1 repeats). Times have 1 s resolution.
 */

const HEADER_EVENTS: Record<string, RoastEventType> = {
  CHARGE: 'charge',
  TP: 'turning_point',
  DRYe: 'dry_end',
  FCs: 'first_crack_start',
  FCe: 'first_crack_end',
  SCs: 'second_crack_start',
  SCe: 'second_crack_end',
  DROP: 'drop',
  COOL: 'cool_end',
};

const FIXED_COLUMNS = ['Time1', 'Time2', 'ET', 'BT', 'Event'] as const;

export function parseArtisanCsv(content: string): ParsedLog {
  const records = readDelimited(content, '\t');
  const [settingsLine, header, ...rows] = records;
  if (!settingsLine || !header) throw new ImportError('Artisan CSV: expected a settings line and a column header line');

  // "label:value" cells; split on the first colon only, since times ("09:10") contain colons too.
  const settings = new Map(
    settingsLine.cells.map((cell) => {
      const colon = cell.indexOf(':');
      return colon < 0 ? [cell.trim(), ''] : [cell.slice(0, colon).trim(), cell.slice(colon + 1).trim()];
    }),
  );
  const unit = settings.get('Unit');
  if (unit !== 'C' && unit !== 'F') {
    throw new ImportError(`line ${settingsLine.line}: Unit must be C or F, got "${unit ?? ''}"`);
  }

  const warnings: string[] = [];
  const events: RoastEvent[] = [];
  for (const [label, type] of Object.entries(HEADER_EVENTS)) {
    const value = settings.get(label);
    if (!value) continue;
    const seconds = parseClock(value);
    if (seconds === null) throw new ImportError(`line ${settingsLine.line}: expected mm:ss for ${label}, got "${value}"`);
    events.push({ type, t: seconds * 1000 });
  }
  const localRoastedAt = roastTime(settings.get('Date'), settings.get('Time'), settingsLine.line);

  const columns = indexColumns(header, FIXED_COLUMNS);
  const time1 = columns.get('Time1')!;
  const et = columns.get('ET')!;
  const bt = columns.get('BT')!;
  const extrasFrom = columns.get('Event')! + 1;
  const taken = new Set<string>();
  // An unnamed column without a single reading is padding (Artisan reads extra columns in pairs).
  const padding = (column: number) =>
    header.cells[column].trim() === '' && rows.every((row) => artisanValue(parseNumberCell(row, column, `column ${column + 1}`)) === null);
  const extraColumns = header.cells.map((_, column) => column).filter((column) => column >= extrasFrom && !padding(column));
  const extraNames = extraColumns.map((column) => uniqueName(header.cells[column].trim() || `extra_column_${column + 1}`, taken));
  // Extra devices carry no unit in the CSV, so in a °F file they cannot be converted safely.
  if (unit === 'F' && extraNames.length > 0) {
    warnings.push(
      `extra columns (${extraNames.join(', ')}) are kept as recorded: the CSV does not say which are temperatures`,
    );
  }

  const samples: CurveSample[] = rows.map((row) => {
    assertRowWidth(row, header.cells.length);
    const seconds = parseClock(row.cells[time1]);
    if (seconds === null) {
      throw new ImportError(`line ${row.line}: expected mm:ss in column Time1, got "${row.cells[time1].slice(0, 40)}"`);
    }
    const sample: CurveSample = {
      t: seconds * 1000,
      bt: toCelsius(artisanTemperature(parseNumberCell(row, bt, 'BT')), unit),
      et: toCelsius(artisanTemperature(parseNumberCell(row, et, 'ET')), unit),
    };
    if (extraNames.length > 0) {
      sample.channels = Object.fromEntries(
        extraNames.map((name, i) => [name, artisanValue(parseNumberCell(row, extraColumns[i], name))]),
      );
    }
    return sample;
  });

  return { samples, events, meta: { sourceUnit: unit, ...(localRoastedAt && { localRoastedAt }) }, warnings };
}

/**
 * `Date:dd.MM.yyyy` and `Time:HH:MM` (Artisan's roast time, the start of recording = Time1 00:00) as a local wall
 * clock without a zone; undefined when the header has no date. A malformed date is refused rather than guessed.
 */
function roastTime(date: string | undefined, time: string | undefined, line: number): string | undefined {
  if (!date) return undefined;
  const day = /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/.exec(date);
  const clock = time ? /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec(time) : null;
  if (!day) throw new ImportError(`line ${line}: expected Date:dd.MM.yyyy, got "${date.slice(0, 40)}"`);
  if (time && !clock) throw new ImportError(`line ${line}: expected Time:HH:MM, got "${time.slice(0, 40)}"`);
  const [, dd, mm, yyyy] = day;
  const [hh, mi, ss] = clock ? [clock[1], clock[2], clock[3] ?? '00'] : ['0', '00', '00'];
  const wall = `${yyyy}-${mm.padStart(2, '0')}-${dd.padStart(2, '0')}T${hh.padStart(2, '0')}:${mi}:${ss}`;
  const parsed = new Date(`${wall}Z`);
  if (Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 19) !== wall) {
    throw new ImportError(`line ${line}: Date:${date} Time:${time ?? ''} is not a valid date and time`);
  }
  return wall;
}
