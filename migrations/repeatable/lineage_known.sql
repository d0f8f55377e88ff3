-- What a lineage edge knows of its two ends (owned by src/modules/lineage). Each edge carries what a trace
-- shows of its ends (from_known / to_known), so a trace labels the nodes it walks to from the edges it
-- walked, without a lookup per node:
--   green lot    {'GL-7 (Ethiopia Gerba)'}      roast batch  {'B-12'}       roasted or blend lot  {'R-3'}
--   order line   {'SO-5 line 1', <order id>, <customer id>}
--   contract     {'GC-2026-01'}        sample       {'S-7 (Guji pre-shipment)'}
-- Filled when the edge is recorded (by the trigger fill_known on lineage_edges, so every writer gets it) and
-- only from columns that never change once written: lot codes, green lot names, batch numbers, order
-- numbers, line numbers, an order's customer (keep_label triggers refuse to change them; order lines are
-- append-only). Null for what can change or has no table: producers (renamed by updateProducer) and product
-- batches; a trace looks those up, as it does an end whose row did not exist yet when the edge was recorded.
--
-- This reads the tables of the modules whose records are lineage nodes: it is the database's half of the
-- trace node kinds (src/modules/lineage/schemas.ts), and a new node kind with a label adds its branch here.
-- PL/pgSQL, not SQL: its statements are planned once per connection, where a SQL function that cannot be
-- inlined (this one has subqueries) is planned again on every call.
--
-- A repeatable migration: this is the one current text of these functions, re-applied whenever it changes.
create or replace function firstcrack_lineage_known(org text, node_kind text, node_id text) returns text[]
language plpgsql stable as $$
begin
  case node_kind
    when 'green_lot' then return (select array[g.lot_code || ' (' || g.name || ')'] from green_lots g where g.org_id = org and g.id = node_id);
    when 'roast_batch' then return (select array[b.batch_number] from roast_batches b where b.org_id = org and b.id = node_id);
    when 'roasted_lot', 'blend_lot' then return (select array[r.lot_code] from roasted_lots r where r.org_id = org and r.id = node_id);
    when 'order_line' then return (
      select array[o.order_number || ' line ' || l.line_number, o.id, o.customer_id]
      from order_lines l join orders o on o.org_id = org and o.id = l.order_id
      where l.org_id = org and l.id = node_id);
    when 'contract' then return (select array[c.contract_number] from green_contracts c where c.org_id = org and c.id = node_id);
    when 'sample' then return (select array[s.sample_number || ' (' || s.name || ')'] from samples s where s.org_id = org and s.id = node_id);
    else return null;
  end case;
end $$;

create or replace function firstcrack_lineage_fill_known() returns trigger language plpgsql as $$
begin
  new.from_known := coalesce(new.from_known, firstcrack_lineage_known(new.org_id, new.from_kind, new.from_id));
  new.to_known := coalesce(new.to_known, firstcrack_lineage_known(new.org_id, new.to_kind, new.to_id));
  return new;
end $$;
