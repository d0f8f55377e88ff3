import { grams, kgString } from '../../../lib/grams.js';

/** What a machine record says about batch sizes (kilogram decimal strings, null when unset). */
export interface MachineSizes {
  minBatchKg: string | null;
  maxBatchKg: string | null;
  capacityKg: string | null;
}

/**
 * The green charge a machine can run, in grams: from its minimum batch (0 when unset) to its maximum
 * batch, or its capacity when no maximum is set (null: no upper bound recorded).
 */
export function batchRange(machine: MachineSizes): { min: bigint; max: bigint | null } {
  const max = machine.maxBatchKg ?? machine.capacityKg;
  return { min: machine.minBatchKg === null ? 0n : grams(machine.minBatchKg), max: max === null ? null : grams(max) };
}

/** Why a charge does not fit the machine, or null when it does. */
export function chargeOutsideRange(machine: MachineSizes, chargeGrams: bigint): string | null {
  const { min, max } = batchRange(machine);
  if (chargeGrams < min) return `below the machine's minimum batch of ${kgString(min)} kg`;
  if (max !== null && chargeGrams > max) return `above the machine's maximum batch of ${kgString(max)} kg`;
  return null;
}
