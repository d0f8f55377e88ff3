import type { CurveSample, RoastEvent, RoastEventType } from '../curve.js';
import { assertRowWidth, indexColumns, parseNumberCell, readDelimited, requireNumberCell } from './delimited.js';
import { ImportError, type ParsedLog } from './types.js';

/**
 * ROEST sample-roaster CSV: UTF-8 with BOM, `Time` in ms from CHARGE, °C only (the unit is in the column names).
 * BT = `Bean temp (°C)`, ET = `Air temp (°C)`. Events come from the `Event` column labels; `N/A` means none.
 * Unlike Artisan (which ignores the `Drop` and `Turning point` labels and puts DROP on the last row) every label the
 * roaster wrote is kept as recorded.
 */

const EVENT_LABELS: Record<string, RoastEventType> = {
  Charge: 'charge',
  'Turning point': 'turning_point',
  Yellowing: 'dry_end',
  Firstcrack: 'first_crack_start',
  Drop: 'drop',
};

const BT = 'Bean temp (°C)';
const ET = 'Air temp (°C)';
const CHANNELS = ['Fan (%)', 'RPM (RPM)', 'Power (%)', 'Drum temp (°C)', 'Inlet temp (°C)', 'Exhaust Temp (°C)'];

export function parseRoestCsv(content: string): ParsedLog {
  const [header, ...rows] = readDelimited(content, ',');
  if (!header || rows.length === 0) throw new ImportError('ROEST CSV: no data rows');
  const columns = indexColumns(header, ['Time', 'Event', BT, ET]);
  const channelNames = CHANNELS.filter((name) => columns.has(name));
  const warnings: string[] = [];
  const events: RoastEvent[] = [];

  const samples: CurveSample[] = rows.map((row) => {
    assertRowWidth(row, header.cells.length);
    const t = requireNumberCell(row, columns.get('Time')!, 'Time');
    const label = row.cells[columns.get('Event')!].trim();
    if (label in EVENT_LABELS) events.push({ type: EVENT_LABELS[label], t });
    else if (label !== 'N/A' && label !== '') warnings.push(`line ${row.line}: unknown event "${label}" ignored`);
    return {
      t,
      bt: parseNumberCell(row, columns.get(BT)!, BT),
      et: parseNumberCell(row, columns.get(ET)!, ET),
      channels: Object.fromEntries(channelNames.map((name) => [name, parseNumberCell(row, columns.get(name)!, name)])),
    };
  });

  return { samples, events, meta: { machine: 'ROEST', sourceUnit: 'C' }, warnings };
}
