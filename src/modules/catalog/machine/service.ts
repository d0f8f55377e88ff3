/**
 * What other modules may ask of machines: one by id (with forUpdate, locked until commit), active or not;
 * the active ones' batch sizes (at a location, or all), by code.
 */
export type { Machine, MachineBatchSizes } from './repository.js';
export { findMachine, listActiveMachineSizes } from './repository.js';
