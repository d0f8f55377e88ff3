-- The traces behind traceability.traceBackward and traceForward, getRoastedLotTraceability and certificates
-- (owned by src/modules/lineage, called by its repository): firstcrack_trace_backward and
-- firstcrack_trace_forward, one statement each, so the graph is read from one snapshot.
--
-- Both functions come from one text: the directions differ only in which end of an edge the walk arrives
-- by (near: `to` walking backward, `from` forward) and which it goes on to (far). Each direction is its own
-- statement joined straight to its index (lineage_edges_upstream, lineage_edges_downstream); any one statement
-- serving both directions would start up the plan of both on every call. SECURITY INVOKER: row-level
-- security applies as to any query of the service. PL/pgSQL, so each connection plans the statement once (a
-- generic plan) instead of on every trace: planning it costs more than running it for a typical chain.
--
-- Each walk row is one edge at one depth; UNION drops a row already produced and the depth limit ends
-- cycles. The first row is the start itself (depth 0), with what it is called looked up, as no edge walked
-- tells it. The nodes are the walk's far ends: the service takes each node's least depth and the label any
-- of its edges copied (see lineage_known.sql), which costs it less than grouping and labelling them here.
-- The answer, column-wise (json_agg over scalars is the cheapest JSON PostgreSQL builds):
--   {"start": known                            (as firstcrack_lineage_known, or null),
--    "edges": [ids, depths, nearIds, farKinds, farIds, farLabels, farOrderIds, farCustomerIds, weightsKg, groupIds,
--              createdAtsEpochSeconds]          (nulls when none),
--    "customers": [ids, codes, names]          (every customer an order line names; nulls when none),
--    "depthLimitReached": boolean}
-- edges one row per edge and depth it was reached at, in no particular order; the far end's label (and an
-- order line's order and customer) are what the edge copied of it, or for a producer (whose name can
-- change) its name now. Edge times are epoch seconds (a double, to the microsecond): as cheap to write out
-- as a timestamp, shorter, and read without parsing a date. Null when the start does not exist: no row of
-- its kind and no edge.
--
-- A repeatable migration: this is the one current text of these functions, re-applied whenever it changes
-- (create or replace keeps the grant; a change of signature drops the old function in a versioned migration).
do $migration$
declare
  trace_function constant text := $template$
    create or replace function %1$s(trace_org text, trace_kind text, trace_id text, walk_depth_limit int)
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
