import { z } from 'zod';
import { dateTime, id, page, strict, text } from '../../../rpc/schemas.js';
import { decimalOut, idOut, out, timeOut } from '../../../rpc/outputs.js';
import { GreenLot } from '../../inventory/green/schemas.js';
import { REQUIRED_MEASURES, STANDARDS } from './rules.js';

export const RESULTS = ['pass', 'fail', 'not_judged'] as const;

const bounded = (min: number, max: number) => z.number().min(min).max(max);
const count = z.number().int().min(0).max(100_000);
const label = z.string().trim().min(1).max(60);

export const RecordGrading = strict({
  /** The green lot graded; a failing grading quarantines it. */
  greenLotId: id('greenLotId').optional(),
  /** The sourcing sample graded. */
  sampleId: id('sampleId').optional(),
  standard: z.enum(STANDARDS).default('sca'),
  moisturePct: bounded(0, 100).optional(),
  waterActivity: bounded(0, 1).optional(),
  /** Mean screen size, in 64ths of an inch. */
  screenSizeAvg: bounded(0, 40).optional(),
  densityGPerL: bounded(0, 2000).optional(),
  /** Full defect equivalents of the primary kind (SCA category 1), in the standard's sample size. */
  defectsPrimary: count.optional(),
  /** Full defect equivalents of the secondary kind (SCA category 2). */
  defectsSecondary: count.optional(),
  /** Percent of the sample retained per screen, e.g. { "18": 40, "17": 35, "16": 25 }; at most 100 in all. */
  screenDistribution: z.record(label, bounded(0, 100)).optional(),
  /** Count per defect, e.g. { "full_black": 0, "broken": 3 }. */
  defectCounts: z.record(label, count).optional(),
  notes: text(4000).optional(),
}).superRefine((input, ctx) => {
  if (input.greenLotId === undefined && input.sampleId === undefined) {
    ctx.addIssue({ code: 'custom', path: ['greenLotId'], message: 'give greenLotId, sampleId or both' });
  }
  for (const field of REQUIRED_MEASURES[input.standard]) {
    if (input[field] === undefined) ctx.addIssue({ code: 'custom', path: [field], message: `is required for the ${input.standard} standard` });
  }
  const distribution = input.screenDistribution;
  if (distribution && Object.keys(distribution).length > 40) ctx.addIssue({ code: 'custom', path: ['screenDistribution'], message: 'must have at most 40 screens' });
  if (distribution && Object.values(distribution).reduce((a, b) => a + b, 0) > 100.0001) {
    ctx.addIssue({ code: 'custom', path: ['screenDistribution'], message: 'the percentages must add up to at most 100' });
  }
  if (input.defectCounts && Object.keys(input.defectCounts).length > 60) ctx.addIssue({ code: 'custom', path: ['defectCounts'], message: 'must have at most 60 defects' });
});
export type RecordGradingInput = z.output<typeof RecordGrading>;

export const ReleaseQuarantine = strict({
  greenLotId: id('greenLotId'),
  /** Why the coffee may be used again (a regrade, a buyer's concession …); recorded on the lot. */
  reason: z.string().trim().min(1).max(1000),
});

export const GradingFilter = strict({
  greenLotId: id('greenLotId').optional(),
  sampleId: id('sampleId').optional(),
  standard: z.enum(STANDARDS).optional(),
  result: z.enum(RESULTS).optional(),
  /** Gradings recorded at or after this instant. */
  gradedFrom: dateTime.optional(),
  /** Gradings recorded before this instant. */
  gradedTo: dateTime.optional(),
});
export type GradingFilterInput = z.output<typeof GradingFilter>;
export const ListGradings = strict({ filter: GradingFilter.default({}), page });

// ---------------------------------------------------------------------------------------------------
// Answers

export const GradingCheck = out({
  rule: z.string(),
  passed: z.boolean(),
  measured: z.string(),
  limit: z.string(),
  message: z.string(),
}).meta({ id: 'GradingCheck' });

export const Grading = out({
  id: idOut,
  greenLotId: idOut.nullable(),
  sampleId: idOut.nullable(),
  standard: z.enum(STANDARDS),
  moisturePct: decimalOut.nullable(),
  waterActivity: decimalOut.nullable(),
  screenSizeAvg: decimalOut.nullable(),
  densityGPerL: decimalOut.nullable(),
  defectsPrimary: z.number().int().nullable(),
  defectsSecondary: z.number().int().nullable(),
  screenDistribution: z.record(z.string(), z.number()).nullable(),
  defectCounts: z.record(z.string(), z.number().int()).nullable(),
  notes: z.string().nullable(),
  /** not_judged: a custom standard, whose rules the service does not know. */
  result: z.enum(RESULTS),
  /** The standard's class where it names one: specialty / below specialty (sca, coe), NY 2–8 or out of type, SNI 1–6 or out of grade. */
  grade: z.string().nullable(),
  /** Every rule applied, passed or not. */
  checks: z.array(GradingCheck),
  /** The messages of the failed checks: why the grading failed. */
  reasons: z.array(z.string()),
  /** true: this grading put the green lot in quarantine. */
  quarantinedLot: z.boolean(),
  credentialId: idOut,
  createdAt: timeOut,
}).meta({ id: 'Grading' });

export const RecordedGrading = out({
  grading: Grading,
  /** The graded green lot as it now stands (quarantine included); null for a grading of a sample only. */
  lot: GreenLot.nullable(),
}).meta({ id: 'RecordedGrading' });
