-- A live roast batch can be aborted (abortRoastBatch): a batch started by mistake, or one whose roast was
-- dumped, ends 'aborted' with the reason and the time instead of staying live for ever. An aborted batch
-- consumed nothing and made nothing: it has no drop weight, no metrics, no curve and no roasted lot.
--
-- A batch may also be completed without telemetry (no logger on the machine): 'completed' with its weights
-- and stock movements but no curve and metrics null; nothing in the schema changes for that.

alter table roast_batches add column aborted_at timestamptz;
alter table roast_batches add column abort_reason text;

alter table roast_batches drop constraint roast_batches_state_check;
alter table roast_batches add constraint roast_batches_state_check check (state in ('live', 'completed', 'aborted'));

alter table roast_batches add constraint roast_batches_aborted check (
  (state = 'aborted') = (aborted_at is not null)
  and (state = 'aborted') = (abort_reason is not null)
);
alter table roast_batches add constraint roast_batches_aborted_made_nothing check (
  state <> 'aborted' or (drop_weight_kg is null and weight_loss_pct is null and metrics is null)
);

-- A completed batch that consumed a green lot has both weights; a live or aborted one need not.
alter table roast_batches drop constraint roast_batches_green_needs_weights;
alter table roast_batches add constraint roast_batches_green_needs_weights check (
  green_lot_id is null or state <> 'completed' or (charge_weight_kg is not null and drop_weight_kg is not null)
);
