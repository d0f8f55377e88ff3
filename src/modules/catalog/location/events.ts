import { defineEvent } from '../../../events/define.js';
import { out } from '../../../rpc/outputs.js';
import { Location } from './schemas.js';

export const locationCreated = defineEvent('catalog.location.created', 'A location was created.', out({ location: Location }));
export const locationUpdated = defineEvent('catalog.location.updated', 'A location was changed.', out({ location: Location }));
export const locationArchived = defineEvent('catalog.location.archived', 'A location was archived.', out({ location: Location }));
