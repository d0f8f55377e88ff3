-- Traces answer a leaner graph (replaces 0014's firstcrack_trace; signature and security unchanged, so the
-- grant stands). An edge names its ends by id alone (each kind's ids carry their own prefix, so an id is
-- unique among the nodes), so the walk carries only the far end's kind, which keys the walk, and the near
-- end's id: narrower rows for UNION to compare. Edge times come as timestamps, which PostgreSQL writes
-- out cheaper than it computes epoch milliseconds.
--
-- The answer, column-wise as before:
--   {"nodes": [kinds, ids, depths, knowns]                    (knowns: see 0014, or null),
--    "customers": [ids, codes, names]                          (every customer an order line names; nulls when none),
--    "edges": [ids, depths, nearIds, farIds, weightsKg, groupIds, createdAts]   (nulls when none),
--    "depthLimitReached": boolean}
-- where the near end is the one the walk came from: the to end walking backward, the from end forward.
create or replace function firstcrack_trace(trace_org text, trace_kind text, trace_id text, walk_backward boolean, walk_depth_limit int)
returns json language plpgsql stable set plan_cache_mode = force_generic_plan as $$
begin
  return (
    with recursive walk (edge_id, near_id, far_kind, far_id, far_known, weight_kg, group_id, created_at, depth) as (
      select null::text, null::text, trace_kind, trace_id, null::text[], null::numeric, null::text, null::timestamptz, 0
      union
      select step.*, w.depth + 1
      from walk w
      cross join lateral (
        select e.id, e.to_id, e.from_kind, e.from_id, e.from_known, e.weight_kg, e.group_id, e.created_at
        from lineage_edges e
        where walk_backward and e.org_id = trace_org and e.to_kind = w.far_kind and e.to_id = w.far_id
        union all
        select e.id, e.from_id, e.to_kind, e.to_id, e.to_known, e.weight_kg, e.group_id, e.created_at
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
      'edges', (select json_build_array(json_agg(edge_id), json_agg(depth), json_agg(near_id), json_agg(far_id),
                                        json_agg(weight_kg::text), json_agg(group_id), json_agg(created_at))
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
