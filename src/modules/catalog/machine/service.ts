/** What other modules may ask of machines: one by id (with forUpdate, locked until commit), active or not. */
export type { Machine } from './repository.js';
export { findMachine } from './repository.js';
