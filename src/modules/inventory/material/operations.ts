import { defineOperation } from '../../../rpc/define.js';
import { ProblemError, conflict, notFound } from '../../../rpc/errors.js';
import { findLocation } from '../../catalog/location/service.js';
import { findProduct } from '../../catalog/product/service.js';
import * as repo from './repository.js';
import { createMaterial } from './service.js';
import { pageOut } from '../../../rpc/outputs.js';
import {
  AdjustMaterialQuantity, BillOfMaterials, BillOfMaterialsWithHistory, ById, ByProduct, CreateMaterial, ExplodeMaterialRequirements,
  ListMaterials, Material, MaterialMovement, MaterialRequirements, SetBillOfMaterials,
} from './schemas.js';
import { billOfMaterialsPublished, materialCreated, materialQuantityAdjusted } from './events.js';

const feature = 'resource_planning' as const;

export const materialOperations = [
  defineOperation({
    name: 'inventory.material.createMaterial',
    summary: 'Create a packaging or other non-coffee material, counted in its own unit (pieces, metres, ...).',
    description:
      'Quantities are exact to three decimals. A material starts with nothing on hand: stock arrives through adjustMaterialQuantity ' +
      '(reason `receive`). `sku` is unique per organization (409 `duplicate`); `supplierPartnerId` must be a partner of this ' +
      'organization (404); `unitCost` requires `currency` (400).',
    permission: 'inventory.material.write',
    feature,
    get: false,
    input: CreateMaterial,
    output: Material,
    errors: ['duplicate', 'not_found'],
    emits: [materialCreated],
    async handler(ctx, input) {
      const material = await createMaterial(ctx.tx, ctx.orgId, input);
      await ctx.emit('inventory.material.created', { material });
      return material;
    },
  }),

  defineOperation({
    name: 'inventory.material.getMaterial',
    summary: 'A material with its balance (onHand).',
    description: '`belowReorderPoint` is true when a reorder point is set and onHand is below it. Another organization’s material answers 404 exactly like a missing one.',
    permission: 'inventory.material.read',
    feature,
    get: true,
    input: ById,
    output: Material,
    errors: ['not_found'],
    async handler(ctx, { id }) {
      return (await repo.findMaterial(ctx.tx, ctx.orgId, id)) ?? materialNotFound(id);
    },
  }),

  defineOperation({
    name: 'inventory.material.listMaterials',
    summary: 'Materials, oldest first.',
    description:
      'Filters: `kind`, `supplierPartnerId`, `belowReorderPoint` (true: has a reorder point and onHand is below it; false: all others), ' +
      '`isActive`, `q` (case-insensitive search in name and sku).',
    permission: 'inventory.material.read',
    feature,
    get: true,
    input: ListMaterials,
    output: pageOut(Material),
    errors: ['invalid_cursor'],
    async handler(ctx, { filter, page }) {
      return repo.listMaterials(ctx.tx, ctx.orgId, filter, page);
    },
  }),

  defineOperation({
    name: 'inventory.material.adjustMaterialQuantity',
    summary: 'Append a ledger row to a material and move its balance with it; the balance is never written directly.',
    description:
      '`deltaQty` is the signed change and never zero: `receive` must be positive, `shrinkage` and `write_off` negative (400 otherwise). ' +
      'Only `recount` may take the balance below zero; any other decrease that would is refused with 409 `insufficient_stock` ' +
      '(the problem carries `onHand`). `locationId`, if given, must be a location of this organization (404) that is not archived ' +
      '(409 `location_archived`). Answers the material and the ledger row, which names the credential that made it and the resulting balance.',
    permission: 'inventory.material.write',
    feature,
    get: false,
    input: AdjustMaterialQuantity,
    output: MaterialMovement,
    errors: ['not_found', 'location_archived', 'insufficient_stock'],
    emits: [materialQuantityAdjusted],
    async handler(ctx, { id, ...movement }) {
      const current = (await repo.findMaterial(ctx.tx, ctx.orgId, id, { forUpdate: true })) ?? materialNotFound(id);
      if (movement.locationId) {
        const location = await findLocation(ctx.tx, ctx.orgId, movement.locationId);
        if (!location) throw notFound('location', movement.locationId, 'locationId');
        if (location.archivedAt) throw conflict('location_archived', `Location ${movement.locationId} is archived and takes no movements.`);
      }
      const moved = await repo.applyMovement(ctx.tx, ctx.orgId, id, { ...movement, credentialId: ctx.principal.credentialId });
      if (!moved) {
        throw conflict(
          'insufficient_stock',
          `Material ${id} has ${current.onHand} on hand; a change of ${movement.deltaQty} would take it below zero, which only reason recount may do.`,
          { onHand: current.onHand },
        );
      }
      await ctx.emit('inventory.material.quantity_adjusted', moved);
      return moved;
    },
  }),

  defineOperation({
    name: 'inventory.material.setBillOfMaterials',
    summary: 'Publish a new version of the product’s bill of materials and retire the active one, together.',
    description:
      'Versions count up per product; published versions are never edited. Each line: `materialId`, `quantity` (per `yieldQty` product ' +
      'units, default `yieldQty` 1), `wastePct` (0–100, default 0). A material may appear on one line only (400). An unknown product or ' +
      'material is 404 naming the path (e.g. `lines[2].materialId`).',
    permission: 'inventory.material.write',
    feature,
    get: false,
    input: SetBillOfMaterials,
    output: BillOfMaterials,
    errors: ['not_found'],
    emits: [billOfMaterialsPublished],
    async handler(ctx, input) {
      // The product's row lock makes concurrent publications for one product take turns.
      if (!(await findProduct(ctx.tx, ctx.orgId, input.productId, { forUpdate: true }))) productNotFound(input.productId);
      const known = await repo.existingMaterialIds(ctx.tx, ctx.orgId, input.lines.map((l) => l.materialId));
      const unknown = input.lines.findIndex((l) => !known.has(l.materialId));
      if (unknown >= 0) throw notFound('material', input.lines[unknown].materialId, `lines[${unknown}].materialId`);
      const { published, retiredVersion } = await repo.publishBillOfMaterials(ctx.tx, ctx.orgId, {
        ...input,
        publishedBy: ctx.principal.credentialId,
      });
      await ctx.emit('inventory.material.bom_published', { billOfMaterials: published, retiredVersion });
      return published;
    },
  }),

  defineOperation({
    name: 'inventory.material.getBillOfMaterials',
    summary: 'The product’s active bill of materials with its lines, and every retired version.',
    description:
      '`previousVersions` holds every retired version, newest first, each with its lines as published. An unknown product is 404 ' +
      '`not_found`; a product that never had a bill of materials published is 404 `no_bill_of_materials`.',
    permission: 'inventory.material.read',
    feature,
    get: true,
    input: ByProduct,
    output: BillOfMaterialsWithHistory,
    errors: ['not_found', 'no_bill_of_materials'],
    async handler(ctx, { productId }) {
      if (!(await findProduct(ctx.tx, ctx.orgId, productId))) productNotFound(productId);
      const [active, ...previousVersions] = await repo.findBillsOfMaterials(ctx.tx, ctx.orgId, productId);
      if (!active || active.retiredAt !== null) noBillOfMaterials(productId);
      return { ...active, previousVersions };
    },
  }),

  defineOperation({
    name: 'inventory.material.explodeMaterialRequirements',
    summary: 'What making a quantity of the product takes from each material of its active bill of materials, and what runs short.',
    description:
      'Per material: `required` = quantity / yieldQty × line quantity × (1 + wastePct / 100), exact, rounded up to three decimals; with ' +
      '`onHand`, `shortBy`, `remainingAfter`, `fallsBelowReorderPoint` (remainingAfter < reorderPoint) and `leadTimeDays`. `summary`: ' +
      '`canProduce`, `maxProducibleQuantity` from stock on hand, `shortMaterialCount`, `longestLeadTimeDays` among the short materials. ' +
      'Nothing is reserved. An unknown product is 404 `not_found`; one without an active bill of materials 404 `no_bill_of_materials`.',
    permission: 'inventory.material.read',
    feature,
    get: true,
    input: ExplodeMaterialRequirements,
    output: MaterialRequirements,
    errors: ['not_found', 'no_bill_of_materials'],
    async handler(ctx, { productId, quantity }) {
      if (!(await findProduct(ctx.tx, ctx.orgId, productId))) productNotFound(productId);
      return (await repo.explodeRequirements(ctx.tx, ctx.orgId, productId, quantity)) ?? noBillOfMaterials(productId);
    },
  }),
];

function materialNotFound(id: string): never {
  throw notFound('material', id);
}

function productNotFound(id: string): never {
  throw notFound('product', id, 'productId');
}

function noBillOfMaterials(productId: string): never {
  throw new ProblemError(404, 'no_bill_of_materials', `Product ${productId} has no active bill of materials.`, {
    errors: [{ path: 'productId', message: 'no active bill of materials' }],
  });
}
