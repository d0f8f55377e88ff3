import type { CurveSample, RoastEvent, RoastEventType } from '../curve.js';
import { isRecord, parseJson, weightToKg } from './shared.js';
import { ImportError, type ParsedLog, type RoastMeta } from './types.js';

/**
 * Aillio RoasTime roast JSON (Bullet). No time array: sample i is at i / sampleRate seconds. °C only.
 * BT = `beanTemperature` (IBTS), ET = `drumTemperature` (the Bullet's second probe; Artisan's Aillio driver shows it
 * as ET too). `exitTemperature` becomes a channel; it is all 0 on machines without that probe, and 0 is read as
 * "no reading".
 *
 * Events are sample indexes: `roastStartIndex` = CHARGE, `roastEndIndex` = DROP (one past the last sample, which is
 * why `totalRoastTime` = (end - start) / sampleRate), `indexYellowingStart` = DRY, `indexFirstCrackStart` etc.
 * 0 = not marked, except for `roastStartIndex` where 0 is a real index.
 */

const INDEX_EVENTS: [field: string, type: RoastEventType][] = [
  ['indexYellowingStart', 'dry_end'],
  ['indexFirstCrackStart', 'first_crack_start'],
  ['indexFirstCrackEnd', 'first_crack_end'],
  ['indexSecondCrackStart', 'second_crack_start'],
  ['indexSecondCrackEnd', 'second_crack_end'],
  ['roastEndIndex', 'drop'],
];

export function parseAillioJson(content: string): ParsedLog {
  const roast = parseJson(content, 'Aillio RoasTime JSON');
  const fail = (problem: string): never => {
    throw new ImportError(`Aillio RoasTime JSON: ${problem}`);
  };
  if (!isRecord(roast)) return fail('expected an object at the top level');
  const bean = readingList(roast.beanTemperature) ?? fail("field 'beanTemperature' must be a list of numbers");
  const drum = readingList(roast.drumTemperature);
  const exit = readingList(roast.exitTemperature);
  const rate = roast.sampleRate;
  if (typeof rate !== 'number' || !(rate > 0)) return fail("field 'sampleRate' must be a positive number");
  const msPerSample = 1000 / rate;

  const samples: CurveSample[] = bean.map((bt, i) => ({
    t: i * msPerSample,
    bt,
    et: drum?.[i] ?? null,
    ...(exit && { channels: { exitTemperature: exit[i] === 0 ? null : (exit[i] ?? null) } }),
  }));

  const events: RoastEvent[] = [];
  const index = (field: string) => {
    const value = roast[field];
    return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= bean.length ? value : null;
  };
  const start = index('roastStartIndex');
  if (start !== null) events.push({ type: 'charge', t: start * msPerSample });
  for (const [field, type] of INDEX_EVENTS) {
    const at = index(field);
    if (at) events.push({ type, t: at * msPerSample });
  }

  const warnings: string[] = [];
  if (Array.isArray(roast.missingSeconds) && roast.missingSeconds.length > 0) {
    warnings.push(`the file lists ${roast.missingSeconds.length} missing seconds; sample times assume none are missing`);
  }
  return { samples, events, meta: aillioMeta(roast), warnings };
}

function aillioMeta(roast: Record<string, unknown>): RoastMeta {
  const meta: RoastMeta = { sourceUnit: 'C' };
  // dateTime is Unix milliseconds.
  if (typeof roast.dateTime === 'number' && roast.dateTime > 0) meta.roastedAt = new Date(roast.dateTime).toISOString();
  if (typeof roast.roastName === 'string' && roast.roastName.trim()) meta.title = roast.roastName.trim();
  if (typeof roast.deviceType === 'string') meta.machine = `Aillio ${roast.deviceType}`;
  // Weights are grams, as numbers or (in some RoasTime versions) strings.
  const green = weightToKg(roast.weightGreen, 'g');
  const roasted = weightToKg(roast.weightRoasted, 'g');
  if (green !== undefined) meta.greenWeightKg = green;
  if (roasted !== undefined) meta.roastedWeightKg = roasted;
  return meta;
}

/** A list of readings; null entries (JSON null) stay missing. */
function readingList(value: unknown): (number | null)[] | undefined {
  if (!Array.isArray(value) || !value.every((v) => v === null || typeof v === 'number')) return undefined;
  return value as (number | null)[];
}
