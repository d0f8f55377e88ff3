import type { z } from 'zod';
import type { Queryable } from '../../../db/client.js';
import { alreadyUsed, notFound, throwNotFound, type ProblemError } from '../../../rpc/errors.js';
import { missingProfileIds } from '../../production/profile/service.js';
import { findBlendRecipe } from '../../inventory/blend/service.js';
import * as repo from './repository.js';
import type { CreateProduct } from './schemas.js';

/** What other modules may ask of products: one by id (with forUpdate, locked until commit). */
export type { Product } from './repository.js';
export { findProduct, findProducts, findProductsBySku, missingProductIds } from './repository.js';

/**
 * What a product is made of must exist in the organization (404 naming the field). A product made of a blend
 * without its own roast level takes the blend's.
 */
export async function madeOf(q: Queryable, orgId: string, input: { profileId?: string | null; blendId?: string | null; roastLevel?: string | null }) {
  if (input.profileId && (await missingProfileIds(q, orgId, [input.profileId])).length > 0) throwNotFound('roast profile', input.profileId, 'profileId');
  if (!input.blendId) return input.roastLevel;
  const blend = (await findBlendRecipe(q, orgId, input.blendId)) ?? throwNotFound('blend', input.blendId, 'blendId');
  return input.roastLevel === undefined ? (blend.roastLevel ?? undefined) : input.roastLevel;
}

type NewProduct = z.output<typeof CreateProduct>;

/** Creates a product as createProduct does: what it is made of checked (404), sku and barcode unique per organization (409 duplicate, by the unique constraints). */
export async function createProduct(q: Queryable, orgId: string, input: NewProduct): Promise<repo.Product> {
  const roastLevel = await madeOf(q, orgId, input);
  return repo.insertProduct(q, orgId, { ...input, roastLevel: roastLevel ?? undefined });
}

/**
 * Every refusal createProduct would answer for these inputs, by index: a roast profile or blend not of this
 * organization (404 naming profileId or blendId), a sku or barcode already used (409 duplicate naming it). Reads only.
 */
export async function productRefusals(q: Queryable, orgId: string, inputs: NewProduct[]): Promise<{ index: number; problem: ProblemError }[]> {
  const missingProfiles = new Set(await missingProfileIds(q, orgId, [...new Set(inputs.flatMap((i) => (i.profileId ? [i.profileId] : [])))]));
  const blends = new Map<string, boolean>();
  for (const blendId of new Set(inputs.flatMap((i) => (i.blendId ? [i.blendId] : [])))) blends.set(blendId, (await findBlendRecipe(q, orgId, blendId)) !== undefined);
  const skus = new Set((await repo.findProductsBySku(q, orgId, inputs.map((i) => i.sku))).keys());
  const barcodes = new Set(await repo.barcodesInUse(q, orgId, inputs.flatMap((i) => (i.barcode ? [i.barcode] : []))));
  return inputs.flatMap((input, index) => [
    ...(input.profileId && missingProfiles.has(input.profileId) ? [{ index, problem: notFound('roast profile', input.profileId, 'profileId') }] : []),
    ...(input.blendId && !blends.get(input.blendId) ? [{ index, problem: notFound('blend', input.blendId, 'blendId') }] : []),
    ...(skus.has(input.sku) ? [{ index, problem: alreadyUsed('sku') }] : []),
    ...(input.barcode && barcodes.has(input.barcode) ? [{ index, problem: alreadyUsed('barcode') }] : []),
  ]);
}
