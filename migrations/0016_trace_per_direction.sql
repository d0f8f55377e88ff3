-- A trace function per direction, answering the walk's rows rather than a node list built from them. Replaces
-- firstcrack_trace (0010, last rewritten by 0015) with firstcrack_trace_backward and firstcrack_trace_forward.
--
-- Measured in instructions (callgrind, PostgreSQL 15, 1,000,000 edges; per call, the bare recursive walk in
-- brackets): forward from a producer (496 nodes) 35.4 M before, 29.7 M after [20.3 M]; backward from an
-- order line (9 nodes) 1.43 M before, 1.40 M after [1.08 M].
--   * Each direction is its own statement, joined straight to its index. 0015's one walk joined a lateral
--     UNION ALL of both directions, whose branch the one-time filter picked again for every row reached,
--     and any one statement serving both directions starts up the plan of both on every call.
--   * The nodes are the walk's far ends. Grouping the walk by node, labelling each node and aggregating the
--     nodes again in PostgreSQL cost more than reading them off the edges costs the service, which takes
--     each node's least depth and the label any of its edges copied (the labels edges copy never change,
--     see 0014).
--   * Edge times as epoch seconds (a double, to the microsecond): as cheap to write out as a timestamp,
--     shorter, and read without parsing a date.
--
-- Both functions come from one text: the directions differ only in which end of an edge the walk arrives
-- by (near: `to` walking backward, `from` forward) and which it goes on to (far). SECURITY INVOKER, as
-- before: row-level security applies as to any query of the service. PL/pgSQL, so each connection plans
-- the statement once (a generic plan) instead of on every trace.
--
-- Each walk row is one edge at one depth; UNION drops a row already produced and the depth limit ends
-- cycles. The first row is the start itself (depth 0), with what it is called looked up, as no edge walked
-- tells it. The answer, column-wise (json_agg over scalars is the cheapest JSON PostgreSQL builds):
--   {"start": known                            (as 0014's from_known/to_known, or null),
--    "edges": [ids, depths, nearIds, farKinds, farIds, farLabels, farOrderIds, farCustomerIds, weightsKg, groupIds,
--              createdAtsEpochSeconds]          (nulls when none),
--    "customers": [ids, codes, names]          (every customer an order line names; nulls when none),
--    "depthLimitReached": boolean}
-- edges one row per edge and depth it was reached at, in no particular order; the far end's label (and an
-- order line's order and customer) are what the edge copied of it, or for a producer (whose name can
-- change) its name now. Null when the start does not exist: no row of its kind and no edge.
do $migration$
declare
  trace_function constant text := $template$
    create function %1$s(trace_org text, trace_kind text, trace_id text, walk_depth_limit int)
    returns json language plpgsql stable set plan_cache_mode = force_generic_plan as $$
    begin
      return (
        with recursive walk (edge_id, near_id, far_kind, far_id, far_known, weight_kg, group_id, created_at, depth) as (
          select null::text, null::text, trace_kind, trace_id,
                 case trace_kind
                   when 'producer' then (select array[p.name] from producers p where p.org_id = trace_org and p.id = trace_id)
                   else firstcrack_lineage_known(trace_org, trace_kind, trace_id)
                 end,
                 null::numeric, null::text, null::timestamptz, 0
          union
          select e.id, e.%2$s_id, e.%3$s_kind, e.%3$s_id, e.%3$s_known, e.weight_kg, e.group_id, e.created_at, w.depth + 1
          from walk w join lineage_edges e on e.org_id = trace_org and e.%2$s_kind = w.far_kind and e.%2$s_id = w.far_id
          where w.depth < walk_depth_limit
        )
        select json_build_object(
          'start', start.known,
          'edges', (select json_build_array(json_agg(edge_id), json_agg(depth), json_agg(near_id), json_agg(far_kind), json_agg(far_id),
                                            json_agg(known[1]), json_agg(known[2]), json_agg(known[3]),
                                            json_agg(weight_kg::text), json_agg(group_id), json_agg(date_part('epoch', created_at)))
                    from (select *, coalesce(far_known, case far_kind
                                      when 'producer' then (select array[p.name] from producers p where p.org_id = trace_org and p.id = far_id)
                                      else firstcrack_lineage_known(trace_org, far_kind, far_id)
                                    end) as known
                          from walk where depth > 0) edge),
          'customers', (select json_build_array(json_agg(c.id), json_agg(c.code), json_agg(c.name))
                        from customers c
                        where c.org_id = trace_org and c.id in (select far_known[3] from walk where far_kind = 'order_line')),
          -- A node first reached at the limit (not reached sooner another way, nor the start) whose own
          -- lineage goes on: the walk stopped short of it.
          'depthLimitReached', exists (
            select 1 from walk w
            where w.depth = walk_depth_limit
              and not exists (select 1 from walk v where v.far_kind = w.far_kind and v.far_id = w.far_id and v.depth < walk_depth_limit)
              and exists (select 1 from lineage_edges e where e.org_id = trace_org and e.%2$s_kind = w.far_kind and e.%2$s_id = w.far_id))
        )
        from (select far_known as known from walk where depth = 0) start
        where start.known is not null
           or exists (select 1 from lineage_edges e where e.org_id = trace_org and e.from_kind = trace_kind and e.from_id = trace_id)
           or exists (select 1 from lineage_edges e where e.org_id = trace_org and e.to_kind = trace_kind and e.to_id = trace_id)
      );
    end $$
  $template$;
begin
  execute format(trace_function, 'firstcrack_trace_backward', 'to', 'from');
  execute format(trace_function, 'firstcrack_trace_forward', 'from', 'to');
end $migration$;

grant execute on function firstcrack_trace_backward(text, text, text, int), firstcrack_trace_forward(text, text, text, int) to firstcrack_app;
drop function firstcrack_trace(text, text, text, boolean, int);
