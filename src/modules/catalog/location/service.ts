/**
 * What other modules may ask of locations: one by id (with forUpdate, locked until commit, so it cannot be
 * archived while the caller puts something there). Archived locations are answered too; whether coffee may
 * still arrive at one is the caller's rule to apply (archivedAt).
 */
export type { Location } from './repository.js';
export { findLocation } from './repository.js';
