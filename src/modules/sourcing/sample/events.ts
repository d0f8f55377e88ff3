import { z } from 'zod';
import { defineEvent } from '../../../events/define.js';
import { idOut, kgOut, out } from '../../../rpc/outputs.js';
import { SAMPLE_STATUSES, Sample } from './schemas.js';

export const sampleCreated = defineEvent('sourcing.sample.created', 'A sample was recorded (status requested).', out({ sample: Sample }));
export const sampleStatusChanged = defineEvent(
  'sourcing.sample.status_changed',
  'A sample moved to another status (every move; approvals and rejections also emit their own event).',
  out({ sample: Sample, from: z.enum(SAMPLE_STATUSES), to: z.enum(SAMPLE_STATUSES) }),
);
export const sampleApproved = defineEvent('sourcing.sample.approved', 'A sample was approved (decision time and notes stamped).', out({ sample: Sample }));
export const sampleRejected = defineEvent('sourcing.sample.rejected', 'A sample was rejected (decision time and notes stamped).', out({ sample: Sample }));
export const sampleTransferred = defineEvent(
  'sourcing.sample.transferred',
  'A sample became a green lot: its weight booked as a receive ledger row, lineage sample → lot.',
  out({ sample: Sample, greenLotId: idOut, lotCode: z.string(), weightKg: kgOut }),
);
