-- Traceability certificates: the chain behind a roasted lot frozen at issue time, readable by anyone
-- holding the certificate's public token (the QR code on the bag).

create table certificates (
  org_id text not null references organizations (id),
  id text not null,
  -- 128 random bits, base64url: the capability to read this one certificate's public page.
  token text not null unique,
  roasted_lot_id text not null,
  order_line_id text,
  fulfillment_id text,
  -- What the public page shows, as it was when issued; never rewritten (the table is append-only).
  snapshot jsonb not null,
  issued_at timestamptz not null default now(),
  credential_id text not null,
  primary key (org_id, id),
  foreign key (org_id, roasted_lot_id) references roasted_lots (org_id, id),
  foreign key (org_id, order_line_id) references order_lines (org_id, id),
  foreign key (org_id, fulfillment_id) references fulfillments (org_id, id)
);
select firstcrack_tenant_table('certificates');
select firstcrack_append_only('certificates');
create index certificates_newest on certificates (org_id, issued_at desc, id desc);
create index certificates_by_roasted_lot on certificates (org_id, roasted_lot_id, issued_at desc);

-- The public page knows only the token, not the organization, so the lookup runs as the owner. It
-- answers one certificate's frozen snapshot and the roaster's name, nothing else.
create function firstcrack_certificate_by_token(public_token text)
returns table (id text, organization_name text, snapshot jsonb, issued_at timestamptz)
language sql stable security definer set search_path = public as $$
  select c.id, o.name, c.snapshot, c.issued_at
  from certificates c join organizations o on o.id = c.org_id
  where c.token = public_token
$$;
grant execute on function firstcrack_certificate_by_token(text) to firstcrack_app;

-- The trace behind traceability.traceBackward and traceForward, getRoastedLotTraceability and certificates
-- (called by src/modules/traceability/repository.ts). One statement: a recursive walk over lineage_edges
-- from the start, upstream (walk_backward) or downstream, to at most walk_depth_limit edges; each reached
-- node labelled from its own kind's table; the answer as one JSON document. It lives in a PL/pgSQL function
-- so each connection plans it once (a generic plan) instead of on every trace: planning this statement
-- costs more than running it for a typical chain.
--
-- Each walk row is one edge at one depth (`far` is the side the walk discovered). UNION drops a row
-- already produced, and the depth limit ends cycles. The two directions are two branches of one lateral
-- join, of which the direction's one-time filter runs only one, each on its index (lineage_edges_upstream,
-- lineage_edges_downstream). SECURITY INVOKER: row-level security applies as to any query of the service.
create function firstcrack_trace(trace_org text, trace_kind text, trace_id text, walk_backward boolean, walk_depth_limit int)
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
    edges as (
      select distinct on (edge_id) * from walk where edge_id is not null order by edge_id, depth
    ),
    nodes as (
      select trace_kind as kind, trace_id as id, 0 as depth
      union all
      select far_kind, far_id, min(depth) from edges
      where not (far_kind = trace_kind and far_id = trace_id)
      group by far_kind, far_id
    ),
    labelled as (
      -- One lookup per node, in its own kind's table (CASE runs only the branch that applies): the label,
      -- and for an order line also its order and customer. Blend lots are blended roasted lots; product
      -- batches have no table and are known by their edges alone.
      select n.kind, n.id, n.depth,
             case n.kind
               when 'producer' then (select array[p.name] from producers p where p.org_id = trace_org and p.id = n.id)
               when 'green_lot' then (select array[g.lot_code || ' (' || g.name || ')'] from green_lots g where g.org_id = trace_org and g.id = n.id)
               when 'roast_batch' then (select array[b.batch_number] from roast_batches b where b.org_id = trace_org and b.id = n.id)
               when 'roasted_lot' then (select array[r.lot_code] from roasted_lots r where r.org_id = trace_org and r.id = n.id)
               when 'blend_lot' then (select array[r.lot_code] from roasted_lots r where r.org_id = trace_org and r.id = n.id)
               when 'order_line' then (
                 select array[o.order_number || ' line ' || l.line_number, o.id, c.id, c.code, c.name]
                 from order_lines l
                 join orders o on o.org_id = l.org_id and o.id = l.order_id
                 join customers c on c.org_id = o.org_id and c.id = o.customer_id
                 where l.org_id = trace_org and l.id = n.id)
             end as known
      from nodes n
    )
    -- json, not jsonb: the answer is only ever parsed by the service, so it is built as text; rows are
    -- positional arrays (the repository names their fields), which is cheaper to build and to parse.
    select json_build_object(
      'exists', (select known is not null from labelled where depth = 0)
                or exists (select 1 from lineage_edges e where e.org_id = trace_org and e.from_kind = trace_kind and e.from_id = trace_id)
                or exists (select 1 from lineage_edges e where e.org_id = trace_org and e.to_kind = trace_kind and e.to_id = trace_id),
      'nodes', (select json_agg(json_build_array(kind, id, depth, known) order by depth, kind, id) from labelled),
      'edges', coalesce((select json_agg(json_build_array(edge_id, from_kind, from_id, to_kind, to_id, weight_kg::text, group_id, created_at)
                                  order by depth, edge_id) from edges), '[]'::json),
      'depthLimitReached', exists (
        select 1 from edges w
        where w.depth = walk_depth_limit
          and exists (select 1 from lineage_edges e where walk_backward and e.org_id = trace_org and e.to_kind = w.far_kind and e.to_id = w.far_id
                      union all
                      select 1 from lineage_edges e where not walk_backward and e.org_id = trace_org and e.from_kind = w.far_kind and e.from_id = w.far_id))
    )
  );
end $$;
grant execute on function firstcrack_trace(text, text, text, boolean, int) to firstcrack_app;
