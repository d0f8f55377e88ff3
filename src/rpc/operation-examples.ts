import type { OperationExamples } from './examples.js';
import { examples as cafe } from '../modules/cafe/examples.js';
import { examples as catalog } from '../modules/catalog/examples.js';
import { examples as inventory } from '../modules/inventory/examples.js';
import { examples as orders } from '../modules/orders/examples.js';
import { examples as production } from '../modules/production/examples.js';
import { examples as quality } from '../modules/quality/examples.js';
import { examples as reporting } from '../modules/reporting/examples.js';
import { examples as sourcing } from '../modules/sourcing/examples.js';
import { examples as traceability } from '../modules/traceability/examples.js';
import { examples as webhooks } from '../modules/webhooks/examples.js';

/** Every operation's example request and answer, from each module's examples.ts (as the registry lists each module's operations). */
export const OPERATION_EXAMPLES: OperationExamples = { ...cafe, ...catalog, ...inventory, ...orders, ...production, ...quality, ...reporting, ...sourcing, ...traceability, ...webhooks };
