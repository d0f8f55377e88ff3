import type { OperationExamples } from '../rpc/examples.js';
import { examples as cafe } from './cafe/examples.js';
import { examples as catalog } from './catalog/examples.js';
import { examples as inventory } from './inventory/examples.js';
import { examples as orders } from './orders/examples.js';
import { examples as production } from './production/examples.js';
import { examples as quality } from './quality/examples.js';
import { examples as reporting } from './reporting/examples.js';
import { examples as sourcing } from './sourcing/examples.js';
import { examples as traceability } from './traceability/examples.js';
import { examples as webhooks } from './webhooks/examples.js';

/** Every operation's example request and answer, from each module's examples.ts. */
export const OPERATION_EXAMPLES: OperationExamples = { ...cafe, ...catalog, ...inventory, ...orders, ...production, ...quality, ...reporting, ...sourcing, ...traceability, ...webhooks };
