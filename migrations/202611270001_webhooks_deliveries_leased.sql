-- Webhook deliveries are their own queue (src/jobs/leased-work.ts, src/modules/webhooks/delivery.ts): a
-- pending delivery is due at next_attempt_at; a worker leases due ones in one statement (a fresh job_token
-- and leased_until), and records the attempt on the row under that token, which ends the lease. A lease
-- not ended by then (the worker died mid-attempt) has expired: the delivery is claimed again (at least once).
alter table webhook_deliveries add column leased_until timestamptz;
create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where status = 'pending';

-- The job queue no longer carries deliveries: the queue that did, with any job left in it, goes.
select pgboss.delete_queue('webhookDelivery') where exists (select 1 from pgboss.queue where name = 'webhookDelivery');

