import { z } from 'zod';
import { defineEvent } from '../../../events/define.js';
import { idOut, out, timeOut } from '../../../rpc/outputs.js';
import { Machine } from './schemas.js';

export const machineRegistered = defineEvent('catalog.machine.registered', 'A roasting machine was registered.', out({ machine: Machine }));
export const machineUpdated = defineEvent(
  'catalog.machine.updated',
  'A roasting machine was changed; on deactivation, `revokedBridgeTokens` counts the bridge tokens it ended.',
  out({ machine: Machine, revokedBridgeTokens: z.number().int().nonnegative().optional() }),
);
/** Names the credential, never the secret: the event feed and webhooks are readable by other credentials. */
export const machineBridgeTokenIssued = defineEvent(
  'catalog.machine.bridge_token_issued',
  'A bridge token was issued for a machine (the credential is named, the secret never).',
  out({ machineId: idOut, credentialId: idOut, expiresAt: timeOut }),
);
