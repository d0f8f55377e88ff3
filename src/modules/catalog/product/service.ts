/** What other modules may ask of products: one by id (with forUpdate, locked until commit). */
export type { Product } from './repository.js';
export { findProduct, findProducts, findProductsBySku, missingProductIds } from './repository.js';
