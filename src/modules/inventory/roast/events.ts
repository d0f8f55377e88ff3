import { defineEvent } from '../../../events/define.js';
import { RoastedLotChange } from './schemas.js';

export const roastedLotAdjusted = defineEvent('inventory.roast.lot_adjusted', 'A roasted lot’s stock was adjusted with a ledger row.', RoastedLotChange);
export const roastedLotCreated = defineEvent('inventory.roast.lot_created', 'A roasted lot opened from a completed roast batch, with its roast_output row.', RoastedLotChange);
