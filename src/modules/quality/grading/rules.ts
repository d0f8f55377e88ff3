/**
 * The published rules each grading standard is judged by. Every rule is a check with the measured value,
 * the limit and a sentence citing where the limit comes from; the grading fails when any check fails.
 * Sources (also in the README):
 * - SCA: Specialty Coffee Association, Arabica Green Coffee Defect Handbook and green grading standard
 *   (350 g sample): specialty grade has 0 category-1 full defects, at most 5 category-2 full defects,
 *   moisture 10–12 % and water activity below 0.70. (Older SCAA tables allow 9–13 %; ICO recommends 8–12.5 %.
 *   We use the SCA's current 10–12 %.)
 * - ICO Coffee Quality-Improvement Programme, Resolution 407 (2002) as modified by Resolution 420 (2004):
 *   at most 86 defects per 300 g for arabica (New York / Brazilian method), at most 150 per 300 g for robusta
 *   (Vietnam, Indonesia or equivalent), moisture between 8 % and 12.5 %.
 * - Brazil / New York: Brazilian Official Classification (MAPA Instrução Normativa 8/2003) defect-count types
 *   per 300 g: type 2 ≤ 4, 3 ≤ 12, 4 ≤ 26, 5 ≤ 46, 6 ≤ 86, 7 ≤ 160, 8 ≤ 360, beyond that out of type.
 * - Indonesia: SNI 01-2907-2008 defect-value grades per 300 g: 1 ≤ 11, 2 ≤ 25, 3 ≤ 44, 4a ≤ 60, 4b ≤ 80,
 *   5 ≤ 150, 6 ≤ 225; moisture at most 12.5 %.
 */

export const STANDARDS = ['sca', 'coe', 'brazil_ny', 'indonesian', 'vietnamese', 'custom'] as const;
export type Standard = (typeof STANDARDS)[number];

export interface Measures {
  moisturePct?: number;
  waterActivity?: number;
  defectsPrimary?: number;
  defectsSecondary?: number;
}

export interface Check {
  /** A stable name: `<standard>.<rule>`. */
  rule: string;
  passed: boolean;
  /** What was measured, as given. */
  measured: string;
  /** What the rule allows. */
  limit: string;
  message: string;
}

export interface Judgement {
  result: 'pass' | 'fail' | 'not_judged';
  /** The standard's class of the coffee where it names one (NY type, SNI grade); null otherwise. */
  grade: string | null;
  checks: Check[];
}

/** The measures each standard's rules need: a grading against it without one is 400 naming the field. */
export const REQUIRED_MEASURES: Record<Standard, (keyof Measures)[]> = {
  sca: ['defectsPrimary', 'defectsSecondary', 'moisturePct', 'waterActivity'],
  coe: ['defectsPrimary', 'defectsSecondary', 'moisturePct', 'waterActivity'],
  brazil_ny: ['defectsPrimary', 'defectsSecondary', 'moisturePct'],
  indonesian: ['defectsPrimary', 'defectsSecondary', 'moisturePct'],
  vietnamese: ['defectsPrimary', 'defectsSecondary', 'moisturePct'],
  custom: [],
};

const check = (rule: string, passed: boolean, measured: number | string, limit: string, message: string): Check => ({
  rule,
  passed,
  measured: String(measured),
  limit,
  message,
});

function specialtyGrade(standard: 'sca' | 'coe', m: Required<Measures>): Check[] {
  const source = standard === 'sca' ? 'SCA specialty grade' : 'Cup of Excellence (SCA specialty grade physical rules)';
  return [
    check(`${standard}.category1_defects`, m.defectsPrimary === 0, m.defectsPrimary, '0', `${m.defectsPrimary} category-1 full defects per 350 g; ${source} allows 0`),
    check(`${standard}.category2_defects`, m.defectsSecondary <= 5, m.defectsSecondary, '≤ 5', `${m.defectsSecondary} category-2 full defects per 350 g; ${source} allows at most 5`),
    check(`${standard}.moisture`, m.moisturePct >= 10 && m.moisturePct <= 12, m.moisturePct, '10–12 %', `moisture ${m.moisturePct} %; ${source} requires 10–12 %`),
    check(`${standard}.water_activity`, m.waterActivity < 0.7, m.waterActivity, '< 0.70', `water activity ${m.waterActivity}; ${source} requires below 0.70`),
  ];
}

const NY_TYPES: [number, string][] = [[4, 'NY 2'], [12, 'NY 3'], [26, 'NY 4'], [46, 'NY 5'], [86, 'NY 6'], [160, 'NY 7'], [360, 'NY 8']];
const SNI_GRADES: [number, string][] = [[11, 'SNI 1'], [25, 'SNI 2'], [44, 'SNI 3'], [60, 'SNI 4a'], [80, 'SNI 4b'], [150, 'SNI 5'], [225, 'SNI 6']];
const classOf = (table: [number, string][], defects: number, beyond: string) => table.find(([max]) => defects <= max)?.[1] ?? beyond;

function icoExportMinimum(standard: Standard, m: Required<Measures>, species: 'arabica' | 'robusta'): Check[] {
  const defects = m.defectsPrimary + m.defectsSecondary;
  const max = species === 'arabica' ? 86 : 150;
  return [
    check(`${standard}.defects`, defects <= max, defects, `≤ ${max}`, `${defects} defects per 300 g; the ICO quality standard (Res. 420) allows at most ${max} for ${species}`),
    check(`${standard}.moisture`, m.moisturePct >= 8 && m.moisturePct <= 12.5, m.moisturePct, '8–12.5 %', `moisture ${m.moisturePct} %; the ICO quality standard (Res. 420) requires 8–12.5 %`),
  ];
}

/** Judges the measures by the standard's rules; the caller has checked REQUIRED_MEASURES are given. */
export function judge(standard: Standard, measures: Measures): Judgement {
  const m = measures as Required<Measures>;
  let checks: Check[];
  let grade: string | null = null;
  switch (standard) {
    case 'sca':
    case 'coe':
      checks = specialtyGrade(standard, m);
      grade = checks.every((c) => c.passed) ? 'specialty' : 'below specialty';
      break;
    case 'brazil_ny':
      grade = classOf(NY_TYPES, m.defectsPrimary + m.defectsSecondary, 'out of type');
      checks = icoExportMinimum(standard, m, 'arabica');
      break;
    case 'indonesian':
      grade = classOf(SNI_GRADES, m.defectsPrimary + m.defectsSecondary, 'out of grade');
      checks = icoExportMinimum(standard, m, 'robusta');
      break;
    case 'vietnamese':
      checks = icoExportMinimum(standard, m, 'robusta');
      break;
    case 'custom':
      // A custom standard publishes no rules the service could apply: the measures are recorded, not judged.
      return { result: 'not_judged', grade: null, checks: [] };
  }
  return { result: checks.every((c) => c.passed) ? 'pass' : 'fail', grade, checks };
}
