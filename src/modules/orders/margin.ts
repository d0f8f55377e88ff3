import type { Queryable } from '../../db/client.js';
import { decimalString, divRound } from '../../lib/decimal.js';
import { grams, scaled } from '../../lib/grams.js';
import { findProduct } from '../catalog/product/service.js';
import { materialsCostPerUnit } from '../inventory/material/service.js';
import * as roastedStock from '../inventory/roast/service.js';
import type { Order } from './repository.js';
import type { MarginMissingReason } from './schemas.js';

/** How an order line's margin is figured, as its answers state it. */
export const MARGIN_RULE =
  'per unit of the product: coffee cost = the roasted coffee’s cost per kg (the lots claimed for the line, weighted by kg, else ' +
  'the lot it names) × the product’s net weight; materials = its active bill of materials at unit costs; margin = list price − ' +
  '(coffee + materials), marginPct = margin / list price × 100; 4 decimals (pct 2), half-up';

export interface LineMargin {
  currency: string | null;
  listPrice: string | null;
  coffeeCost: string | null;
  materialsCost: string | null;
  unitCost: string | null;
  margin: string | null;
  marginPct: string | null;
  missing: MarginMissingReason | null;
  rule: string;
}

const units = (value: string) => scaled(value, 4);
const money = (value: bigint) => decimalString(value, 4);

/**
 * Each line's margin against its product's list price, where both are known: every figure or none, with the
 * reason it is missing. Nothing is converted: a price, coffee and materials in different currencies is `mixed_currencies`.
 */
export async function withMargins<O extends Order>(q: Queryable, orgId: string, order: O) {
  const productIds = [...new Set(order.lines.flatMap((l) => (l.productId ? [l.productId] : [])))];
  const products = new Map(await Promise.all(productIds.map(async (id) => [id, await findProduct(q, orgId, id)] as const)));
  const materials = await materialsCostPerUnit(q, orgId, productIds);
  const lotsOf = (line: O['lines'][number]) => {
    const claimed = line.allocations.map((a) => ({ id: a.roastedLotId, kg: a.quantityKg }));
    return claimed.length > 0 ? claimed : line.roastedLotId ? [{ id: line.roastedLotId, kg: line.quantityKg }] : [];
  };
  // Only a line with a product has a margin, so only its lots are costed.
  const lotIds = [...new Set(order.lines.flatMap((l) => (l.productId ? lotsOf(l).map((x) => x.id) : [])))];
  const lots = await Promise.all(lotIds.map((id) => roastedStock.findRoastedLot(q, orgId, id)));
  const costs = await roastedStock.roastedLotCosts(q, orgId, lots.flatMap((l) => (l ? [{ id: l.id, openingKg: l.openingKg }] : [])));

  const marginOf = (line: O['lines'][number]): LineMargin => {
    const product = line.productId ? products.get(line.productId) : undefined;
    const listPrice = product?.listPrice ?? null;
    const missing = (reason: MarginMissingReason): LineMargin => ({
      currency: product?.currency ?? null, listPrice, coffeeCost: null, materialsCost: null, unitCost: null, margin: null, marginPct: null, missing: reason, rule: MARGIN_RULE,
    });
    if (!product) return missing('no_product');
    if (listPrice === null || product.currency === null) return missing('no_list_price');
    if (product.netWeightKg === null) return missing('no_net_weight');
    const lineLots = lotsOf(line);
    if (lineLots.length === 0) return missing('no_roasted_lot');
    const lotCosts = lineLots.map((x) => ({ cost: costs.get(x.id), g: grams(x.kg) }));
    if (lotCosts.some((x) => !x.cost || x.cost.perKg === null)) return missing('coffee_not_costed');
    const material = materials.get(product.id)!;
    if (material.missing !== null) return missing(material.missing);
    if (new Set([product.currency, material.currency, ...lotCosts.map((x) => x.cost!.currency)]).size > 1) return missing('mixed_currencies');
    // Weighted cost per kg in 4-decimal units, then × net weight (grams / 1000).
    const totalGrams = lotCosts.reduce((a, x) => a + x.g, 0n);
    const perKg = divRound(lotCosts.reduce((a, x) => a + units(x.cost!.perKg!) * x.g, 0n), totalGrams);
    const coffee = divRound(perKg * grams(product.netWeightKg), 1000n);
    const unitCost = coffee + units(material.perUnit);
    const margin = units(listPrice) - unitCost;
    return {
      currency: product.currency,
      listPrice: money(units(listPrice)),
      coffeeCost: money(coffee),
      materialsCost: money(units(material.perUnit)),
      unitCost: money(unitCost),
      margin: money(margin),
      marginPct: units(listPrice) === 0n ? null : decimalString(divRound(margin * 10_000n, units(listPrice)), 2),
      missing: null,
      rule: MARGIN_RULE,
    };
  };
  return { ...order, lines: order.lines.map((line) => ({ ...line, margin: marginOf(line) })) };
}
