-- Append-only tables (ledgers, events, lineage, certificates…): history is never rewritten, by any role. Until
-- now firstcrack_append_only only revoked update and delete from the service role, which left the embedded
-- database's single owner connection unbound; a refusing trigger now stands beside the revoke. Written to be
-- re-runnable: a database that already has some of these triggers ends up the same.
create or replace function firstcrack_refuse_rewrite() returns trigger language plpgsql as $$
begin
  raise exception '% is append-only', tg_table_name using errcode = 'integrity_constraint_violation';
end $$;

create or replace function firstcrack_append_only(target regclass) returns void language plpgsql as $$
begin
  execute format('revoke update, delete on %s from firstcrack_app', target);
  execute format('drop trigger if exists append_only on %s', target);
  execute format('create trigger append_only before update or delete on %s '
                 'for each row execute function firstcrack_refuse_rewrite()', target);
end $$;

-- The materials' private copy of the refusal (0004) gives way to the shared one.
drop trigger if exists bill_of_materials_lines_append_only on bill_of_materials_lines;
drop trigger if exists material_transactions_append_only on material_transactions;
drop function if exists firstcrack_material_history_refuse_rewrite();

-- Every table declared append-only so far (bills_of_materials is not: retiring stamps retired_at once, which
-- its own trigger from 0004 guards).
select firstcrack_append_only(target)
from unnest(array[
  'events', 'material_transactions', 'bill_of_materials_lines', 'green_lot_ledger', 'green_lot_cost_components',
  'lineage_edges', 'blends', 'blend_components', 'roast_curves', 'roasted_lot_ledger', 'scheduled_batches',
  'order_lines', 'fulfillments', 'certificates'
]::regclass[]) target;
