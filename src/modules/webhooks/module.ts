import { defineModule } from '../../rpc/module.js';
import { webhookOperations } from './operations.js';
import * as events from './events.js';
import { webhookDelivery } from './delivery.js';
import { queueWebhookDeliveries } from './service.js';
import { examples } from './examples.js';

export default defineModule({
  name: 'webhooks',
  operations: webhookOperations,
  examples,
  events: Object.values(events),
  tables: ['webhook_endpoints', 'webhook_deliveries', 'webhook_attempts'],
  // The deliveries table is their queue.
  leasedWork: { webhookDelivery },
  onEventsWritten: { hook: queueWebhookDeliveries, wakes: 'webhookDelivery' },
});
