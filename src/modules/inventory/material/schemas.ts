import { z } from 'zod';
import { code, currency, decimal, id, money, name, page, strict, text } from '../../../rpc/schemas.js';
import { currencyOut, decimalOut, idOut, out, timeOut } from '../../../rpc/outputs.js';

export const MATERIAL_KINDS = ['bag', 'label', 'valve', 'box', 'tin', 'capsule', 'tape', 'insert', 'merch', 'other'] as const;
export const MATERIAL_REASONS = ['receive', 'adjust', 'shrinkage', 'write_off', 'recount', 'return'] as const;
export type MaterialReason = (typeof MATERIAL_REASONS)[number];

/**
 * A count in the material's own stock-keeping unit (pieces of a bag, label, valve; metres of tape),
 * exact to 3 decimals, given as a decimal string or a JSON number.
 */
const quantity = (options: { positive?: boolean } = {}) => decimal({ scale: 3, max: 1e9, ...options });

/** The change to the balance, signed: positive adds stock, negative removes it. */
const deltaQty = decimal({ scale: 3, min: -1e9, max: 1e9, allowNegative: true });

/**
 * Reasons that fix the direction of a movement. Every delta is signed (the change to the balance), so a
 * receipt is positive and a loss negative; a wrong sign is refused rather than silently flipped.
 */
const REQUIRED_SIGN: Partial<Record<MaterialReason, 'positive' | 'negative'>> = {
  receive: 'positive',
  shrinkage: 'negative',
  write_off: 'negative',
};

/** A unit cost means nothing without its currency. */
const costNeedsCurrency = (input: { unitCost?: string; currency?: string }, ctx: z.RefinementCtx) => {
  if (input.unitCost !== undefined && input.currency === undefined) {
    ctx.addIssue({ code: 'custom', path: ['currency'], message: 'required with unitCost' });
  }
};

export const CreateMaterial = strict({
  sku: code,
  name,
  kind: z.enum(MATERIAL_KINDS),
  unitCost: money.optional(),
  currency: currency.optional(),
  reorderPoint: quantity().optional(),
  reorderQty: quantity({ positive: true }).optional(),
  leadTimeDays: z.number().int().min(0).max(3650).optional(),
  supplierPartnerId: id('supplierPartnerId').optional(),
}).superRefine(costNeedsCurrency);

export const AdjustMaterialQuantity = strict({
  id: id(),
  deltaQty,
  reason: z.enum(MATERIAL_REASONS),
  locationId: id('locationId').optional(),
  comment: text(2000).optional(),
}).superRefine((input, ctx) => {
  if (Number(input.deltaQty) === 0) {
    ctx.addIssue({ code: 'custom', path: ['deltaQty'], message: 'must not be zero: a movement moves something' });
    return;
  }
  const sign = REQUIRED_SIGN[input.reason];
  const negative = input.deltaQty.startsWith('-');
  if (sign === 'positive' && negative) {
    ctx.addIssue({ code: 'custom', path: ['deltaQty'], message: `must be positive for reason ${input.reason}` });
  }
  if (sign === 'negative' && !negative) {
    ctx.addIssue({ code: 'custom', path: ['deltaQty'], message: `must be negative for reason ${input.reason} (the amount lost, as a negative change)` });
  }
});

export const MaterialFilter = strict({
  kind: z.enum(MATERIAL_KINDS).optional(),
  supplierPartnerId: id('supplierPartnerId').optional(),
  /** true: materials with a reorder point and on hand below it; false: all others. */
  belowReorderPoint: z.boolean().optional(),
  isActive: z.boolean().optional(),
  /** Case-insensitive search in name and sku. */
  q: z.string().trim().min(1).max(100).optional(),
});

export const ListMaterials = strict({ filter: MaterialFilter.default({}), page });
export const ById = strict({ id: id() });

export const BillOfMaterialsLine = strict({
  materialId: id('materialId'),
  /** Material consumed per yieldQty units of the product, in the material's unit. */
  quantity: quantity({ positive: true }),
  /** Share spoiled in production, added on top of quantity: 5 means 5 % more is consumed. */
  wastePct: decimal({ scale: 2, max: 100 }).optional(),
});

export const SetBillOfMaterials = strict({
  productId: id('productId'),
  name,
  /** How many product units the lines make. */
  yieldQty: z.number().int().min(1).max(1_000_000).default(1),
  lines: z.array(BillOfMaterialsLine).min(1).max(200),
}).superRefine((input, ctx) => {
  const seen = new Set<string>();
  input.lines.forEach((line, index) => {
    if (seen.has(line.materialId)) {
      ctx.addIssue({ code: 'custom', path: ['lines', index, 'materialId'], message: 'this material is already on an earlier line' });
    }
    seen.add(line.materialId);
  });
});

export const ByProduct = strict({ productId: id('productId') });

export const ExplodeMaterialRequirements = strict({
  productId: id('productId'),
  /** Product units to make. */
  quantity: z.number().int().min(1).max(1_000_000_000),
});

/** A count in the material's own unit (pieces, metres, ...), always with exactly three decimals (`"250.000"`). */
const quantityOut = z.string().regex(/^-?\d+\.\d{3}$/).describe("a count in the material's unit, a decimal string with three decimals");
const materialKind = z.enum(MATERIAL_KINDS);

export const Material = out({
  id: idOut,
  sku: z.string(),
  name: z.string(),
  kind: materialKind,
  /** Four decimals; `currency` is set whenever it is. */
  unitCost: decimalOut.nullable(),
  currency: currencyOut.nullable(),
  reorderPoint: quantityOut.nullable(),
  reorderQty: quantityOut.nullable(),
  leadTimeDays: z.number().int().nullable(),
  supplierPartnerId: idOut.nullable(),
  /** The balance: the sum of every ledger row; negative only after a recount said so. */
  onHand: quantityOut,
  /** A reorder point is set and onHand is below it. */
  belowReorderPoint: z.boolean(),
  isActive: z.boolean(),
  createdAt: timeOut,
  updatedAt: timeOut,
}).meta({ id: 'Material' });

/** One row of a material's append-only ledger. */
export const MaterialTransaction = out({
  id: idOut,
  materialId: idOut,
  reason: z.enum(MATERIAL_REASONS),
  /** The signed change to the balance. */
  deltaQty: quantityOut,
  balanceAfter: quantityOut,
  locationId: idOut.nullable(),
  /** The credential that made the change. */
  credentialId: z.string(),
  comment: z.string().nullable(),
  createdAt: timeOut,
}).meta({ id: 'MaterialTransaction' });

export const MaterialMovement = out({ material: Material, transaction: MaterialTransaction }).meta({ id: 'MaterialMovement' });

export const BillOfMaterialsLineOut = out({
  lineNo: z.number().int().min(1),
  materialId: idOut,
  materialSku: z.string(),
  materialName: z.string(),
  materialKind,
  /** Consumed per yieldQty product units, in the material's unit. */
  quantity: quantityOut,
  /** Two decimals, 0–100. */
  wastePct: decimalOut,
}).meta({ id: 'BillOfMaterialsLine' });

/** One published version; never edited, only retired (retiredAt) when the next version is published. */
export const BillOfMaterials = out({
  id: idOut,
  productId: idOut,
  version: z.number().int().min(1),
  name: z.string(),
  yieldQty: z.number().int().min(1),
  /** The credential that published it. */
  publishedBy: z.string(),
  publishedAt: timeOut,
  retiredAt: timeOut.nullable(),
  lines: z.array(BillOfMaterialsLineOut),
}).meta({ id: 'BillOfMaterials' });

/** The active version, with every retired version newest first. */
export const BillOfMaterialsWithHistory = BillOfMaterials.extend({ previousVersions: z.array(BillOfMaterials) }).meta({
  id: 'BillOfMaterialsWithHistory',
});

export const MaterialRequirements = out({
  productId: idOut,
  quantity: z.number().int(),
  billOfMaterials: out({ id: idOut, version: z.number().int().min(1), yieldQty: z.number().int().min(1) }),
  /** One entry per line of the active bill of materials, in line order. */
  materials: z.array(
    out({
      materialId: idOut,
      sku: z.string(),
      name: z.string(),
      kind: materialKind,
      quantityPerYield: quantityOut,
      wastePct: decimalOut,
      /** Rounded up to three decimals, so a shortage is never understated. */
      required: quantityOut,
      onHand: quantityOut,
      shortBy: quantityOut,
      remainingAfter: quantityOut,
      reorderPoint: quantityOut.nullable(),
      fallsBelowReorderPoint: z.boolean(),
      leadTimeDays: z.number().int().nullable(),
    }),
  ),
  summary: out({
    canProduce: z.boolean(),
    maxProducibleQuantity: z.number().int().nonnegative(),
    shortMaterialCount: z.number().int().nonnegative(),
    /** The longest lead time among the short materials; null when none is short or none has one. */
    longestLeadTimeDays: z.number().int().nullable(),
  }),
}).meta({ id: 'MaterialRequirements' });
