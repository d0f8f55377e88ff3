import type { TenancyCase } from '../../../testing/tenancy.js';
import type { TestOrg } from '../../../testing/harness.js';

export async function makeProduct(org: TestOrg, fields: Record<string, unknown> = {}): Promise<string> {
  const sku = `P-${Math.random().toString(36).slice(2, 8)}`;
  const res = await org.call('catalog.product.createProduct', { sku, name: `Product ${sku}`, format: 'whole_bean', ...fields });
  if (res.status !== 200) throw new Error(`createProduct: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

export const cases: TenancyCase[] = [
  {
    operation: 'catalog.product.getProduct',
    expect: 'not_found',
    async arrange(owner) {
      const id = await makeProduct(owner);
      return { input: { id }, secretIds: [id] };
    },
  },
  {
    operation: 'catalog.product.updateProduct',
    expect: 'not_found',
    async arrange(owner) {
      const id = await makeProduct(owner);
      return { input: { id, name: 'Taken over', isActive: false }, secretIds: [id] };
    },
  },
  {
    operation: 'catalog.product.listProducts',
    expect: 'invisible',
    async arrange(owner) {
      const id = await makeProduct(owner, { sku: 'SAMESKU', barcode: '40000000000001' });
      return { input: { filter: { q: 'SAMESKU' } }, secretIds: [id] };
    },
  },
  {
    // The same sku and barcode are free in another organization, and using them there touches nothing here.
    operation: 'catalog.product.createProduct',
    expect: 'invisible',
    async arrange(owner) {
      const id = await makeProduct(owner, { sku: 'DUPSKU', barcode: '40000000000002' });
      return { input: { sku: 'DUPSKU', name: 'Mine', format: 'capsule', barcode: '40000000000002' }, secretIds: [id] };
    },
  },
];
