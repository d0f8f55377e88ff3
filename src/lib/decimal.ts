// Exact decimals: amounts as bigint in their smallest unit (cents, 1/10000 of a currency unit, grams).

/** a / b rounded half away from zero. */
export function divRound(a: bigint, b: bigint): bigint {
  const negative = a < 0n !== b < 0n;
  const [x, y] = [a < 0n ? -a : a, b < 0n ? -b : b];
  const q = (x * 2n + y) / (2n * y);
  return negative ? -q : q;
}

/** A bigint of `scale` decimals as a decimal string. */
export function decimalString(units: bigint, scale: number): string {
  const sign = units < 0n ? '-' : '';
  const abs = units < 0n ? -units : units;
  if (scale === 0) return `${sign}${abs}`;
  const p = 10n ** BigInt(scale);
  return `${sign}${abs / p}.${String(abs % p).padStart(scale, '0')}`;
}
