-- Traces label their nodes with one lookup each and answer column-wise JSON (replaces 0010's firstcrack_trace;
-- the signature and security are unchanged, so the grant stands).
-- Hash indexes by id on every table a trace labels its nodes from. A trace looks each reached node up by
-- id (then checks org_id): a hash index finds the id in one bucket page, where the primary key's btree
-- descends several levels comparing text under the collation. For a wide trace (hundreds of nodes, each
-- order line also naming its order and customer) these lookups are a large part of its cost.
create index producers_id_hash on producers using hash (id);
create index green_lots_id_hash on green_lots using hash (id);
create index roast_batches_id_hash on roast_batches using hash (id);
create index roasted_lots_id_hash on roasted_lots using hash (id);
create index order_lines_id_hash on order_lines using hash (id);
create index orders_id_hash on orders using hash (id);
create index customers_id_hash on customers using hash (id);

-- The trace behind traceability.traceBackward and traceForward, getRoastedLotTraceability and certificates
-- (called by src/modules/traceability/repository.ts). One statement, so the graph is read from one
-- snapshot: a recursive walk over lineage_edges from the start, upstream (walk_backward) or downstream, to
-- at most walk_depth_limit edges, and every reached node labelled from its own kind's table. It lives in a
-- PL/pgSQL function so each connection plans it once (a generic plan) instead of on every trace: planning
-- this statement costs more than running it for a typical chain. SECURITY INVOKER: row-level security
-- applies as to any query of the service.
--
-- Each walk row is one edge at one depth (`far` is the side the walk discovered). UNION drops a row
-- already produced, and the depth limit ends cycles. The two directions are two branches of one lateral
-- join, of which the direction's one-time filter runs only one, each on its index (lineage_edges_upstream,
-- lineage_edges_downstream). Each reached node (at the least depth it was reached at) is labelled by one
-- lookup in its own kind's table (CASE runs only the branch that applies): blend lots are blended roasted
-- lots, product batches have no table and are known by their edges alone, an order line also names its
-- order and customer.
--
-- The answer is null when the start does not exist (no row of its kind and no edge), else column-wise,
-- one JSON array per field (json_agg over scalars is the cheapest JSON PostgreSQL builds, and the service
-- reads it with one JSON.parse):
--   {"nodes": [kinds, ids, depths, labels, orderIds, customerIds, customerCodes, customerNames],
--    "edges": [ids, depths, fromKinds, fromIds, toKinds, toIds, weightsKg, groupIds, createdAtMs]  (nulls when none),
--    "depthLimitReached": boolean}
-- in no particular order: the service orders them, which costs it less than a sort costs here. An edge
-- reached at several depths (two ways of different length lead to it) is listed once per depth.
create or replace function firstcrack_trace(trace_org text, trace_kind text, trace_id text, walk_backward boolean, walk_depth_limit int)
returns json language plpgsql stable set plan_cache_mode = force_generic_plan as $$
begin
  return (
    with recursive walk (edge_id, from_kind, from_id, to_kind, to_id, weight_kg, group_id, created_at, far_kind, far_id, depth) as (
      select null::text, null::text, null::text, null::text, null::text, null::numeric, null::text, null::timestamptz, trace_kind, trace_id, 0
      union
      select step.*, w.depth + 1
      from walk w
      cross join lateral (
        select e.id, e.from_kind, e.from_id, e.to_kind, e.to_id, e.weight_kg, e.group_id, e.created_at, e.from_kind, e.from_id
        from lineage_edges e
        where walk_backward and e.org_id = trace_org and e.to_kind = w.far_kind and e.to_id = w.far_id
        union all
        select e.id, e.from_kind, e.from_id, e.to_kind, e.to_id, e.weight_kg, e.group_id, e.created_at, e.to_kind, e.to_id
        from lineage_edges e
        where not walk_backward and e.org_id = trace_org and e.from_kind = w.far_kind and e.from_id = w.far_id
      ) step
      where w.depth < walk_depth_limit
    ),
    nodes as (
      select far_kind as kind, far_id as id, min(depth) as depth from walk group by far_kind, far_id
    ),
    -- Materialized: inlined into the answer, every known[i] there would run the lookups again.
    labelled as materialized (
      select n.kind, n.id, n.depth, case n.kind
               when 'producer' then (select array[p.name] from producers p where p.org_id = trace_org and p.id = n.id)
               when 'green_lot' then (select array[g.lot_code || ' (' || g.name || ')'] from green_lots g where g.org_id = trace_org and g.id = n.id)
               when 'roast_batch' then (select array[b.batch_number] from roast_batches b where b.org_id = trace_org and b.id = n.id)
               when 'roasted_lot' then (select array[r.lot_code] from roasted_lots r where r.org_id = trace_org and r.id = n.id)
               when 'blend_lot' then (select array[r.lot_code] from roasted_lots r where r.org_id = trace_org and r.id = n.id)
               when 'order_line' then (
                 select array[o.order_number || ' line ' || l.line_number, o.id, c.id, c.code, c.name]
                 from order_lines l
                 join orders o on o.org_id = trace_org and o.id = l.order_id
                 join customers c on c.org_id = trace_org and c.id = o.customer_id
                 where l.org_id = trace_org and l.id = n.id)
             end as known
      from nodes n
    )
    select json_build_object(
      'nodes', (select json_build_array(json_agg(kind), json_agg(id), json_agg(depth), json_agg(known[1]), json_agg(known[2]),
                                        json_agg(known[3]), json_agg(known[4]), json_agg(known[5]))
                from labelled),
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
