import { defineEvent } from '../../../events/define.js';
import { out } from '../../../rpc/outputs.js';
import { Blend } from './schemas.js';

export const blendCreated = defineEvent('inventory.blend.created', 'A blend recipe was created.', out({ blend: Blend }));
