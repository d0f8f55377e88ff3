import { z } from 'zod';
import { code, currency, id, kg, money, name, page, strict } from '../../../rpc/schemas.js';
import { currencyOut, decimalOut, idOut, kgOut, out, timeOut } from '../../../rpc/outputs.js';

export const PRODUCT_FORMATS = [
  'whole_bean', 'ground_espresso', 'ground_filter', 'ground_french_press', 'capsule', 'instant', 'drip_bag', 'bulk',
] as const;

export const productFormat = z.enum(PRODUCT_FORMATS);
export const ROAST_LEVELS = ['light', 'medium', 'dark'] as const;
export const roastLevel = z.enum(ROAST_LEVELS);

/** A product is made with a roast profile or a blend, not both. */
const madeOfOne = (input: { profileId?: string | null; blendId?: string | null }, ctx: z.RefinementCtx) => {
  if (input.profileId != null && input.blendId != null) {
    ctx.addIssue({ code: 'custom', path: ['blendId'], message: 'a product is made with a roast profile or a blend, not both' });
  }
};

/** GTIN-8 to GTIN-14 (EAN, UPC, ITF-14): digits only. The check digit is the issuer's concern, not validated here. */
export const barcode = z.string().regex(/^\d{8,14}$/, 'a barcode of 8 to 14 digits');

const netWeightKg = kg({ positive: true });

/** A list price means nothing without its currency, so a price always travels with one. */
const priceNeedsCurrency = (input: { listPrice?: string | null; currency?: string | null }, ctx: z.RefinementCtx) => {
  if (input.listPrice != null && input.currency == null) {
    ctx.addIssue({ code: 'custom', path: ['currency'], message: 'required with listPrice' });
  }
};

export const CreateProduct = strict({
  sku: code,
  name,
  format: productFormat,
  netWeightKg: netWeightKg.optional(),
  listPrice: money.optional(),
  currency: currency.optional(),
  barcode: barcode.optional(),
  /** Extension: made with this roast profile (lots roasted with it fill the product's order lines). */
  profileId: id('profileId').optional(),
  /** Extension: made of this blend (filled component by component). */
  blendId: id('blendId').optional(),
  /** Extension: the level it is roasted to; a blend's own level when absent. */
  roastLevel: roastLevel.optional(),
}).superRefine((input, ctx) => {
  priceNeedsCurrency(input, ctx);
  madeOfOne(input, ctx);
});

/** null clears an optional field; the price-needs-currency rule is checked against the stored row too. */
export const UpdateProduct = strict({
  id: id(),
  name: name.optional(),
  format: productFormat.optional(),
  netWeightKg: netWeightKg.nullable().optional(),
  listPrice: money.nullable().optional(),
  currency: currency.nullable().optional(),
  barcode: barcode.nullable().optional(),
  isActive: z.boolean().optional(),
  profileId: id('profileId').nullable().optional(),
  blendId: id('blendId').nullable().optional(),
  roastLevel: roastLevel.nullable().optional(),
}).superRefine(madeOfOne);

export const ProductFilter = strict({
  format: productFormat.optional(),
  isActive: z.boolean().optional(),
  /** Case-insensitive search in name, sku and barcode. */
  q: z.string().trim().min(1).max(100).optional(),
});

export const ListProducts = strict({ filter: ProductFilter.default({}), page });
export const ById = strict({ id: id() });

export const Product = out({
  id: idOut,
  sku: z.string(),
  name: z.string(),
  format: productFormat,
  netWeightKg: kgOut.nullable(),
  /** A decimal string with four decimals (numeric(14,4)); `currency` is set whenever it is. */
  listPrice: decimalOut.nullable(),
  currency: currencyOut.nullable(),
  barcode: z.string().nullable(),
  /** false: retired from sale. */
  isActive: z.boolean(),
  /** Extension: what it is made of, a roast profile or a blend (at most one), and the level it is roasted to. */
  profileId: idOut.nullable(),
  blendId: idOut.nullable(),
  roastLevel: roastLevel.nullable(),
  createdAt: timeOut,
  updatedAt: timeOut,
}).meta({ id: 'Product' });
