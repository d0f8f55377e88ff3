import { grams, kgString } from '../../../lib/grams.js';
import type { Profile } from '../profile/service.js';
import type { RoastBatch } from './repository.js';

export interface TargetComparison<T> {
  target: T | null;
  actual: T | null;
  /** actual − target; null unless both are known. */
  difference: T | null;
}

/**
 * A batch against its profile's targets: charge weight (kg strings, exact), drop temperature (°C), total
 * time (s) and development time ratio (%). Every target is listed; one the profile does not set, or an
 * actual not known yet (a live batch has no metrics), leaves the difference null.
 */
export function compareWithProfile(profile: Profile, batch: RoastBatch) {
  const metrics = batch.metrics;
  return {
    profileId: profile.id,
    profileCode: profile.code,
    chargeWeightKg: compareKg(profile.targetChargeKg, batch.chargeWeightKg),
    dropTempC: compareNumber(profile.targetDropTempC, metrics?.dropTempC ?? null),
    totalTimeS: compareNumber(profile.targetTotalTimeS, metrics?.totalTimeS ?? null),
    dtrPct: compareNumber(profile.targetDtrPct, metrics?.developmentTimeRatioPct ?? null),
  };
}

function compareKg(target: string | null, actual: string | null): TargetComparison<string> {
  return { target, actual, difference: target !== null && actual !== null ? kgString(grams(actual) - grams(target)) : null };
}

function compareNumber(target: number | null, actual: number | null): TargetComparison<number> {
  return { target, actual, difference: target !== null && actual !== null ? round2(actual - target) : null };
}

export const round2 = (n: number) => Math.round(n * 100) / 100;
