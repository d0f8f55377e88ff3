import type { ModuleManifest } from '../rpc/module.js';
import { buildRegistry } from '../rpc/registry.js';
import location from './catalog/location/module.js';
import green from './inventory/green/module.js';
import blend from './inventory/blend/module.js';
import party from './catalog/party/module.js';
import machine from './catalog/machine/module.js';
import product from './catalog/product/module.js';
import material from './inventory/material/module.js';
import profile from './production/profile/module.js';
import roast from './production/roast/module.js';
import roastedLot from './inventory/roast/module.js';
import orders from './orders/module.js';
import traceability from './traceability/module.js';
import schedule from './production/schedule/module.js';
import reporting from './reporting/module.js';
import cupping from './quality/cupping/module.js';
import grading from './quality/grading/module.js';
import contract from './sourcing/contract/module.js';
import sample from './sourcing/sample/module.js';
import cafe from './cafe/module.js';
import identity from './identity/module.js';
import webhooks from './webhooks/module.js';
import lineage from './lineage/module.js';
import imports from './imports/module.js';

/**
 * Every module of the service: the one place that names them. Each brings its manifest (its folder's
 * module.ts); the order is the order of the operations in the registry, the OpenAPI document and the client.
 */
export const MODULES: readonly ModuleManifest[] = [
  location,
  green,
  blend,
  party,
  machine,
  product,
  material,
  profile,
  roast,
  roastedLot,
  orders,
  traceability,
  schedule,
  reporting,
  cupping,
  grading,
  contract,
  sample,
  cafe,
  identity,
  webhooks,
  lineage,
  imports,
];

/** The registry of the service's modules (tests and scripts read the operations and catalogs off it). */
export const REGISTRY = buildRegistry(MODULES);
