/**
 * Decimal amounts as whole units of their smallest step (grams for kilograms), so rules compare and add
 * exactly in code. Amounts cross the wire and the database as decimal strings whose scale is validated
 * (kg() allows 3 decimals), which makes the conversion lossless both ways.
 */
export function scaled(value: string, scale: number): bigint {
  const match = /^(-?)(\d+)(?:\.(\d*))?$/.exec(value.trim());
  const fraction = match?.[3] ?? '';
  if (!match || fraction.replace(/0+$/, '').length > scale) throw new Error(`not a decimal with at most ${scale} decimals: ${value}`);
  const units = BigInt(match[2]) * 10n ** BigInt(scale) + BigInt(fraction.slice(0, scale).padEnd(scale, '0') || '0');
  return match[1] ? -units : units;
}

/** Kilograms (at most 3 decimals) as grams. */
export const grams = (kg: string): bigint => scaled(kg, 3);

/** Grams back to a kilogram string with exactly 3 decimals, the response format for weights. */
export function kgString(g: bigint): string {
  const sign = g < 0n ? '-' : '';
  const abs = g < 0n ? -g : g;
  return `${sign}${abs / 1000n}.${String(abs % 1000n).padStart(3, '0')}`;
}
