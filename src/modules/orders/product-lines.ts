import type { Queryable } from '../../db/client.js';
import { grams, kgString } from '../../lib/grams.js';
import type { FieldError } from '../../rpc/errors.js';
import { findProducts, findProductsBySku, type Product } from '../catalog/product/service.js';
import { findBlendRecipe } from '../inventory/blend/service.js';
import { roastedLotGreenLots } from '../inventory/roast/service.js';
import type { Shortfall } from './allocation.js';
import type { LineToInsert, OpenLine } from './repository.js';
import type { OrderLineInput } from './schemas.js';

/**
 * Order lines that name a product: what they are filled from and how much. The rule (README, "Orders by
 * product"): a line naming only a product (by id or SKU) keeps what the product is made of when the order
 * is taken — lots roasted with its profile fill it, or its blend's components fill it, each its share by
 * the recipe's ratio from roasts of that component's green lot. Units of the product are converted to
 * kilograms through its net weight, and the line's price is then per unit.
 */

export interface ResolvedLines {
  lines: LineToInsert[];
  /** Products named that do not exist in the organization (404). */
  missing: FieldError[];
  /** Products that cannot fill the line as asked (400): made of nothing, or units without a net weight. */
  invalid: FieldError[];
}

/** The largest line: numeric(14, 3) kilograms. */
const MAX_LINE_GRAMS = 10n ** 14n;

export async function resolveLines(q: Queryable, orgId: string, input: OrderLineInput[]): Promise<ResolvedLines> {
  const ids = [...new Set(input.flatMap((l) => (l.productId ? [l.productId] : [])))];
  const skus = [...new Set(input.flatMap((l) => (l.productSku ? [l.productSku] : [])))];
  const [byId, bySku] = await Promise.all([findProducts(q, orgId, ids), findProductsBySku(q, orgId, skus)]);
  const missing: FieldError[] = [];
  const invalid: FieldError[] = [];
  const lines: LineToInsert[] = [];
  input.forEach((line, i) => {
    const field = line.productSku !== undefined ? 'productSku' : 'productId';
    const named = line.productSku ?? line.productId;
    const product: Product | undefined = line.productSku !== undefined ? bySku.get(line.productSku) : line.productId ? byId.get(line.productId) : undefined;
    if (named !== undefined && !product) {
      missing.push({ path: `lines[${i}].${field}`, message: line.productSku !== undefined ? `no product has SKU ${named}` : 'not found' });
      return;
    }
    const onlyProduct = line.roastedLotId === undefined && line.greenLotId === undefined;
    if (onlyProduct && product && product.profileId === null && product.blendId === null) {
      invalid.push({ path: `lines[${i}].${field}`, message: `product ${product.sku} names neither a roast profile nor a blend to fill it from (catalog.product.updateProduct)` });
      return;
    }
    let quantityKg = line.quantityKg;
    if (line.quantityUnits !== undefined) {
      // The schema lets quantityUnits through only with a product named, and a missing one returned above.
      if (!product!.netWeightKg) {
        invalid.push({ path: `lines[${i}].quantityUnits`, message: `product ${product!.sku} has no netWeightKg to convert units to kilograms` });
        return;
      }
      const g = grams(product!.netWeightKg) * BigInt(line.quantityUnits);
      if (g > MAX_LINE_GRAMS) {
        invalid.push({ path: `lines[${i}].quantityUnits`, message: 'too many units for one line' });
        return;
      }
      quantityKg = kgString(g);
    }
    lines.push({
      productId: product?.id ?? null,
      roastedLotId: line.roastedLotId ?? null,
      greenLotId: line.greenLotId ?? null,
      profileId: onlyProduct ? (product!.blendId ? null : product!.profileId) : (line.profileId ?? null),
      blendId: onlyProduct ? product!.blendId : null,
      roastLevel: onlyProduct ? product!.roastLevel : null,
      quantityKg: quantityKg!,
      quantityUnits: line.quantityUnits ?? null,
      unitPrice: line.unitPrice,
    });
  });
  return { lines, missing, invalid };
}

/**
 * The open lines as allocation fills them: a blend line becomes one part per component (same line id and
 * number), the component's share of the line — rounded cumulatively, so the shares add up to the line — less
 * what is claimed from roasts of its green lot; parts with nothing left are dropped. Other lines pass as they are.
 */
export async function fillableParts(q: Queryable, orgId: string, lines: OpenLine[], claimsOf: (lineIds: string[]) => Promise<{ orderLineId: string; roastedLotId: string; quantity: bigint }[]>): Promise<OpenLine[]> {
  const blendLines = lines.filter((l) => l.blendId !== null);
  if (blendLines.length === 0) return lines;
  const recipes = new Map(
    await Promise.all([...new Set(blendLines.map((l) => l.blendId!))].map(async (id) => [id, (await findBlendRecipe(q, orgId, id))!] as const)),
  );
  const claims = await claimsOf(blendLines.map((l) => l.id));
  const greenOf = await roastedLotGreenLots(q, orgId, [...new Set(claims.map((c) => c.roastedLotId))]);
  return lines.flatMap((line) => {
    if (line.blendId === null) return [line];
    let cumulative = 0n;
    let before = 0n;
    return recipes.get(line.blendId)!.components.flatMap((component) => {
      cumulative += BigInt(Math.round(Number(component.ratioPct) * 100));
      const upTo = (line.quantity * cumulative + 5000n) / 10000n;
      const share = upTo - before;
      before = upTo;
      const claimed = claims
        .filter((c) => c.orderLineId === line.id && greenOf.get(c.roastedLotId) === component.greenLotId)
        .reduce((sum, c) => sum + c.quantity, 0n);
      const remaining = share - claimed;
      return remaining > 0n ? [{ ...line, greenLotId: component.greenLotId, profileId: null, blendId: null, quantity: share, remaining }] : [];
    });
  });
}

/** A blend line's parts' shortfalls as one per line, against the whole line (other lines' pass as they are). */
export function shortfallPerLine(shortfalls: Shortfall[], lines: OpenLine[]): Shortfall[] {
  const merged = new Map<string, Shortfall>();
  for (const s of shortfalls) {
    const seen = merged.get(s.orderLineId);
    const line = lines.find((l) => l.id === s.orderLineId)!;
    const short = grams(s.shortfallKg) + (seen ? grams(seen.shortfallKg) : 0n);
    const expiredLots = [...(seen?.expiredLots ?? []), ...s.expiredLots];
    merged.set(s.orderLineId, {
      orderLineId: s.orderLineId,
      lineNumber: s.lineNumber,
      quantityKg: kgString(line.quantity),
      allocatedKg: kgString(line.quantity - short),
      shortfallKg: kgString(short),
      reason: expiredLots.length > 0 ? 'expired' : 'insufficient_stock',
      expiredLots,
    });
  }
  return [...merged.values()];
}
