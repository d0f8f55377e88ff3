import { defineOperation } from '../../../rpc/define.js';
import { invalidInput, notFound } from '../../../rpc/errors.js';
import * as repo from './repository.js';
import { ById, CreateProduct, ListProducts, UpdateProduct } from './schemas.js';

const module = 'core' as const;

export const productOperations = [
  defineOperation({
    name: 'catalog.product.createProduct',
    summary:
      'Create a sellable product. sku is unique per organization (409 naming sku), and so is barcode (8–14 digits). ' +
      'netWeightKg answers as a kg string with 3 decimals; listPrice as a decimal string and requires currency.',
    permission: 'catalog.product.write',
    module,
    get: false,
    input: CreateProduct,
    emits: ['catalog.product.created'],
    async handler(ctx, input) {
      const product = await repo.insertProduct(ctx.tx, ctx.orgId, input);
      await ctx.emit('catalog.product.created', { product });
      return product;
    },
  }),

  defineOperation({
    name: 'catalog.product.getProduct',
    summary: 'A product, active or not.',
    permission: 'catalog.product.read',
    module,
    get: true,
    input: ById,
    async handler(ctx, { id }) {
      return (await repo.findProduct(ctx.tx, ctx.orgId, id)) ?? throwNotFound(id);
    },
  }),

  defineOperation({
    name: 'catalog.product.listProducts',
    summary: 'Products, oldest first. Filters: format, isActive, q (name, sku or barcode, case-insensitive).',
    permission: 'catalog.product.read',
    module,
    get: true,
    input: ListProducts,
    async handler(ctx, { filter, page }) {
      return repo.listProducts(ctx.tx, ctx.orgId, filter, page);
    },
  }),

  defineOperation({
    name: 'catalog.product.updateProduct',
    summary:
      'Change a product; null clears netWeightKg, listPrice, currency or barcode. ' +
      'The result must still carry a currency whenever it has a listPrice (400 otherwise). isActive false retires it from sale.',
    permission: 'catalog.product.write',
    module,
    get: false,
    input: UpdateProduct,
    emits: ['catalog.product.updated'],
    async handler(ctx, { id, ...changes }) {
      const current = (await repo.findProduct(ctx.tx, ctx.orgId, id, { forUpdate: true })) ?? throwNotFound(id);
      const listPrice = changes.listPrice === undefined ? current.listPrice : changes.listPrice;
      const currency = changes.currency === undefined ? current.currency : changes.currency;
      if (listPrice !== null && currency === null) {
        throw invalidInput([{ path: 'currency', message: 'required while the product has a listPrice' }]);
      }
      const product = await repo.updateProduct(ctx.tx, ctx.orgId, id, changes);
      await ctx.emit('catalog.product.updated', { product });
      return product;
    },
  }),
];

function throwNotFound(id: string): never {
  throw notFound('product', id);
}
