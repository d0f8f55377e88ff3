import type { Operation } from './define.js';
import type { EventDefinition } from '../events/define.js';
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
import { cafeOperations } from '../modules/cafe/operations.js';
import { orderOperations } from '../modules/orders/operations.js';
import { cuppingOperations } from '../modules/quality/cupping/operations.js';
import { gradingOperations } from '../modules/quality/grading/operations.js';
import { traceabilityOperations } from '../modules/traceability/operations.js';
import { contractOperations } from '../modules/sourcing/contract/operations.js';
import { sampleOperations } from '../modules/sourcing/sample/operations.js';
import { identityOperations } from '../modules/identity/operations.js';
import { webhookOperations } from '../modules/webhooks/operations.js';

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
  ...cuppingOperations,
  ...gradingOperations,
  ...contractOperations,
  ...sampleOperations,
  ...cafeOperations,
  ...identityOperations,
  ...webhookOperations,
];

export const registry: ReadonlyMap<string, Operation> = (() => {
  const map = new Map<string, Operation>();
  for (const op of operations) {
    if (map.has(op.name)) throw new Error(`Operation ${op.name} is defined twice`);
    map.set(op.name, op);
  }
  return map;
})();

export interface CatalogEvent extends EventDefinition {
  /** The operations that emit it. */
  emittedBy: string[];
}

/**
 * The event catalog, read off the operations' declarations: each type declared once (one definition
 * object, shared by every operation that emits it), with its payload schema and its emitters.
 * Webhooks' listEventTypes, the event feed and the OpenAPI document serve it.
 */
export const eventCatalog: ReadonlyMap<string, CatalogEvent> = (() => {
  const definitions = new Map<string, EventDefinition>();
  const catalog = new Map<string, CatalogEvent>();
  for (const op of operations) {
    for (const definition of op.emits) {
      const known = definitions.get(definition.type);
      if (known && known !== definition) throw new Error(`Event ${definition.type} is declared twice; declare it once and list that definition`);
      definitions.set(definition.type, definition);
      const entry = catalog.get(definition.type);
      if (entry) entry.emittedBy.push(op.name);
      else catalog.set(definition.type, { ...definition, emittedBy: [op.name] });
    }
  }
  return new Map([...catalog.entries()].sort(([a], [b]) => a.localeCompare(b)));
})();

/** Every event type some operation emits, for webhooks.listEventTypes and the docs. */
export const eventTypes: readonly string[] = [...eventCatalog.keys()];
