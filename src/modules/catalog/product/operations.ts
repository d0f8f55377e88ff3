import { defineOperation } from '../../../rpc/define.js';
import { invalidInput, throwNotFound } from '../../../rpc/errors.js';
import * as repo from './repository.js';
import { pageOut } from '../../../rpc/outputs.js';
import { ById, CreateProduct, ListProducts, Product, UpdateProduct } from './schemas.js';
import { productCreated, productUpdated } from './events.js';

const feature = 'core' as const;

export const productOperations = [
  defineOperation({
    name: 'catalog.product.createProduct',
    summary: 'Create a sellable product.',
    description:
      '`sku` is unique per organization, and so is `barcode` (8–14 digits): 409 `duplicate` naming the field. ' +
      '`netWeightKg` answers as a kilogram string with three decimals; `listPrice` as a decimal string, and it requires `currency` (400).',
    permission: 'catalog.product.write',
    feature,
    get: false,
    input: CreateProduct,
    output: Product,
    errors: ['duplicate'],
    emits: [productCreated],
    async handler(ctx, input) {
      const product = await repo.insertProduct(ctx.tx, ctx.orgId, input);
      await ctx.emit('catalog.product.created', { product });
      return product;
    },
  }),

  defineOperation({
    name: 'catalog.product.getProduct',
    summary: 'A product, active or not.',
    description: 'Another organization’s product answers 404 exactly like a missing one.',
    permission: 'catalog.product.read',
    feature,
    get: true,
    input: ById,
    output: Product,
    errors: ['not_found'],
    async handler(ctx, { id }) {
      return (await repo.findProduct(ctx.tx, ctx.orgId, id)) ?? throwNotFound('product', id);
    },
  }),

  defineOperation({
    name: 'catalog.product.listProducts',
    summary: 'Products, oldest first.',
    description: 'Filters: `format`, `isActive`, `q` (case-insensitive search in name, sku and barcode).',
    permission: 'catalog.product.read',
    feature,
    get: true,
    input: ListProducts,
    output: pageOut(Product),
    errors: ['invalid_cursor'],
    async handler(ctx, { filter, page }) {
      return repo.listProducts(ctx.tx, ctx.orgId, filter, page);
    },
  }),

  defineOperation({
    name: 'catalog.product.updateProduct',
    summary: 'Change a product.',
    description:
      'Only the fields given change; `null` clears netWeightKg, listPrice, currency or barcode; the sku is fixed. The result must still ' +
      'carry a currency whenever it has a listPrice (400 naming `currency`). A barcode another product has is 409 `duplicate`. ' +
      '`isActive: false` retires the product from sale.',
    permission: 'catalog.product.write',
    feature,
    get: false,
    input: UpdateProduct,
    output: Product,
    errors: ['not_found', 'duplicate'],
    emits: [productUpdated],
    async handler(ctx, { id, ...changes }) {
      const current = (await repo.findProduct(ctx.tx, ctx.orgId, id, { forUpdate: true })) ?? throwNotFound('product', id);
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

