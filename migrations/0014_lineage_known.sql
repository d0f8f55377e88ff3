-- Each lineage edge carries what a trace shows of its two ends, so a trace labels the nodes it walks to
-- from the edges it walked, without a lookup per node (for a wide trace those lookups cost more than the
-- walk itself). Replaces 0012's firstcrack_trace; its signature and security are unchanged, so the grant stands.
--
-- from_known / to_known: the end's label, and for an order line also its order id and customer id:
--   green lot    {'GL-7 (Ethiopia Gerba)'}      roast batch  {'B-12'}       roasted or blend lot  {'R-3'}
--   order line   {'SO-5 line 1', <order id>, <customer id>}
-- Filled when the edge is recorded (by the trigger below, so every writer gets it) and only from columns
-- that never change once written: lot codes, green lot names, batch numbers, order numbers, line numbers,
-- an order's customer (the guards below refuse to change them; order lines are append-only). Null for
-- what can change or has no table: producers (renamed by updateProducer) and product batches. A trace
-- looks those up, as it does an end whose row did not exist yet when the edge was recorded. Customers'
-- codes and names are looked up too, once per customer.
alter table lineage_edges add column from_known text[], add column to_known text[];

-- PL/pgSQL, not SQL: its statements are planned once per connection, where a SQL function that cannot be
-- inlined (this one has subqueries) is planned again on every call.
create function firstcrack_lineage_known(org text, node_kind text, node_id text) returns text[]
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
    else return null;
  end case;
end $$;

create function firstcrack_lineage_fill_known() returns trigger language plpgsql as $$
begin
  new.from_known := coalesce(new.from_known, firstcrack_lineage_known(new.org_id, new.from_kind, new.from_id));
  new.to_known := coalesce(new.to_known, firstcrack_lineage_known(new.org_id, new.to_kind, new.to_id));
  return new;
end $$;
create trigger fill_known before insert on lineage_edges for each row execute function firstcrack_lineage_fill_known();

-- Edges recorded before this migration (the table is append-only; this is its one rewrite).
alter table lineage_edges disable trigger append_only;
update lineage_edges
set from_known = firstcrack_lineage_known(org_id, from_kind, from_id), to_known = firstcrack_lineage_known(org_id, to_kind, to_id);
alter table lineage_edges enable trigger append_only;

-- What the edges copied may not change afterwards (order lines are append-only already).
create function firstcrack_refuse_relabel() returns trigger language plpgsql as $$
begin
  raise exception '%: % cannot change once recorded (lineage names it)', tg_table_name, tg_argv[0]
    using errcode = 'integrity_constraint_violation';
end $$;
create trigger keep_label before update of lot_code, name on green_lots for each row
  when (old.lot_code is distinct from new.lot_code or old.name is distinct from new.name)
  execute function firstcrack_refuse_relabel('lot_code and name');
create trigger keep_label before update of batch_number on roast_batches for each row
  when (old.batch_number is distinct from new.batch_number) execute function firstcrack_refuse_relabel('batch_number');
create trigger keep_label before update of lot_code on roasted_lots for each row
  when (old.lot_code is distinct from new.lot_code) execute function firstcrack_refuse_relabel('lot_code');
create trigger keep_label before update of order_number, customer_id on orders for each row
  when (old.order_number is distinct from new.order_number or old.customer_id is distinct from new.customer_id)
  execute function firstcrack_refuse_relabel('order_number and customer_id');

-- The trace (see 0012 for the walk): each reached node takes what the edge that reached it knows of it
-- (max(): any edge's copy, skipping nulls), and only nodes without one are looked up in their own kind's
-- table. The answer, column-wise as before:
--   {"nodes": [kinds, ids, depths, knowns]                (knowns: the arrays above, or null),
--    "customers": [ids, codes, names]                      (every customer an order line names; nulls when none),
--    "edges": [ids, depths, fromKinds, fromIds, toKinds, toIds, weightsKg, groupIds, createdAtMs]  (nulls when none),
--    "depthLimitReached": boolean}
create or replace function firstcrack_trace(trace_org text, trace_kind text, trace_id text, walk_backward boolean, walk_depth_limit int)
returns json language plpgsql stable set plan_cache_mode = force_generic_plan as $$
begin
  return (
    with recursive walk (edge_id, from_kind, from_id, to_kind, to_id, weight_kg, group_id, created_at, far_kind, far_id, far_known, depth) as (
      select null::text, null::text, null::text, null::text, null::text, null::numeric, null::text, null::timestamptz, trace_kind, trace_id, null::text[], 0
      union
      select step.*, w.depth + 1
      from walk w
      cross join lateral (
        select e.id, e.from_kind, e.from_id, e.to_kind, e.to_id, e.weight_kg, e.group_id, e.created_at, e.from_kind, e.from_id, e.from_known
        from lineage_edges e
        where walk_backward and e.org_id = trace_org and e.to_kind = w.far_kind and e.to_id = w.far_id
        union all
        select e.id, e.from_kind, e.from_id, e.to_kind, e.to_id, e.weight_kg, e.group_id, e.created_at, e.to_kind, e.to_id, e.to_known
        from lineage_edges e
        where not walk_backward and e.org_id = trace_org and e.from_kind = w.far_kind and e.from_id = w.far_id
      ) step
      where w.depth < walk_depth_limit
    ),
    nodes as (
      select far_kind as kind, far_id as id, min(depth) as depth, max(far_known) as known from walk group by far_kind, far_id
    ),
    -- Materialized: inlined into the answer, the lookups would run once per use.
    labelled as materialized (
      select n.kind, n.id, n.depth, coalesce(n.known, case n.kind
               when 'producer' then (select array[p.name] from producers p where p.org_id = trace_org and p.id = n.id)
               else firstcrack_lineage_known(trace_org, n.kind, n.id)
             end) as known
      from nodes n
    )
    select json_build_object(
      'nodes', (select json_build_array(json_agg(kind), json_agg(id), json_agg(depth), json_agg(known)) from labelled),
      'customers', (select json_build_array(json_agg(c.id), json_agg(c.code), json_agg(c.name))
                    from customers c
                    where c.org_id = trace_org and c.id in (select known[3] from labelled where kind = 'order_line')),
      'edges', (select json_build_array(json_agg(edge_id), json_agg(depth), json_agg(from_kind), json_agg(from_id), json_agg(to_kind),
                                        json_agg(to_id), json_agg(weight_kg::text), json_agg(group_id),
                                        json_agg(floor(extract(epoch from created_at) * 1000)))
                from walk where edge_id is not null),
      -- A node first reached at the limit whose own lineage goes on: the walk stopped short of it.
      'depthLimitReached', exists (
        select 1 from nodes n
        where n.depth = walk_depth_limit
          and exists (select 1 from lineage_edges e where walk_backward and e.org_id = trace_org and e.to_kind = n.kind and e.to_id = n.id
                      union all
                      select 1 from lineage_edges e where not walk_backward and e.org_id = trace_org and e.from_kind = n.kind and e.from_id = n.id))
    )
    where (select known is not null from labelled where depth = 0)
       or exists (select 1 from lineage_edges e where e.org_id = trace_org and e.from_kind = trace_kind and e.from_id = trace_id)
       or exists (select 1 from lineage_edges e where e.org_id = trace_org and e.to_kind = trace_kind and e.to_id = trace_id)
  );
end $$;
