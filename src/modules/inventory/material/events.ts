import { z } from 'zod';
import { defineEvent } from '../../../events/define.js';
import { out } from '../../../rpc/outputs.js';
import { BillOfMaterials, Material, MaterialTransaction } from './schemas.js';

export const materialCreated = defineEvent('inventory.material.created', 'A material was created (with nothing on hand).', out({ material: Material }));
export const materialQuantityAdjusted = defineEvent(
  'inventory.material.quantity_adjusted',
  'A material’s balance moved: the ledger row and the material as it now stands.',
  out({ material: Material, transaction: MaterialTransaction }),
);
export const billOfMaterialsPublished = defineEvent(
  'inventory.material.bom_published',
  'A new version of a product’s bill of materials was published; `retiredVersion` is the version it replaced, if any.',
  out({ billOfMaterials: BillOfMaterials, retiredVersion: z.number().int().min(1).nullable() }),
);
