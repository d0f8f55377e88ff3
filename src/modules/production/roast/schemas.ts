import { z } from 'zod';
import { code, date, id, kg, page, strict, text } from '../../../rpc/schemas.js';

export const BATCH_STATES = ['live', 'completed', 'aborted'] as const;
export const BATCH_SOURCES = ['live', 'import'] as const;

export const ABORT_REASON_MAX_LENGTH = 500;

const positiveKg = kg({ positive: true });

export const StartRoastBatch = strict({
  batchNumber: code,
  machineId: id('machineId'),
  profileId: id('profileId').optional(),
  greenLotId: id('greenLotId').optional(),
  chargeWeightKg: positiveKg,
  /** Defaults to the machine's location. */
  locationId: id('locationId').optional(),
});

export const CompleteRoastBatch = strict({
  id: id(),
  /** Roasted weight out of the drum. Required when the batch names a green lot; it becomes the roasted lot's weight. */
  dropWeightKg: positiveKg.optional(),
  notes: text(4000).optional(),
});

export const AbortRoastBatch = strict({
  id: id(),
  /** Why the batch is abandoned (started by mistake, roast dumped, ...); kept on the batch. */
  reason: z.string().trim().min(1, 'must not be empty: say why the batch is aborted').max(ABORT_REASON_MAX_LENGTH),
});

export const ImportLoggerRoast = strict({
  /** The logger's export as text: Artisan .alog/JSON/CSV, IKAWA, ROEST, Loring, Aillio; a Cropster .xls base64-encoded. */
  content: z.string().min(1),
  batchNumber: code,
  machineId: id('machineId').optional(),
  // Extensions beyond the specification, so an imported roast can book stock exactly like a live one.
  greenLotId: id('greenLotId').optional(),
  /** Used when the file records no green weight. */
  chargeWeightKg: positiveKg.optional(),
  /** Used when the file records no roasted weight. */
  dropWeightKg: positiveKg.optional(),
  locationId: id('locationId').optional(),
  profileId: id('profileId').optional(),
});

export const RoastBatchFilter = strict({
  state: z.enum(BATCH_STATES).optional(),
  source: z.enum(BATCH_SOURCES).optional(),
  machineId: id('machineId').optional(),
  profileId: id('profileId').optional(),
  greenLotId: id('greenLotId').optional(),
  locationId: id('locationId').optional(),
  /** Started on or after this day (UTC). */
  from: date.optional(),
  /** Started on or before this day (UTC). */
  to: date.optional(),
  /** Case-insensitive search in the batch number. */
  q: z.string().trim().min(1).max(100).optional(),
});

export const ListRoastBatches = strict({ filter: RoastBatchFilter.default({}), page });
export const ById = strict({ id: id() });

export type BatchState = (typeof BATCH_STATES)[number];
export type BatchSource = (typeof BATCH_SOURCES)[number];
export type RoastBatchFilterInput = z.output<typeof RoastBatchFilter>;
