import type { Operation } from './define.js';
import { locationOperations } from '../modules/catalog/location/operations.js';
import { greenOperations } from '../modules/inventory/green/operations.js';
import { blendOperations } from '../modules/inventory/blend/operations.js';
import { partyOperations } from '../modules/catalog/party/operations.js';
import { machineOperations } from '../modules/catalog/machine/operations.js';
import { productOperations } from '../modules/catalog/product/operations.js';
import { materialOperations } from '../modules/inventory/material/operations.js';
import { profileOperations } from '../modules/production/profile/operations.js';
import { roastOperations } from '../modules/production/roast/operations.js';
import { roastedLotOperations } from '../modules/inventory/roast/operations.js';
import { scheduleOperations } from '../modules/production/schedule/operations.js';
import { orderOperations } from '../modules/orders/operations.js';
import { traceabilityOperations } from '../modules/traceability/operations.js';

/** Every operation the service answers. The HTTP layer, OpenAPI document and conformance test read this. */
export const operations: readonly Operation[] = [
  ...locationOperations,
  ...greenOperations,
  ...blendOperations,
  ...partyOperations,
  ...machineOperations,
  ...productOperations,
  ...materialOperations,
  ...profileOperations,
  ...roastOperations,
  ...roastedLotOperations,
  ...orderOperations,
  ...traceabilityOperations,
  ...scheduleOperations,
];

export const registry: ReadonlyMap<string, Operation> = (() => {
  const map = new Map<string, Operation>();
  for (const op of operations) {
    if (map.has(op.name)) throw new Error(`Operation ${op.name} is defined twice`);
    map.set(op.name, op);
  }
  return map;
})();

/** Every event type some operation emits, for webhooks.listEventTypes and the docs. */
export const eventTypes: readonly string[] = [...new Set(operations.flatMap((op) => op.emits))].sort();
