import { defineEvent } from '../../../events/define.js';
import { out } from '../../../rpc/outputs.js';
import { Product } from './schemas.js';

export const productCreated = defineEvent('catalog.product.created', 'A product was created.', out({ product: Product }));
export const productUpdated = defineEvent('catalog.product.updated', 'A product was changed (isActive false: retired from sale).', out({ product: Product }));
