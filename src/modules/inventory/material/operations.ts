import { defineOperation } from '../../../rpc/define.js';
import { ProblemError, conflict, notFound } from '../../../rpc/errors.js';
import { findLocation } from '../../catalog/location/service.js';
import { findProduct } from '../../catalog/product/service.js';
import * as repo from './repository.js';
import {
  AdjustMaterialQuantity, ById, ByProduct, CreateMaterial, ExplodeMaterialRequirements, ListMaterials, SetBillOfMaterials,
} from './schemas.js';

const module = 'resource_planning' as const;

export const materialOperations = [
  defineOperation({
    name: 'inventory.material.createMaterial',
    summary:
      'Create a packaging or other non-coffee material, counted in its own stock-keeping unit (pieces, metres, ...) to 3 decimals. ' +
      'It starts with nothing on hand: stock arrives through adjustMaterialQuantity (reason receive). sku is unique per organization (409); ' +
      'supplierPartnerId must be a partner of this organization (404); unitCost requires currency.',
    permission: 'inventory.material.write',
    module,
    get: false,
    input: CreateMaterial,
    emits: ['inventory.material.created'],
    async handler(ctx, input) {
      const material = await repo.insertMaterial(ctx.tx, ctx.orgId, input);
      await ctx.emit('inventory.material.created', { material });
      return material;
    },
  }),

  defineOperation({
    name: 'inventory.material.getMaterial',
    summary: 'A material with its balance (onHand) and whether that is below its reorder point (belowReorderPoint: onHand < reorderPoint).',
    permission: 'inventory.material.read',
    module,
    get: true,
    input: ById,
    async handler(ctx, { id }) {
      return (await repo.findMaterial(ctx.tx, ctx.orgId, id)) ?? materialNotFound(id);
    },
  }),

  defineOperation({
    name: 'inventory.material.listMaterials',
    summary:
      'Materials, oldest first. Filters: kind, supplierPartnerId, belowReorderPoint (true: has a reorder point and onHand is below it), ' +
      'isActive, q (name or sku, case-insensitive).',
    permission: 'inventory.material.read',
    module,
    get: true,
    input: ListMaterials,
    async handler(ctx, { filter, page }) {
      return repo.listMaterials(ctx.tx, ctx.orgId, filter, page);
    },
  }),

  defineOperation({
    name: 'inventory.material.adjustMaterialQuantity',
    summary:
      'Append a ledger row and move the balance with it; the balance is never written directly. deltaQty is the signed change ' +
      '(non-zero): receive must be positive, shrinkage and write_off negative (400 otherwise). Only recount may take the balance ' +
      'below zero; any other decrease that would is refused with 409 insufficient_stock. locationId, if given, must be an ' +
      'unarchived location of this organization. Answers { material, transaction }; the row names the credential that made it ' +
      'and the resulting balance.',
    permission: 'inventory.material.write',
    module,
    get: false,
    input: AdjustMaterialQuantity,
    emits: ['inventory.material.quantity_adjusted'],
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
    summary:
      'Publish a new version of the product’s bill of materials (versions count up per product) and retire the active one, together. ' +
      'Each line: materialId, quantity (per yieldQty product units, default yieldQty 1), wastePct (0–100, default 0). A material may ' +
      'appear once (400); unknown product or materials are 404 naming the path (e.g. lines[2].materialId). Published versions are never edited.',
    permission: 'inventory.material.write',
    module,
    get: false,
    input: SetBillOfMaterials,
    emits: ['inventory.material.bom_published'],
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
    summary:
      'The product’s active bill of materials with its lines, plus previousVersions: every retired version, newest first, each with ' +
      'version, publishedAt, retiredAt and its lines as published. 404 no_bill_of_materials when none was ever published.',
    permission: 'inventory.material.read',
    module,
    get: true,
    input: ByProduct,
    async handler(ctx, { productId }) {
      if (!(await findProduct(ctx.tx, ctx.orgId, productId))) productNotFound(productId);
      const [active, ...previousVersions] = await repo.findBillsOfMaterials(ctx.tx, ctx.orgId, productId);
      if (!active || active.retiredAt !== null) noBillOfMaterials(productId);
      return { ...active, previousVersions };
    },
  }),

  defineOperation({
    name: 'inventory.material.explodeMaterialRequirements',
    summary:
      'What making quantity units of the product takes from each material of its active bill of materials: required = ' +
      'quantity / yieldQty × line quantity × (1 + wastePct / 100), exact, rounded up to 3 decimals; with onHand, shortBy, ' +
      'remainingAfter, fallsBelowReorderPoint (remainingAfter < reorderPoint) and leadTimeDays. summary: canProduce, ' +
      'maxProducibleQuantity from stock on hand, shortMaterialCount, longestLeadTimeDays among the short materials. Nothing is reserved.',
    permission: 'inventory.material.read',
    module,
    get: true,
    input: ExplodeMaterialRequirements,
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
