import { defineEvent } from '../../../events/define.js';
import { out } from '../../../rpc/outputs.js';
import { Profile } from './schemas.js';

export const profileCreated = defineEvent('production.profile.created', 'A roast profile was created.', out({ profile: Profile }));
