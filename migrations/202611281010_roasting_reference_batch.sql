-- The curve a batch is roasted against: a completed batch of the organization chosen for it
-- (startRoastBatch's referenceBatchId, production.roast.setRoastReference). Null: the profile's reference,
-- its most recent completed batch.
alter table roast_batches add column reference_batch_id text;
alter table roast_batches add constraint roast_batches_reference foreign key (org_id, reference_batch_id) references roast_batches (org_id, id);
