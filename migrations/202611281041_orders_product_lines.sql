-- Order lines that name a product instead of a lot: the line keeps what the product was made of when the
-- order was taken (profile_id or blend_id, roast_level), so a later change to the product does not change
-- what an accepted order is filled from. quantity_units: the line was ordered in units of the product
-- (bags), quantity_kg = units × the product's net weight; its unit_price is then per unit.
alter table order_lines
  add column blend_id text,
  add column roast_level text check (roast_level in ('light', 'medium', 'dark')),
  add column quantity_units int check (quantity_units > 0),
  add constraint order_lines_blend foreign key (org_id, blend_id) references blends (org_id, id),
  drop constraint order_lines_one_source,
  drop constraint order_lines_profile_with_green_lot,
  -- Exactly one source: a roasted lot; a green lot (optionally narrowed to a profile); or, for a product
  -- line, the product's profile or blend.
  add constraint order_lines_one_source check (
    case when roasted_lot_id is not null then green_lot_id is null and profile_id is null and blend_id is null
         when green_lot_id is not null then blend_id is null
         else product_id is not null and ((profile_id is null) <> (blend_id is null)) end);

-- What production must roast (see 0009_orders.sql; same columns): a product line made with a profile is
-- demand for that profile (any green lot); a blend line is demand for each component's green lot, its share
-- of the line by the recipe's ratio (rounded cumulatively, so the shares add up to the line), less what is claimed from roasts of that green lot.
create or replace view roast_demand with (security_invoker = true) as
select
  l.org_id::text as org_id,
  l.id::text as order_line_id,
  coalesce((o.requested_ship_at at time zone 'UTC')::date, (o.confirmed_at at time zone 'UTC')::date)::date as due_date,
  coalesce(l.profile_id, r.profile_id)::text as profile_id,
  coalesce(l.green_lot_id, r.green_lot_id)::text as green_lot_id,
  l.roast_level::text as roast_level,
  coalesce(g.state = 'decaf_green', false)::boolean as is_decaf,
  l.quantity_kg::numeric(14, 3) as ordered_kg,
  coalesce(claimed.kg, 0)::numeric(14, 3) as allocated_kg,
  coalesce(r.weight_loss_pct, history.loss_pct)::numeric(5, 2) as expected_loss_pct
from order_lines l
join orders o on o.org_id = l.org_id and o.id = l.order_id
left join roasted_lots r on r.org_id = l.org_id and r.id = l.roasted_lot_id
left join green_lots g on g.org_id = l.org_id and g.id = coalesce(l.green_lot_id, r.green_lot_id)
left join lateral (
  select sum(a.quantity_kg) as kg from order_allocations a
  where a.org_id = l.org_id and a.order_line_id = l.id and a.released_at is null and a.fulfilled_at is null
) claimed on true
left join lateral (
  select round(avg(b.weight_loss_pct), 2) as loss_pct from roast_batches b
  where (l.green_lot_id is not null or l.profile_id is not null) and b.org_id = l.org_id
    and (l.green_lot_id is null or b.green_lot_id = l.green_lot_id)
    and b.weight_loss_pct is not null and (l.profile_id is null or b.profile_id = l.profile_id)
) history on true
where o.state in ('confirmed', 'partially_allocated', 'allocated') and l.blend_id is null
union all
select
  l.org_id::text,
  l.id::text,
  coalesce((o.requested_ship_at at time zone 'UTC')::date, (o.confirmed_at at time zone 'UTC')::date)::date,
  null::text,
  c.green_lot_id::text,
  coalesce(l.roast_level, b.roast_level)::text,
  (b.is_decaf or coalesce(g.state = 'decaf_green', false))::boolean,
  -- Cumulative rounding: the components' shares add up to the line exactly (as allocation splits it).
  (round(l.quantity_kg * c.cum_pct / 100, 3) - round(l.quantity_kg * (c.cum_pct - c.ratio_pct) / 100, 3))::numeric(14, 3),
  coalesce(claimed.kg, 0)::numeric(14, 3),
  history.loss_pct::numeric(5, 2)
from order_lines l
join orders o on o.org_id = l.org_id and o.id = l.order_id
join blends b on b.org_id = l.org_id and b.id = l.blend_id
join (
  select org_id, blend_id, green_lot_id, ratio_pct, sum(ratio_pct) over (partition by org_id, blend_id order by position) as cum_pct
  from blend_components
) c on c.org_id = l.org_id and c.blend_id = l.blend_id
left join green_lots g on g.org_id = l.org_id and g.id = c.green_lot_id
left join lateral (
  select sum(a.quantity_kg) as kg from order_allocations a
  join roasted_lots r on r.org_id = a.org_id and r.id = a.roasted_lot_id
  where a.org_id = l.org_id and a.order_line_id = l.id and a.released_at is null and a.fulfilled_at is null
    and r.green_lot_id = c.green_lot_id
) claimed on true
left join lateral (
  select round(avg(rb.weight_loss_pct), 2) as loss_pct from roast_batches rb
  where rb.org_id = l.org_id and rb.green_lot_id = c.green_lot_id and rb.weight_loss_pct is not null
) history on true
where o.state in ('confirmed', 'partially_allocated', 'allocated') and l.blend_id is not null;
