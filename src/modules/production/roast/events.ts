import { z } from 'zod';
import { defineEvent } from '../../../events/define.js';
import { idOut, out } from '../../../rpc/outputs.js';
import { GreenLotTransaction, LineageEdge } from '../../inventory/green/schemas.js';
import { RoastBatch } from './schemas.js';

/** What a completion booked: the green coffee consumed, the roasted lot opened and the lineage between them (empty without a green lot). */
const completionPayload = out({
  batch: RoastBatch,
  /** The roast_consume row taken from the green lot. */
  greenTransactions: z.array(GreenLotTransaction),
  roastedLotId: idOut.nullable(),
  /** green lot → batch → roasted lot, with the weights that followed each edge. */
  lineage: z.array(LineageEdge),
});

export const roastBatchStarted = defineEvent('production.roast.batch_started', 'A live roast batch started.', out({ batch: RoastBatch }));
export const roastBatchCompleted = defineEvent(
  'production.roast.batch_completed',
  'A live roast batch was completed, with what it consumed and made.',
  completionPayload,
);
export const roastBatchImported = defineEvent(
  'production.roast.batch_imported',
  'A roast logger export was imported as a completed batch, with what it consumed and made.',
  completionPayload,
);
export const roastBatchAborted = defineEvent('production.roast.batch_aborted', 'A live roast batch was abandoned; nothing was consumed.', out({ batch: RoastBatch }));
