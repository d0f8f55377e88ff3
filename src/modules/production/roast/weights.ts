import { kgString, scaled } from '../../../lib/grams.js';

/**
 * A roast batch keeps its weights as weighed, to a tenth of a gram (a kilogram decimal string with up to 4
 * decimals), because a sample roast's 115.2 g is not 115 g: its weight loss and metrics use them as they are.
 * Stock moves in whole grams, so what is booked is the weight rounded half up to the gram (`stockKg`), which is
 * also what the API's kilogram fields show (3 decimals); `weighedGrams` shows the weight as weighed.
 */

/** Tenths of a gram in a kilogram string with at most 4 decimals. */
export const tenthGrams = (kg: string): bigint => scaled(kg, 4);

/** A weight in kg from a log (a binary float) to a tenth of a gram, as a 4-decimal kilogram string. */
export function asWeighed(kg: number): string {
  const tenths = BigInt(Math.round(kg * 10_000));
  return `${tenths / 10_000n}.${String(tenths % 10_000n).padStart(4, '0')}`;
}

/** The weight rounded half up to the gram, as the 3-decimal kilogram string stock moves by. */
export function stockKg(kg: string): string {
  const tenths = tenthGrams(kg);
  return kgString(tenths < 0n ? -((-tenths + 5n) / 10n) : (tenths + 5n) / 10n);
}

/** The weight as weighed in grams with one decimal ("115.2"). */
export function weighedGrams(kg: string): string {
  const tenths = tenthGrams(kg);
  return `${tenths / 10n}.${tenths % 10n}`;
}
