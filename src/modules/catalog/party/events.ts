import { defineEvent } from '../../../events/define.js';
import { out } from '../../../rpc/outputs.js';
import { Partner, Producer } from './schemas.js';

export const partnerCreated = defineEvent('catalog.party.partner_created', 'A trading partner was created.', out({ partner: Partner }));
export const partnerUpdated = defineEvent('catalog.party.partner_updated', 'A trading partner was changed.', out({ partner: Partner }));
export const producerCreated = defineEvent('catalog.party.producer_created', 'A producer was created.', out({ producer: Producer }));
export const producerUpdated = defineEvent('catalog.party.producer_updated', 'A producer was changed.', out({ producer: Producer }));
