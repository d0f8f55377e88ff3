import { z } from 'zod';
import { code, dateTime, id, kg, page, strict, text } from '../../../rpc/schemas.js';
import { idOut, kgOut, out, timeOut } from '../../../rpc/outputs.js';
import { GreenLotWithBalances } from '../../inventory/green/schemas.js';

export const SAMPLE_TYPES = ['offer', 'pre_shipment', 'arrival', 'type', 'spot', 'production', 'competition'] as const;
export const SAMPLE_STATUSES = ['requested', 'in_transit', 'received', 'roasted', 'cupped', 'approved', 'rejected', 'archived'] as const;
export type SampleStatus = (typeof SAMPLE_STATUSES)[number];

/**
 * The moves updateSampleStatus allows (anything else, the current status included, is 409
 * invalid_state_transition naming from and to): the sample's way from request to decision, where a sample
 * may skip the transit (handed over) and the separate roast (roasted and cupped in one session), a decision
 * may be revised (approved ↔ rejected) until archived, and any sample may be archived; nothing leaves archived.
 */
export const SAMPLE_TRANSITIONS: Record<SampleStatus, readonly SampleStatus[]> = {
  requested: ['in_transit', 'received', 'archived'],
  in_transit: ['received', 'archived'],
  received: ['roasted', 'cupped', 'archived'],
  roasted: ['cupped', 'archived'],
  cupped: ['approved', 'rejected', 'archived'],
  approved: ['rejected', 'archived'],
  rejected: ['approved', 'archived'],
  archived: [],
};
/** Statuses in which the sample is physically here (it can become a lot). */
export const ARRIVED_STATUSES: readonly SampleStatus[] = ['received', 'roasted', 'cupped', 'approved', 'rejected', 'archived'];

const trackingNumbers = z.array(z.string().trim().min(1).max(100)).max(20);

export const CreateSample = strict({
  sampleNumber: code,
  name: z.string().trim().min(1).max(200),
  sampleType: z.enum(SAMPLE_TYPES),
  partnerId: id('partnerId').optional(),
  producerId: id('producerId').optional(),
  contractId: id('contractId').optional(),
  /** Must be a line of contractId when both are given; alone, it names its contract. */
  contractLineId: id('contractLineId').optional(),
  poNumber: text(100).optional(),
  salesNumber: text(100).optional(),
  trackingNumbers: trackingNumbers.optional(),
  weightKg: kg({ positive: true }).optional(),
  dueAt: dateTime.optional(),
});
export type CreateSampleInput = z.output<typeof CreateSample>;

export const UpdateSampleStatus = strict({
  id: id(),
  status: z.enum(SAMPLE_STATUSES),
  /** Kept with an approval or rejection (400 with another status). */
  decisionNotes: text(4000).optional(),
  /** Replaces the list. */
  trackingNumbers: trackingNumbers.optional(),
}).superRefine((input, ctx) => {
  if (input.decisionNotes !== undefined && input.status !== 'approved' && input.status !== 'rejected') {
    ctx.addIssue({ code: 'custom', path: ['decisionNotes'], message: 'only with status approved or rejected' });
  }
});

export const TransferSampleToInventory = strict({
  id: id(),
  lotCode: code,
  weightKg: kg({ positive: true }),
  locationId: id('locationId').optional(),
});

export const SampleFilter = strict({
  sampleType: z.enum(SAMPLE_TYPES).optional(),
  status: z.enum(SAMPLE_STATUSES).optional(),
  partnerId: id('partnerId').optional(),
  producerId: id('producerId').optional(),
  contractId: id('contractId').optional(),
  /** true: transferred to inventory (has a green lot). */
  transferred: z.boolean().optional(),
  /** Case-insensitive search in sample number and name. */
  q: z.string().trim().min(1).max(100).optional(),
});
export const ListSamples = strict({ filter: SampleFilter.default({}), page });
export type SampleFilterInput = z.output<typeof SampleFilter>;
export const ById = strict({ id: id() });

export const Sample = out({
  id: idOut,
  sampleNumber: z.string(),
  name: z.string(),
  sampleType: z.enum(SAMPLE_TYPES),
  partnerId: idOut.nullable(),
  producerId: idOut.nullable(),
  contractId: idOut.nullable(),
  contractLineId: idOut.nullable(),
  poNumber: z.string().nullable(),
  salesNumber: z.string().nullable(),
  trackingNumbers: z.array(z.string()),
  weightKg: kgOut.nullable(),
  dueAt: timeOut.nullable(),
  status: z.enum(SAMPLE_STATUSES),
  statusChangedAt: timeOut,
  /** approved or rejected: the latest decision, stamped when it was made (kept when the sample is archived). */
  decision: z.enum(['approved', 'rejected']).nullable(),
  decisionAt: timeOut.nullable(),
  decisionNotes: z.string().nullable(),
  /** The green lot transferSampleToInventory created. */
  greenLotId: idOut.nullable(),
  transferredAt: timeOut.nullable(),
  createdAt: timeOut,
  updatedAt: timeOut,
}).meta({ id: 'Sample' });

export const SampleTransfer = out({ sample: Sample, lot: GreenLotWithBalances }).meta({ id: 'SampleTransfer' });
