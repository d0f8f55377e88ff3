import { z } from 'zod';
import { defineEvent } from '../../events/define.js';
import { dateOut, idOut, out, timeOut } from '../../rpc/outputs.js';
import { BarMachine, Reconciliation, Site } from './schemas.js';

export const siteCreated = defineEvent('cafe.site.created', 'A cafe site was created.', out({ site: Site }));
export const machineRegistered = defineEvent('cafe.machine.registered', 'A bar machine was registered at a cafe site.', out({ machine: BarMachine }));
export const barMachineTokenIssued = defineEvent(
  'cafe.machine.bar_token_issued',
  'A bar machine token was issued (the event names the credential, never the secret).',
  out({ machineId: idOut, credentialId: idOut, expiresAt: timeOut }),
);
export const posSalesImported = defineEvent(
  'cafe.pos_sales.imported',
  'POS sale lines were imported; only batches that added lines emit it.',
  out({ siteId: idOut, new: z.number().int(), known: z.number().int(), newShotEquivalents: z.number().int() }),
);
export const reconciliationRecorded = defineEvent(
  'cafe.reconciliation.recorded',
  'A business day was reconciled (shots pulled against sale shot-equivalents); each run is a new version.',
  out({ reconciliation: Reconciliation, businessDate: dateOut }),
);
