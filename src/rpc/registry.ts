import type { Operation } from './define.js';
import { locationOperations } from '../modules/catalog/location/operations.js';
import { partyOperations } from '../modules/catalog/party/operations.js';
import { machineOperations } from '../modules/catalog/machine/operations.js';
import { productOperations } from '../modules/catalog/product/operations.js';
import { materialOperations } from '../modules/inventory/material/operations.js';

/** Every operation the service answers. The HTTP layer, OpenAPI document and conformance test read this. */
export const operations: readonly Operation[] = [
  ...locationOperations,
  ...partyOperations,
  ...machineOperations,
  ...productOperations,
  ...materialOperations,
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
