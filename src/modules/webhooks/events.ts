import { z } from 'zod';
import { defineEvent } from '../../events/define.js';
import { out } from '../../rpc/outputs.js';
import { Endpoint } from './schemas.js';

/**
 * An endpoint stopped receiving deliveries: disabled by updateEndpoint (`manual`) or by the auto-disable
 * rule (`failing`: every attempt to it has failed for 5 days). Subscribers of other endpoints receive it.
 */
export const endpointDisabled = defineEvent(
  'webhooks.endpoint.disabled',
  'A webhook endpoint was disabled, by hand or because its deliveries kept failing.',
  out({ endpoint: Endpoint, reason: z.enum(['manual', 'failing']) }),
);
