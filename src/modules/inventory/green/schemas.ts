import { z } from 'zod';
import { code, currency, id, kg, money, name, page, strict, text } from '../../../rpc/schemas.js';
import { grams } from '../../../lib/grams.js';
import { currencyOut, decimalOut, idOut, kgOut, out, timeOut } from '../../../rpc/outputs.js';
import { PublishedCupping } from '../../quality/cupping/schemas.js';

export const GREEN_STATES = ['green', 'parchment', 'dry_cherry', 'wet_parchment', 'raw_green', 'decaf_green'] as const;
export type GreenState = (typeof GREEN_STATES)[number];
export const ADJUSTMENT_REASONS = ['adjust', 'shrinkage', 'write_off', 'recount', 'sample_draw', 'return'] as const;
export type AdjustmentReason = (typeof ADJUSTMENT_REASONS)[number];
export const COST_BUCKETS = ['price', 'freight', 'duty', 'carry', 'other'] as const;
export type CostBucket = (typeof COST_BUCKETS)[number];
export const COST_BASES = ['total', 'per_kg'] as const;
/** Every kind of green ledger row: the adjustment reasons plus the movements operations write. */
export const GREEN_LEDGER_KINDS = [
  'receive', ...ADJUSTMENT_REASONS,
  'transfer_out', 'transfer_in', 'split_out', 'split_in', 'merge_out', 'merge_in',
  'reserve', 'release',
  'roast_consume',
] as const;
export type GreenLedgerKind = (typeof GREEN_LEDGER_KINDS)[number];
/** The things lineage connects (the specification's trace kinds). */
export const TRACE_KINDS = ['producer', 'green_lot', 'roast_batch', 'roasted_lot', 'blend_lot', 'product_batch', 'order_line'] as const;
export type TraceKind = (typeof TRACE_KINDS)[number];

/**
 * Reasons whose direction is fixed: coffee lost to shrinkage, written off or drawn as a sample leaves
 * the lot. A wrong sign is refused rather than silently flipped. adjust, recount and return go either way.
 */
export const NEGATIVE_ONLY_REASONS: ReadonlySet<AdjustmentReason> = new Set(['shrinkage', 'write_off', 'sample_draw']);

const label = z.string().trim().min(1).max(100);
const comment = text(1000).optional();
const positiveKg = kg({ positive: true });
/** A location, or null for stock that has not been placed anywhere yet (the unassigned balance). */
const locationRef = (what: string) => id(what).nullable();

export const ImportGreenLot = strict({
  name,
  lotCode: code,
  weightKg: positiveKg,
  supplierRef: text(200).optional(),
  producerId: id('producerId').optional(),
  partnerId: id('partnerId').optional(),
  state: z.enum(GREEN_STATES).default('green'),
  varieties: z.array(label).max(50).optional(),
  processMethod: text(100).optional(),
  harvestYear: z.number().int().min(1900).max(2200).optional(),
  certifications: z.array(label).max(50).optional(),
  bagCount: z.number().int().min(0).max(1_000_000).optional(),
  bagWeightKg: positiveKg.optional(),
  unitCost: money.optional(),
  currency: currency.optional(),
  minWeightKg: kg().optional(),
  /** Absent: the opening weight sits on the unassigned balance until transferred somewhere. */
  locationId: id('locationId').optional(),
  notes: text(4000).optional(),
}).superRefine((input, ctx) => {
  if (input.unitCost !== undefined && input.currency === undefined) {
    ctx.addIssue({ code: 'custom', path: ['currency'], message: 'required with unitCost' });
  }
});

export const AdjustGreenLotQuantity = strict({
  id: id(),
  deltaKg: kg({ allowNegative: true }).refine((s) => grams(s) !== 0n, 'must not be zero'),
  reason: z.enum(ADJUSTMENT_REASONS),
  /**
   * Omitted: the lot's only holding (refused with 400 when it is held at several locations). null: the
   * unassigned balance.
   */
  locationId: locationRef('locationId').optional(),
  comment,
}).superRefine((input, ctx) => {
  if (NEGATIVE_ONLY_REASONS.has(input.reason) && grams(input.deltaKg) > 0n) {
    ctx.addIssue({ code: 'custom', path: ['deltaKg'], message: `a ${input.reason} removes coffee: give a negative deltaKg` });
  }
});

export const TransferGreenLot = strict({
  id: id(),
  fromLocationId: locationRef('fromLocationId'),
  toLocationId: locationRef('toLocationId'),
  weightKg: positiveKg,
  comment,
}).superRefine((input, ctx) => {
  if (input.fromLocationId === input.toLocationId) {
    ctx.addIssue({ code: 'custom', path: ['toLocationId'], message: 'must differ from fromLocationId' });
  }
});

export const ReserveGreenLot = strict({ id: id(), weightKg: positiveKg, comment });

export const SplitGreenLot = strict({
  id: id(),
  weightKg: positiveKg,
  newLotCode: code,
  /** Defaults to the parent's name with the new lot code appended. */
  newName: name.optional(),
  comment,
});

export const MergeGreenLots = strict({
  targetId: id('targetId'),
  sourceIds: z.array(id('sourceIds')).min(1).max(50),
  comment,
}).superRefine((input, ctx) => {
  const seen = new Set<string>();
  input.sourceIds.forEach((sourceId, i) => {
    if (sourceId === input.targetId) ctx.addIssue({ code: 'custom', path: ['sourceIds', i], message: 'a lot cannot be merged into itself' });
    else if (seen.has(sourceId)) ctx.addIssue({ code: 'custom', path: ['sourceIds', i], message: 'named twice' });
    seen.add(sourceId);
  });
});

export const CostComponentInput = strict({
  bucket: z.enum(COST_BUCKETS),
  amount: money,
  currency,
  /** total: the amount for the whole lot; per_kg: the amount per kilogram of the lot's opening weight. */
  basis: z.enum(COST_BASES).default('total'),
  description: text(500).optional(),
});

export const SetGreenLotCostComponents = strict({
  greenLotId: id('greenLotId'),
  /** The complete new set; an empty list clears the landed cost. */
  components: z.array(CostComponentInput).max(100),
}).superRefine((input, ctx) => {
  // No FX: a landed cost is summed in one currency, so mixed currencies are refused, not converted.
  const first = input.components[0]?.currency;
  input.components.forEach((c, i) => {
    if (c.currency !== first) ctx.addIssue({ code: 'custom', path: ['components', i, 'currency'], message: `all components must be in ${first}` });
  });
});

export const GreenLotFilter = strict({
  state: z.enum(GREEN_STATES).optional(),
  /** Lots holding stock (a positive balance) at this location. */
  locationId: id('locationId').optional(),
  producerId: id('producerId').optional(),
  partnerId: id('partnerId').optional(),
  quarantined: z.boolean().optional(),
  /** true: lots with coffee on hand (> 0); false: empty or negative lots. */
  hasStock: z.boolean().optional(),
  /** true: lots whose on-hand weight is below their minWeightKg. */
  belowMinimum: z.boolean().optional(),
  /** Case-insensitive search in lot code and name. */
  q: z.string().trim().min(1).max(100).optional(),
});

export const ListGreenLots = strict({ filter: GreenLotFilter.default({}), page });
export const ListGreenLotTransactions = strict({ greenLotId: id('greenLotId'), page });
export const ByGreenLotId = strict({ greenLotId: id('greenLotId') });
export const ById = strict({ id: id() });

export type ImportGreenLotInput = z.output<typeof ImportGreenLot>;
export type GreenLotFilterInput = z.output<typeof GreenLotFilter>;
export type CostComponentInputValue = z.output<typeof CostComponentInput>;

// ---------------------------------------------------------------------------------------------------
// Answers

/** Four decimals, as landed-cost amounts are kept. */
const amountOut = decimalOut;

const costBuckets = out({ price: amountOut, freight: amountOut, duty: amountOut, carry: amountOut, other: amountOut });

/** The rollup of a lot's current cost components: each bucket, their total and the cost per kilogram. */
export const GreenLotLandedCostRollup = out({
  /** Counts up with every setGreenLotCostComponents; 0: never set. */
  version: z.number().int().min(0),
  /** null while no component is set. */
  currency: currencyOut.nullable(),
  buckets: costBuckets,
  total: amountOut,
  /** total / weightBasisKg, 4 decimals half-up; null without components or while the basis is zero. */
  perKg: amountOut.nullable(),
  /** The lot's opening weight (receive and split_in rows): what the cost is spread over. */
  weightBasisKg: kgOut,
  updatedAt: timeOut.nullable(),
}).meta({ id: 'GreenLotLandedCostRollup' });

export const GreenLotCostComponent = out({
  id: idOut,
  bucket: z.enum(COST_BUCKETS),
  amount: amountOut,
  currency: currencyOut,
  basis: z.enum(COST_BASES),
  description: z.string().nullable(),
  createdAt: timeOut,
}).meta({ id: 'GreenLotCostComponent' });

/** A lot's latest quarantine: why, who (a credential id) and when, and who released it, when and why. */
export const GreenLotQuarantine = out({
  reason: z.string(),
  quarantinedAt: timeOut,
  quarantinedBy: idOut,
  /** null while the lot is still in this quarantine. */
  releasedAt: timeOut.nullable(),
  releasedBy: idOut.nullable(),
  releaseReason: z.string().nullable(),
}).meta({ id: 'GreenLotQuarantine' });

export const GreenLot = out({
  id: idOut,
  lotCode: z.string(),
  name: z.string(),
  supplierRef: z.string().nullable(),
  producerId: idOut.nullable(),
  partnerId: idOut.nullable(),
  state: z.enum(GREEN_STATES),
  varieties: z.array(z.string()),
  processMethod: z.string().nullable(),
  harvestYear: z.number().int().nullable(),
  certifications: z.array(z.string()),
  bagCount: z.number().int().nullable(),
  bagWeightKg: kgOut.nullable(),
  unitCost: decimalOut.nullable(),
  currency: currencyOut.nullable(),
  minWeightKg: kgOut.nullable(),
  notes: z.string().nullable(),
  quarantined: z.boolean(),
  /** Why the lot is in quarantine now; null when it is not. */
  quarantineReason: z.string().nullable(),
  /** The latest quarantine (kept after its release); null when the lot was never quarantined by a grading. */
  quarantine: GreenLotQuarantine.nullable(),
  /** May be negative after a recount. */
  onHandKg: kgOut,
  reservedKg: kgOut,
  /** On hand minus reserved; a quarantined lot has the weight but none of it may be promised. */
  availableKg: kgOut,
  /** What the lot opened with (receive and split_in rows): the weight its landed cost is spread over. */
  openingKg: kgOut,
  /** null until cost components were set. */
  landedCost: GreenLotLandedCostRollup.nullable(),
  createdAt: timeOut,
  updatedAt: timeOut,
}).meta({ id: 'GreenLot' });

/** Where a lot is held: one location's balance (locationId null: not placed anywhere yet). */
export const GreenLotBalance = out({
  locationId: idOut.nullable(),
  locationCode: z.string().nullable(),
  locationName: z.string().nullable(),
  /** Non-zero; negative only after a recount. */
  onHandKg: kgOut,
  updatedAt: timeOut,
}).meta({ id: 'GreenLotBalance' });

/** A lot as a change leaves it: with every location holding it. */
export const GreenLotWithBalances = GreenLot.extend({ balances: z.array(GreenLotBalance) }).meta({ id: 'GreenLotWithBalances' });

/** A lot with where it is held and the components of its current landed cost. */
export const GreenLotDetail = GreenLotWithBalances.extend({
  costComponents: z.array(GreenLotCostComponent),
  /** The latest finalized cupping of the lot (its published mean and spread); null when never cupped in a finalized session. */
  cupping: PublishedCupping.nullable(),
}).meta({ id: 'GreenLotDetail' });

/** One row of a lot's ledger: a stock change at a location, or (reserve, release) a reservation change. */
export const GreenLotTransaction = out({
  id: idOut,
  greenLotId: idOut,
  /** 1, 2, … per lot, in the order the rows were written. */
  seq: z.number().int().positive(),
  kind: z.enum(GREEN_LEDGER_KINDS),
  /** null: the unassigned balance, and always for reservation rows. */
  locationId: idOut.nullable(),
  deltaKg: kgOut,
  reservedDeltaKg: kgOut,
  /** Shared by the rows of one movement (a transfer's two legs, a split, a merge). */
  groupId: idOut.nullable(),
  credentialId: idOut,
  comment: z.string().nullable(),
  createdAt: timeOut,
}).meta({ id: 'GreenLotTransaction' });

/** That coffee went from one traced thing to another, with the weight that followed the edge when known. */
export const LineageEdge = out({
  id: idOut,
  fromKind: z.enum(TRACE_KINDS),
  fromId: idOut,
  toKind: z.enum(TRACE_KINDS),
  toId: idOut,
  weightKg: kgOut.nullable(),
  /** The movement the edge belongs to (a split's or merge's group, a fulfilment). */
  groupId: idOut.nullable(),
  createdAt: timeOut,
}).meta({ id: 'LineageEdge' });

/** The landed-cost answer: the rollup (version 0 with zero buckets while none was ever set) and its components. */
export const GreenLotLandedCost = GreenLotLandedCostRollup.extend({
  greenLotId: idOut,
  components: z.array(GreenLotCostComponent),
}).meta({ id: 'GreenLotLandedCost' });

/** What a stock or reservation change answers: the lot as it now stands and the ledger rows written. */
export const GreenLotChange = out({ lot: GreenLotWithBalances, transactions: z.array(GreenLotTransaction) }).meta({ id: 'GreenLotChange' });

export const GreenLotTransfer = out({ lot: GreenLotWithBalances, groupId: idOut, transactions: z.array(GreenLotTransaction) }).meta({
  id: 'GreenLotTransfer',
});

export const GreenLotSplit = out({
  parent: GreenLotWithBalances,
  child: GreenLotWithBalances,
  groupId: idOut,
  transactions: z.array(GreenLotTransaction),
  lineage: z.array(LineageEdge),
}).meta({ id: 'GreenLotSplit' });

export const GreenLotMerge = out({
  target: GreenLotWithBalances,
  /** In the order named, each drained to zero. */
  sources: z.array(GreenLotWithBalances),
  groupId: idOut,
  transactions: z.array(GreenLotTransaction),
  lineage: z.array(LineageEdge),
}).meta({ id: 'GreenLotMerge' });
