import type { TenancyCase } from '../../../testing/tenancy.js';
import type { TestOrg } from '../../../testing/harness.js';
import { makeProduct } from '../../catalog/product/tenancy.cases.js';

async function ok(org: TestOrg, operation: string, input: Record<string, unknown>) {
  const res = await org.call(operation, input);
  if (res.status !== 200) throw new Error(`${operation}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export async function makeMaterial(org: TestOrg, fields: Record<string, unknown> = {}): Promise<string> {
  const sku = `M-${Math.random().toString(36).slice(2, 8)}`;
  return (await ok(org, 'inventory.material.createMaterial', { sku, name: `Material ${sku}`, kind: 'bag', ...fields })).id;
}

/** A product with an active one-line bill of materials over a stocked material. */
async function productWithBillOfMaterials(owner: TestOrg) {
  const productId = await makeProduct(owner);
  const materialId = await makeMaterial(owner);
  await ok(owner, 'inventory.material.adjustMaterialQuantity', { id: materialId, deltaQty: '100', reason: 'receive' });
  const bom = await ok(owner, 'inventory.material.setBillOfMaterials', { productId, name: 'Retail bag', lines: [{ materialId, quantity: 1 }] });
  return { productId, materialId, bomId: bom.id as string };
}

export const cases: TenancyCase[] = [
  {
    operation: 'inventory.material.getMaterial',
    expect: 'not_found',
    async arrange(owner) {
      const id = await makeMaterial(owner);
      return { input: { id }, secretIds: [id] };
    },
  },
  {
    operation: 'inventory.material.adjustMaterialQuantity',
    expect: 'not_found',
    async arrange(owner) {
      const id = await makeMaterial(owner);
      return { input: { id, deltaQty: '5', reason: 'receive' }, secretIds: [id] };
    },
  },
  {
    operation: 'inventory.material.listMaterials',
    expect: 'invisible',
    async arrange(owner) {
      const id = await makeMaterial(owner, { sku: 'SAMEMAT' });
      return { input: { filter: { q: 'SAMEMAT' } }, secretIds: [id] };
    },
  },
  {
    // The same sku is free in another organization, and using it there touches nothing here.
    operation: 'inventory.material.createMaterial',
    expect: 'invisible',
    async arrange(owner) {
      const id = await makeMaterial(owner, { sku: 'DUPMAT' });
      return { input: { sku: 'DUPMAT', name: 'Mine', kind: 'label' }, secretIds: [id] };
    },
  },
  {
    // Publishing onto another organization's product, even with its own materials, finds no product.
    operation: 'inventory.material.setBillOfMaterials',
    expect: 'not_found',
    async arrange(owner) {
      const { productId, materialId, bomId } = await productWithBillOfMaterials(owner);
      return { input: { productId, name: 'Taken over', lines: [{ materialId, quantity: 2 }] }, secretIds: [productId, materialId, bomId] };
    },
  },
  {
    operation: 'inventory.material.getBillOfMaterials',
    expect: 'not_found',
    async arrange(owner) {
      const { productId, materialId, bomId } = await productWithBillOfMaterials(owner);
      return { input: { productId }, secretIds: [productId, materialId, bomId] };
    },
  },
  {
    operation: 'inventory.material.explodeMaterialRequirements',
    expect: 'not_found',
    async arrange(owner) {
      const { productId, materialId, bomId } = await productWithBillOfMaterials(owner);
      return { input: { productId, quantity: 10 }, secretIds: [productId, materialId, bomId] };
    },
  },
];
