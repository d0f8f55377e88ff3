/**
 * How shots are judged. Each site has a shot target; a shot is outside it when its dose, its brew ratio
 * (yield / dose) or its time is outside the target's band, and channeling-fast when it ran shorter than
 * `channelingBelowS` (water found a path through the puck). Each group head is judged on its own recent shots.
 */
export interface ShotTarget {
  doseG: number;
  doseToleranceG: number;
  ratioMin: number;
  ratioMax: number;
  timeMinS: number;
  timeMaxS: number;
  channelingBelowS: number;
}

/** A classic double espresso: 18 g ± 1 g in, 1:1.8 to 1:2.5 out, 25–32 s; under 18 s is channeling. */
export const DEFAULT_SHOT_TARGET: ShotTarget = {
  doseG: 18,
  doseToleranceG: 1,
  ratioMin: 1.8,
  ratioMax: 2.5,
  timeMinS: 25,
  timeMaxS: 32,
  channelingBelowS: 18,
};

/** listShots: the longest time window one call may ask for. */
export const MAX_SHOT_WINDOW_HOURS = 24 * 7;
/** getSitePerformance: the longest range one call may ask for (a leap year). */
export const MAX_PERFORMANCE_DAYS = 366;

/** getLiveBar shows the shots of the last five minutes. */
export const LIVE_WINDOW_SECONDS = 300;
/** A group head is judged on its last five shots pulled within the last hour (what the live session keeps). */
export const JUDGED_SHOTS = 5;
export const LIVE_RETAIN_SECONDS = 3600;
/** Failing: at least 3 of the last 5 shots outside the target, or at least 2 of them channeling-fast. */
export const FAILING_OUTSIDE_TARGET = 3;
export const FAILING_CHANNELING = 2;

export function shotTargetOf(input: Partial<ShotTarget> | undefined): ShotTarget {
  return { ...DEFAULT_SHOT_TARGET, ...(input ?? {}) };
}

export function judgeShot(target: ShotTarget, shot: { durationS: number; doseG: number; yieldG: number }): { outsideTarget: boolean; channeling: boolean } {
  const ratio = shot.doseG > 0 ? shot.yieldG / shot.doseG : Number.POSITIVE_INFINITY;
  const outsideTarget =
    Math.abs(shot.doseG - target.doseG) > target.doseToleranceG + 1e-9 ||
    ratio < target.ratioMin - 1e-9 ||
    ratio > target.ratioMax + 1e-9 ||
    shot.durationS < target.timeMinS ||
    shot.durationS > target.timeMaxS;
  return { outsideTarget, channeling: shot.durationS < target.channelingBelowS };
}

export interface FailingReason {
  code: 'outside_target' | 'channeling';
  detail: string;
}

/** Why a group head is failing, judged on its recent shots (newest first; only the first JUDGED_SHOTS count). */
export function judgeGroupHead(recent: { outsideTarget: boolean; channeling: boolean }[]): FailingReason[] {
  const judged = recent.slice(0, JUDGED_SHOTS);
  const outside = judged.filter((s) => s.outsideTarget).length;
  const channeling = judged.filter((s) => s.channeling).length;
  const reasons: FailingReason[] = [];
  if (outside >= FAILING_OUTSIDE_TARGET) {
    reasons.push({ code: 'outside_target', detail: `${outside} of its last ${judged.length} shots were outside the target` });
  }
  if (channeling >= FAILING_CHANNELING) {
    reasons.push({ code: 'channeling', detail: `${channeling} of its last ${judged.length} shots ran channeling-fast` });
  }
  return reasons;
}
