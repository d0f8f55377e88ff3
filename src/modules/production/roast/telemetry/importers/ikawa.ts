import type { CurveSample, RoastEvent } from '../curve.js';
import {
  assertRowWidth,
  indexColumns,
  parseNumberCell,
  readDelimited,
  requireNumberCell,
  type DelimitedRecord,
} from './delimited.js';
import { ImportError, type ParsedLog } from './types.js';

/**
 * IKAWA app CSV (°C only), two header generations:
 *   old: time,state,temp set,exaust temp,fan set (%),fan speed (RPM),heater power (%)
 *   new: time,fan set,setpoint,fan speed,temp above,state,heater,p,i,d,temp below, temp board, ..., adfc_timestamp, ...
 * IKAWA has no bean probe. Like Artisan, BT is the exhaust / above-the-beans air temperature and ET the inlet /
 * below-the-beans temperature (absent in the old generation).
 *
 * Events: CHARGE = first `doser open` row, DROP = first `cooling` row, FCs = `adfc_timestamp` of the last row when
 * > 0 (the machine's first-crack detection, on the `time` column's clock).
 *
 * Time: the `time` column counts seconds from the start of the `roasting` state and is 0 on every row before it.
 * Rows are logged once per second, so earlier rows are placed at 1 s steps back from the first roasting row. (Artisan
 * ignores the column and uses the row number throughout; this keeps the real clock wherever the file has one.)
 */

interface Generation {
  bt: string;
  et?: string;
  channels: string[];
}

const OLD: Generation = { bt: 'exaust temp', channels: ['temp set', 'fan set (%)', 'fan speed (RPM)', 'heater power (%)'] };
const NEW: Generation = {
  bt: 'temp above',
  et: 'temp below',
  channels: ['setpoint', 'fan set', 'fan speed', 'heater', 'abs_humidity'],
};

const NOMINAL_ROW_INTERVAL_S = 1;

export function parseIkawaCsv(content: string): ParsedLog {
  const [header, ...rows] = readDelimited(content, ',');
  if (!header || rows.length === 0) throw new ImportError('IKAWA CSV: no data rows');
  const names = header.cells.map((name) => name.trim());
  const generation = names.includes(NEW.bt) ? NEW : OLD;
  const columns = indexColumns(header, ['time', 'state', generation.bt]);
  const channelNames = generation.channels.filter((name) => columns.has(name));
  // Trailing unnamed cells (the 2024 export ends rows with a comma) are not columns.
  const width = names.length;

  const states = rows.map((row) => {
    assertRowWidth(row, width);
    return row.cells[columns.get('state')!].trim();
  });
  const clock = rows.map((row) => requireNumberCell(row, columns.get('time')!, 'time'));
  const clockStart = states.findIndex((state) => state === 'roasting' || state === 'cooling');
  const seconds = rows.map((_, i) => {
    if (clockStart < 0) return i * NOMINAL_ROW_INTERVAL_S;
    return i >= clockStart ? clock[i] : clock[clockStart] - (clockStart - i) * NOMINAL_ROW_INTERVAL_S;
  });

  const reading = (row: DelimitedRecord, name: string | undefined) =>
    name !== undefined && columns.has(name) ? parseNumberCell(row, columns.get(name)!, name) : null;
  const samples: CurveSample[] = rows.map((row, i) => ({
    t: seconds[i] * 1000,
    bt: reading(row, generation.bt),
    et: reading(row, generation.et),
    channels: Object.fromEntries(channelNames.map((name) => [name, reading(row, name)])),
  }));

  const events: RoastEvent[] = [];
  const charge = states.indexOf('doser open');
  if (charge >= 0) events.push({ type: 'charge', t: seconds[charge] * 1000 });
  const drop = states.indexOf('cooling');
  if (drop >= 0) events.push({ type: 'drop', t: seconds[drop] * 1000 });
  if (columns.has('adfc_timestamp')) {
    const lastRow = rows[rows.length - 1];
    const firstCrack = parseNumberCell(lastRow, columns.get('adfc_timestamp')!, 'adfc_timestamp');
    if (firstCrack !== null && firstCrack > 0) events.push({ type: 'first_crack_start', t: firstCrack * 1000 });
  }

  const warnings = [
    `IKAWA has no bean probe: bt holds the "${generation.bt}" air temperature, as Artisan maps it`,
  ];
  if (clockStart > 0) {
    warnings.push(`the ${clockStart} rows before roasting carry no time; they are placed at 1 s steps`);
  }
  return { samples, events, meta: { machine: 'IKAWA', sourceUnit: 'C' }, warnings };
}
