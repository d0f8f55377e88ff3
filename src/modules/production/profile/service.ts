/** What other modules may ask of roast profiles: one by id, with its targets and the machine it is written for. */
export type { Profile } from './repository.js';
export { findProfile, findProfiles, missingProfileIds } from './repository.js';
