/**
 * What other modules may ask of locations: one by id (with forUpdate, locked until commit, so it cannot be
 * archived while the caller puts something there). Archived locations are answered too; whether coffee may
 * still arrive at one is the caller's rule to apply (archivedAt).
 */
export type { Location, LocationLabel } from './repository.js';
export { findLocation } from './repository.js';

/** The code, name and archived flag of each named location that exists in the organization (a lookup for answers and checks). */
export { locationLabels } from './repository.js';
