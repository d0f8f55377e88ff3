import { fahrenheitToCelsius, type CurveSample, type RoastEvent, type RoastEventType } from '../curve.js';
import { weightToKg } from './shared.js';
import { parseClock } from './delimited.js';
import { ImportError, type ParsedLog, type RoastMeta } from './types.js';
import { readXlsWorkbook, type XlsCell, type XlsSheet } from './xls.js';

/**
 * Cropster roast export (`export-roasts_<id>.xls`, binary Excel 97). Only English exports are understood (Cropster
 * localizes sheet names and labels; Artisan carries translation tables for ten languages).
 * - `General`: labels in row 1, values in row 2 (lot, profile, machine, weights with unit cells, `Duration` mm:ss).
 * - `Comments`: `Time (s) | Temperature | Comment type | Comment`; typed rows give TP, color change, cracks.
 * - `Curve - <name>`: `Time (s) | Value (<UNIT>)`, 1 s steps from 0. The unit is only in that header cell.
 * Cropster records from CHARGE to DROP, so its time 0 is CHARGE; DROP is at `Duration`.
 * BT = `Curve - Bean temp.`, ET = the exhaust curve, else the environment curve; other curves become channels
 * named after the sheet, temperature ones converted to °C.
 */

const CURVE_PREFIX = 'Curve - ';
const BT_CURVES = ['Bean temp.', 'Bean temperature'];
const ET_CURVES = ['Exhaust temp.', 'Exhaust temperature', 'Env. temp.', 'Env. temperature'];
const COMMENT_EVENTS: Record<string, RoastEventType> = {
  'Turning point': 'turning_point',
  'Color change': 'dry_end',
  'First crack': 'first_crack_start',
  'First crack end': 'first_crack_end',
  'Second crack': 'second_crack_start',
  'Second crack end': 'second_crack_end',
};

interface CurveSeries {
  name: string;
  unit: string;
  /** value by whole-or-fractional second */
  values: Map<number, number | null>;
}

export function parseCropsterXls(bytes: Uint8Array): ParsedLog {
  const sheets = readXlsWorkbook(bytes);
  const curves = sheets.filter((sheet) => sheet.name.startsWith(CURVE_PREFIX)).map(readCurve);
  const bt = curves.find((curve) => BT_CURVES.includes(curve.name));
  if (!bt) {
    const names = sheets.map((sheet) => sheet.name).join(', ');
    throw new ImportError(
      `Excel workbook is not an English Cropster roast export: no "${CURVE_PREFIX}${BT_CURVES[0]}" sheet (sheets: ${names})`,
    );
  }
  const et = ET_CURVES.map((name) => curves.find((curve) => curve.name === name)).find(Boolean);
  const others = curves.filter((curve) => curve !== bt && curve !== et);

  const samples: CurveSample[] = [...bt.values.entries()].map(([seconds, value]) => ({
    t: seconds * 1000,
    bt: value,
    et: et?.values.get(seconds) ?? null,
    ...(others.length > 0 && {
      channels: Object.fromEntries(others.map((curve) => [curve.name, curve.values.get(seconds) ?? null])),
    }),
  }));

  const general = labelledValues(sheets.find((sheet) => sheet.name === 'General'));
  const events: RoastEvent[] = [{ type: 'charge', t: 0 }];
  const duration = general.get('Duration');
  const dropSeconds = typeof duration === 'string' ? parseClock(duration) : null;
  if (dropSeconds !== null) events.push({ type: 'drop', t: dropSeconds * 1000 });
  events.push(...commentEvents(sheets.find((sheet) => sheet.name === 'Comments')));

  const warnings: string[] = [];
  const meta: RoastMeta = { sourceUnit: bt.unit === 'FAHRENHEIT' ? 'F' : 'C' };
  const title = general.get('Profile');
  if (typeof title === 'string' && title.trim()) meta.title = title.trim();
  const machine = general.get('Machine');
  if (typeof machine === 'string' && machine.trim()) meta.machine = machine.trim();
  const green = weightToKg(general.get('Start weight'), general.get('Start weight unit'));
  const roasted = weightToKg(general.get('End weight'), general.get('End weight unit'));
  if (green !== undefined) meta.greenWeightKg = green;
  if (roasted !== undefined) meta.roastedWeightKg = roasted;
  const date = general.get('Date');
  // The curves start at 0 = charge; Cropster's Date is that moment as a local wall clock without a zone.
  if (typeof date === 'number' && Number.isFinite(date)) meta.localRoastedAt = excelSerialToLocal(date);
  return { samples, events, meta, warnings };
}

function readCurve(sheet: XlsSheet): CurveSeries {
  const name = sheet.name.slice(CURVE_PREFIX.length);
  const unitCell = sheet.rows[0]?.[1];
  const unit = typeof unitCell === 'string' ? (/\(([A-Z]+)\)/.exec(unitCell)?.[1] ?? '') : '';
  const values = new Map<number, number | null>();
  sheet.rows.slice(1).forEach((row, i) => {
    const [time, value] = row ?? [];
    if (time === undefined && value === undefined) return;
    if (typeof time !== 'number' || (value !== undefined && typeof value !== 'number')) {
      throw new ImportError(`sheet "${sheet.name}" row ${i + 2}: expected a number of seconds and a numeric value`);
    }
    const reading = value ?? null;
    values.set(time, reading !== null && unit === 'FAHRENHEIT' ? fahrenheitToCelsius(reading) : reading);
  });
  return { name, unit, values };
}

/** Row 1 labels → row 2 values. */
function labelledValues(sheet: XlsSheet | undefined): Map<string, XlsCell> {
  const [labels = [], values = []] = sheet?.rows ?? [];
  const out = new Map<string, XlsCell>();
  labels.forEach((label, i) => {
    if (typeof label === 'string' && values[i] !== undefined) out.set(label, values[i]);
  });
  return out;
}

function commentEvents(sheet: XlsSheet | undefined): RoastEvent[] {
  const events: RoastEvent[] = [];
  for (const row of sheet?.rows.slice(1) ?? []) {
    const [time, , kind] = row ?? [];
    if (typeof time === 'number' && typeof kind === 'string' && kind in COMMENT_EVENTS) {
      events.push({ type: COMMENT_EVENTS[kind], t: time * 1000 });
    }
  }
  return events;
}

/** Excel serial day number (days since 1899-12-30, fraction = time of day) as "yyyy-mm-dd hh:mm". */
function excelSerialToLocal(serial: number): string {
  const ms = Math.round((serial - 25569) * 86_400_000); // 25569 = serial of 1970-01-01
  return new Date(ms).toISOString().slice(0, 19);
}
