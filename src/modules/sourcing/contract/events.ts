import { z } from 'zod';
import { defineEvent } from '../../../events/define.js';
import { idOut, out } from '../../../rpc/outputs.js';
import { CONTRACT_STATUSES, Contract, ContractSummary, Milestone, Shipment, ShipmentLot } from './schemas.js';

export const contractCreated = defineEvent('sourcing.contract.created', 'A green purchase contract was created with its lines (status draft).', out({ contract: Contract }));

export const contractStatusChanged = defineEvent(
  'sourcing.contract.status_changed',
  'A contract moved to another status: by updateContractStatus (cause manual), or as shipments were booked (cause shipment) or received (cause receipt).',
  out({
    contract: ContractSummary,
    from: z.enum(CONTRACT_STATUSES),
    to: z.enum(CONTRACT_STATUSES),
    cause: z.enum(['manual', 'shipment', 'receipt']),
  }),
);

export const shipmentCreated = defineEvent('sourcing.shipment.created', 'A shipment was booked against a contract.', out({ shipment: Shipment, contract: ContractSummary }));

export const shipmentReceived = defineEvent(
  'sourcing.shipment.received',
  'A shipment was received: one green lot per received line (their own inventory.green events are not emitted; this is the record).',
  out({ shipment: Shipment, contract: ContractSummary, lots: z.array(ShipmentLot.extend({ lotCode: z.string() })) }),
);

export const milestoneCreated = defineEvent('sourcing.milestone.created', 'A milestone was added to a contract.', out({ milestone: Milestone }));
export const milestoneCompleted = defineEvent(
  'sourcing.milestone.completed',
  'A contract milestone was completed (a sample_approval milestone names its approved sample).',
  out({ milestone: Milestone, contractId: idOut }),
);
