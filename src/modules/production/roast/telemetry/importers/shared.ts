import { fahrenheitToCelsius } from '../curve.js';
import { ImportError } from './types.js';

/** Small helpers used by several format parsers. */

/** Converts a reading in the file's unit to °C; null (missing) stays null. */
export function toCelsius(value: number | null, unit: 'C' | 'F'): number | null {
  if (value === null) return null;
  return unit === 'F' ? fahrenheitToCelsius(value) : value;
}

/** JSON.parse with the failure turned into an ImportError that names the format. */
export function parseJson(content: string, label: string): unknown {
  try {
    return JSON.parse(content);
  } catch (error) {
    throw new ImportError(`${label}: invalid JSON (${(error as Error).message})`);
  }
}

const POUND_KG = 0.45359237;
const TO_KG: Record<string, (amount: number) => number> = {
  g: (amount) => amount / 1000,
  kg: (amount) => amount,
  lb: (amount) => amount * POUND_KG,
  lbs: (amount) => amount * POUND_KG,
  oz: (amount) => (amount * POUND_KG) / 16,
};

/** Weight in the given unit (g, kg, lb(s), oz; any case) to kg. 0 means "not entered" in every tool here → undefined. */
export function weightToKg(value: unknown, unit: unknown): number | undefined {
  const amount = typeof value === 'string' ? Number(value) : value;
  const convert = typeof unit === 'string' ? TO_KG[unit.trim().toLowerCase()] : undefined;
  if (typeof amount !== 'number' || !Number.isFinite(amount) || amount <= 0 || convert === undefined) return undefined;
  return convert(amount);
}

/** Column/curve names can repeat (two devices both named "ET"); later ones get a numeric suffix. */
export function uniqueName(name: string, taken: Set<string>): string {
  let candidate = name;
  for (let n = 2; taken.has(candidate); n++) candidate = `${name}_${n}`;
  taken.add(candidate);
  return candidate;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
