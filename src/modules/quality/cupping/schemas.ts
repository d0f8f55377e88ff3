import { z } from 'zod';
import { code, dateTime, id, name, page, strict, text } from '../../../rpc/schemas.js';
import { decimalOut, idOut, out, timeOut } from '../../../rpc/outputs.js';

export const CUPPING_MODES = ['open', 'blind', 'double_blind'] as const;
export type CuppingMode = (typeof CUPPING_MODES)[number];
export const SESSION_STATUSES = ['open', 'finalized'] as const;
/** What a coffee on the table is: a record of this organization, or a named outside coffee. */
export const SAMPLE_KINDS = ['green_lot', 'sample', 'roast_batch', 'roasted_lot', 'outside'] as const;
export type SampleKind = (typeof SAMPLE_KINDS)[number];

/**
 * The attributes of the SCA cupping form (SCA Cupping Protocols, 2004 form), in the form's order, with the
 * column each is stored in. Uniformity, clean cup and sweetness are judged per cup (CUP_ATTRIBUTES); the
 * others are scored 6.00–10.00 in quarter points. The total score is their sum, and the final score is the
 * total less the defects penalty.
 */
export const ATTRIBUTES = [
  ['fragranceAroma', 'fragrance_aroma'],
  ['flavor', 'flavor'],
  ['aftertaste', 'aftertaste'],
  ['acidity', 'acidity'],
  ['body', 'body'],
  ['balance', 'balance'],
  ['uniformity', 'uniformity'],
  ['cleanCup', 'clean_cup'],
  ['sweetness', 'sweetness'],
  ['overall', 'overall'],
] as const;
export type Attribute = (typeof ATTRIBUTES)[number][0];

const isQuarter = (v: number) => Number.isInteger(v * 4);

/** An attribute score: 6.00 to 10.00 in quarter points (6.25 yes, 6.3 no; 10.00 yes, 10.25 no). */
const attributeScore = z
  .number()
  .refine((v) => v >= 6 && v <= 10 && isQuarter(v), 'must be between 6.00 and 10.00 in quarter points (6.00, 6.25, 6.50, … 10.00)');

/** Every penalty cups × intensity can make: up to 5 cups, each a taint (2) or, all of them, a fault (4). */
const DEFECT_PENALTIES: ReadonlySet<number> = new Set([0, 2, 4, 6, 8, 10, 12, 16, 20]);

/** The SCA form's cups per coffee: the per-cup attributes give 2 points for each cup that passes. */
export const CUPS_PER_COFFEE = 5;
/** Attributes judged cup by cup: 2 points per passing cup, so 0–10 in steps of 2. */
export const CUP_ATTRIBUTES: ReadonlySet<Attribute> = new Set(['uniformity', 'cleanCup', 'sweetness']);

const perCupScore = z
  .number()
  .refine((v) => Number.isInteger(v) && v >= 0 && v <= 2 * CUPS_PER_COFFEE && v % 2 === 0, 'must be 2 points per passing cup of 5: 0, 2, 4, 6, 8 or 10');

export const Scores = strict(
  Object.fromEntries(ATTRIBUTES.map(([attribute]) => [attribute, CUP_ATTRIBUTES.has(attribute) ? perCupScore : attributeScore])) as Record<Attribute, typeof attributeScore>,
);
export type ScoresInput = z.output<typeof Scores>;

/** A coffee on the table: a green lot, sample, roast batch or roasted lot by id, or an outside coffee by name. */
export const SessionSampleInput = z.discriminatedUnion(
  'kind',
  [
    strict({ kind: z.literal('green_lot'), id: id() }),
    strict({ kind: z.literal('sample'), id: id() }),
    strict({ kind: z.literal('roast_batch'), id: id() }),
    strict({ kind: z.literal('roasted_lot'), id: id() }),
    /** A coffee that is not this organization's record (a competitor's, a guest's): named, not referenced. */
    strict({ kind: z.literal('outside'), name }),
  ],
  { error: (issue) => (issue.input === undefined ? undefined : `must be one of ${SAMPLE_KINDS.join(', ')}`) },
);
export type SessionSampleInputValue = z.output<typeof SessionSampleInput>;

export const MAX_SESSION_SAMPLES = 200;

export const CreateCuppingSession = strict({
  sessionNumber: code,
  name,
  mode: z.enum(CUPPING_MODES).default('open'),
  scheduledAt: dateTime.optional(),
  samples: z.array(SessionSampleInput).min(1).max(MAX_SESSION_SAMPLES),
}).superRefine((input, ctx) => {
  // The same record twice on one table would be cupped as two coffees: refused, naming the repeat.
  const seen = new Set<string>();
  input.samples.forEach((s, i) => {
    const key = s.kind === 'outside' ? `outside:${s.name.toLowerCase()}` : `${s.kind}:${s.id}`;
    if (seen.has(key)) ctx.addIssue({ code: 'custom', path: ['samples', i], message: 'this coffee is already on the table' });
    seen.add(key);
  });
});

const descriptor = z.string().trim().min(1).max(60);

export const SubmitCuppingScore = strict({
  sessionSampleId: id('sessionSampleId'),
  /** Who cupped; without it the cupper is the calling credential. A second form by the same cupper replaces the first. */
  cupperName: name.optional(),
  scores: Scores,
  /**
   * SCA defects, subtracted from the total: cups × intensity (taint 2, fault 4), so one of 0, 2, 4, 6, 8, 10,
   * 12, 16, 20. Give it as the penalty or as `defects` (extension), not both.
   */
  defectsPenalty: z
    .number()
    .refine((v) => DEFECT_PENALTIES.has(v), `must be cups (0–${CUPS_PER_COFFEE}) × intensity (taint 2, fault 4): one of ${[...DEFECT_PENALTIES].join(', ')}`)
    .optional(),
  /** Extension: the defective cups and their intensity; the penalty is cups × intensity. */
  defects: strict({
    cups: z.number().int().min(0).max(CUPS_PER_COFFEE),
    /** 2: a taint (an off-flavour noticeable but not overwhelming); 4: a fault (one that makes the cup unpleasant). */
    intensity: z.union([z.literal(2), z.literal(4)], { error: 'must be 2 (taint) or 4 (fault)' }),
  }).optional(),
  descriptors: z.array(descriptor).max(30).default([]),
  notes: text(4000).optional(),
})
  .superRefine((input, ctx) => {
    if (input.defects !== undefined && input.defectsPenalty !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['defects'], message: 'give defects or defectsPenalty, not both' });
    }
  })
  .transform(({ defects, defectsPenalty, ...rest }) => ({ ...rest, defectsPenalty: defects ? defects.cups * defects.intensity : (defectsPenalty ?? 0) }));

export const GetCuppingTable = strict({
  sessionId: id('sessionId'),
  /**
   * Extension: the cupper asking. In a double_blind session that is not finalized the table shows only this
   * cupper's own scores (without it: the calling credential's unnamed scores).
   */
  cupperName: name.optional(),
});

export const FinalizeCuppingSession = strict({ sessionId: id('sessionId') });

export const CuppingSessionFilter = strict({
  status: z.enum(SESSION_STATUSES).optional(),
  mode: z.enum(CUPPING_MODES).optional(),
  /** Sessions scheduled at or after this instant. */
  scheduledFrom: dateTime.optional(),
  /** Sessions scheduled before this instant. */
  scheduledTo: dateTime.optional(),
  /** Case-insensitive search in session number and name. */
  q: z.string().trim().min(1).max(100).optional(),
});
export type CuppingSessionFilterInput = z.output<typeof CuppingSessionFilter>;
export const ListCuppingSessions = strict({ filter: CuppingSessionFilter.default({}), page });

// ---------------------------------------------------------------------------------------------------
// Answers

/** A published aggregate, 2 decimals. */
const scoreOut = decimalOut;

export const CuppingSession = out({
  id: idOut,
  sessionNumber: z.string(),
  name: z.string(),
  mode: z.enum(CUPPING_MODES),
  scheduledAt: timeOut.nullable(),
  /** open: taking scores; finalized: closed, results published and identities revealed. */
  status: z.enum(SESSION_STATUSES),
  sampleCount: z.number().int(),
  scoreCount: z.number().int(),
  finalizedAt: timeOut.nullable(),
  finalizedBy: idOut.nullable(),
  createdAt: timeOut,
  updatedAt: timeOut,
}).meta({ id: 'CuppingSession' });

/** Which coffee is behind a blind code: hidden in blind and double_blind sessions until finalized. */
export const CoffeeIdentity = out({
  /** The order the coffee was given in at creation (1, 2, …). */
  position: z.number().int().positive(),
  kind: z.enum(SAMPLE_KINDS),
  /** The record (null for an outside coffee). */
  id: idOut.nullable(),
  /** Lot code, batch number or sample number as it read when the session was created. */
  code: z.string().nullable(),
  /** The lot's or sample's name; the outside coffee's name. */
  name: z.string().nullable(),
}).meta({ id: 'CuppingCoffeeIdentity' });

const attributeScores = out(Object.fromEntries(ATTRIBUTES.map(([a]) => [a, z.number()])) as Record<Attribute, z.ZodNumber>);
const attributeMeans = out(Object.fromEntries(ATTRIBUTES.map(([a]) => [a, scoreOut])) as Record<Attribute, typeof scoreOut>);

export const CuppingScore = out({
  id: idOut,
  sessionId: idOut,
  sessionSampleId: idOut,
  blindCode: z.string(),
  /** null: scored without a name, by the credential that submitted it. */
  cupperName: z.string().nullable(),
  scores: attributeScores,
  /** The sum of the ten attribute scores (60–100). */
  totalScore: z.number(),
  defectsPenalty: z.number(),
  /** totalScore − defectsPenalty: what the session aggregates. */
  finalScore: z.number(),
  descriptors: z.array(z.string()),
  notes: z.string().nullable(),
  /** 1 for the first form; counts up each time the cupper replaced it. */
  revision: z.number().int().positive(),
  credentialId: idOut,
  createdAt: timeOut,
  updatedAt: timeOut,
}).meta({ id: 'CuppingScore' });

export const SubmittedCuppingScore = CuppingScore.extend({
  /** true: this form replaced the cupper's earlier form for the coffee. */
  replaced: z.boolean(),
}).meta({ id: 'SubmittedCuppingScore' });

/** A coffee's published result: over the final scores of every cupper who scored it. */
export const CuppingResult = out({
  /** null when nobody scored the coffee. */
  meanScore: scoreOut.nullable(),
  /** Sample standard deviation of the final scores; null with fewer than two cuppers. */
  stddevScore: scoreOut.nullable(),
  minScore: scoreOut.nullable(),
  maxScore: scoreOut.nullable(),
  cupperCount: z.number().int(),
  /** Mean of each attribute; null when nobody scored the coffee. */
  attributeMeans: attributeMeans.nullable(),
  /** Up to five descriptors named by the most cuppers (case-folded), ties in alphabetical order. */
  topDescriptors: z.array(out({ descriptor: z.string(), count: z.number().int() })),
}).meta({ id: 'CuppingResult' });

export const CuppingTableCoffee = out({
  sessionSampleId: idOut,
  blindCode: z.string(),
  /** null while the session hides it (blind, double_blind, not finalized). */
  identity: CoffeeIdentity.nullable(),
  /** How many cuppers have scored it so far. */
  scoreCount: z.number().int(),
  /** The forms visible to the caller (in a double_blind session before finalize: the asking cupper's own). */
  scores: z.array(CuppingScore),
  /** null until the session is finalized. */
  result: CuppingResult.nullable(),
}).meta({ id: 'CuppingTableCoffee' });

export const CuppingTable = out({
  session: CuppingSession,
  /** true while coffee identities are left out of this answer. */
  identitiesHidden: z.boolean(),
  /** true while other cuppers' scores are left out of this answer (double_blind before finalize). */
  otherCuppersHidden: z.boolean(),
  /** In blind-code order. */
  coffees: z.array(CuppingTableCoffee),
}).meta({ id: 'CuppingTable' });

/** What createCuppingSession answers: the organizer's key, every coffee with its identity and blind code. */
export const CreatedCuppingSession = out({
  session: CuppingSession,
  /** In the order given. */
  samples: z.array(out({ sessionSampleId: idOut, blindCode: z.string(), identity: CoffeeIdentity })),
}).meta({ id: 'CreatedCuppingSession' });

export const FinalizedCuppingSession = out({
  session: CuppingSession,
  /** In blind-code order, identities revealed. */
  coffees: z.array(out({ sessionSampleId: idOut, blindCode: z.string(), identity: CoffeeIdentity, result: CuppingResult })),
}).meta({ id: 'FinalizedCuppingSession' });

/** A published cupping of a record, as other modules show it on the lot. */
export const PublishedCupping = out({
  sessionId: idOut,
  sessionNumber: z.string(),
  sessionSampleId: idOut,
  finalizedAt: timeOut,
  meanScore: scoreOut.nullable(),
  stddevScore: scoreOut.nullable(),
  cupperCount: z.number().int(),
}).meta({ id: 'PublishedCupping' });
