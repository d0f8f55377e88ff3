-- Sales: customers, orders and their lines, allocation claims on roasted stock, fulfilments, and the
-- roast demand production plans from.
--
-- Invariants, kept by src/modules/orders/repository.ts in the same transaction as each change:
--   a claim is active while released_at and fulfilled_at are both null; active claims on a roasted lot
--   never add up to more than the lot's on-hand weight at the moment they were made (every claim is made
--   under the lot's row lock, FOR UPDATE, taken in lot-id order);
--   the active claims of an order line never add up to more than its quantity;
--   orders.state is 'allocated' when every line is fully claimed, 'partially_allocated' when some claim
--   exists and some line is short, 'confirmed' when no claim is active (see the module's README section).

create table customers (
  org_id text not null references organizations (id),
  id text not null,
  code text not null,
  name text not null,
  customer_type text check (customer_type in ('wholesale', 'cafe', 'retail', 'distributor', 'subscription', 'internal', 'export')),
  currency text,
  payment_terms_days int check (payment_terms_days between 0 and 365),
  contact_email text,
  shipping_address jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (org_id, id),
  unique (org_id, code)
);
select firstcrack_tenant_table('customers');

create table orders (
  org_id text not null references organizations (id),
  id text not null,
  order_number text not null,
  customer_id text not null,
  channel text not null check (channel in ('direct', 'webstore', 'edi', 'marketplace', 'api')),
  external_order_id text,
  currency text not null,
  requested_ship_at timestamptz,
  state text not null default 'draft'
    check (state in ('draft', 'confirmed', 'partially_allocated', 'allocated', 'fulfilled', 'canceled')),
  cancel_reason text,
  confirmed_at timestamptz,
  fulfilled_at timestamptz,
  canceled_at timestamptz,
  credential_id text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (org_id, id),
  unique (org_id, order_number),
  -- A re-import of the same channel's order is recognised by this key (createOrder: insert … on conflict).
  unique (org_id, channel, external_order_id),
  foreign key (org_id, customer_id) references customers (org_id, id),
  constraint orders_confirmed_at check ((state = 'draft') = (confirmed_at is null) or state = 'canceled'),
  constraint orders_fulfilled_at check ((state = 'fulfilled') = (fulfilled_at is not null)),
  constraint orders_canceled_at check ((state = 'canceled') = (canceled_at is not null))
);
select firstcrack_tenant_table('orders');
create index orders_newest on orders (org_id, id desc);
create index orders_by_customer on orders (org_id, customer_id, id desc);
create index orders_by_state on orders (org_id, state, id desc);

-- Each line names the coffee it is filled from: one roasted lot (roasted_lot_id), or any roast of one green
-- coffee (green_lot_id, optionally only roasts with profile_id). product_id names the article it is sold as.
create table order_lines (
  org_id text not null references organizations (id),
  id text not null,
  order_id text not null,
  line_number int not null check (line_number > 0),
  product_id text,
  roasted_lot_id text,
  green_lot_id text,
  profile_id text,
  quantity_kg numeric(14, 3) not null check (quantity_kg > 0),
  -- Per kilogram, in the order's currency.
  unit_price numeric(18, 4) not null check (unit_price >= 0),
  line_total numeric(20, 4) not null,
  created_at timestamptz not null default now(),
  primary key (org_id, id),
  unique (org_id, order_id, line_number),
  foreign key (org_id, order_id) references orders (org_id, id),
  foreign key (org_id, product_id) references products (org_id, id),
  foreign key (org_id, roasted_lot_id) references roasted_lots (org_id, id),
  foreign key (org_id, green_lot_id) references green_lots (org_id, id),
  foreign key (org_id, profile_id) references roast_profiles (org_id, id),
  constraint order_lines_one_source check ((roasted_lot_id is null) <> (green_lot_id is null)),
  constraint order_lines_profile_with_green_lot check (profile_id is null or green_lot_id is not null)
);
select firstcrack_tenant_table('order_lines');
select firstcrack_append_only('order_lines');
create index order_lines_by_roasted_lot on order_lines (org_id, roasted_lot_id) where roasted_lot_id is not null;
create index order_lines_by_green_lot on order_lines (org_id, green_lot_id) where green_lot_id is not null;

-- Shipping an allocated order: the weight leaves roasted inventory through the lots' ledgers.
create table fulfillments (
  org_id text not null references organizations (id),
  id text not null,
  order_id text not null,
  credential_id text not null,
  created_at timestamptz not null default now(),
  primary key (org_id, id),
  foreign key (org_id, order_id) references orders (org_id, id)
);
select firstcrack_tenant_table('fulfillments');
select firstcrack_append_only('fulfillments');
create unique index fulfillments_one_per_order on fulfillments (org_id, order_id);

-- Allocation claims: kilograms of a roasted lot promised to an order line. A claim moves no stock; it ends
-- released (the kilograms are available again) or fulfilled (they left with the fulfilment's ledger row).
create table order_allocations (
  org_id text not null references organizations (id),
  id text not null,
  order_id text not null,
  order_line_id text not null,
  roasted_lot_id text not null,
  quantity_kg numeric(14, 3) not null check (quantity_kg > 0),
  strategy text not null check (strategy in ('fefo', 'fifo')),
  -- The order claims were made in (an allocation claims in its strategy's order), for answering them so.
  seq bigint generated always as identity,
  created_at timestamptz not null default now(),
  released_at timestamptz,
  fulfillment_id text,
  fulfilled_at timestamptz,
  primary key (org_id, id),
  foreign key (org_id, order_id) references orders (org_id, id),
  foreign key (org_id, order_line_id) references order_lines (org_id, id),
  foreign key (org_id, roasted_lot_id) references roasted_lots (org_id, id),
  foreign key (org_id, fulfillment_id) references fulfillments (org_id, id),
  constraint order_allocations_one_end check (released_at is null or fulfilled_at is null),
  constraint order_allocations_fulfilled check ((fulfillment_id is null) = (fulfilled_at is null))
);
select firstcrack_tenant_table('order_allocations');
create index order_allocations_active_by_lot on order_allocations (org_id, roasted_lot_id)
  include (quantity_kg) where released_at is null and fulfilled_at is null;
create index order_allocations_by_line on order_allocations (org_id, order_line_id);
create index order_allocations_by_order on order_allocations (org_id, order_id);

-- Roasted coffee is best before roasted_at + shelf_life_days (FEFO allocation sorts by it). 90 days suits
-- whole beans in valve bags; a lot stored otherwise carries its own figure.
alter table roasted_lots add column shelf_life_days int not null default 90 check (shelf_life_days > 0);

-- Fulfilment takes the shipped weight out of a roasted lot with a ledger row of kind 'fulfilment'. The
-- roasting migration owns the list of kinds; this adds one kind to whatever the list is at this point
-- instead of restating it, so the two migrations cannot disagree about the others.
do $$
declare
  definition text;
begin
  select pg_get_constraintdef(oid) into definition
  from pg_constraint where conrelid = 'roasted_lot_ledger'::regclass and conname = 'roasted_lot_ledger_kind';
  if definition is null or definition not like '%ARRAY[%' then
    raise exception 'roasted_lot_ledger_kind is not a list of kinds: %', definition;
  end if;
  if definition not like '%''fulfilment''%' then
    alter table roasted_lot_ledger drop constraint roasted_lot_ledger_kind;
    execute 'alter table roasted_lot_ledger add constraint roasted_lot_ledger_kind '
      || replace(definition, 'ARRAY[', 'ARRAY[''fulfilment''::text, ');
  end if;
end $$;

-- What production must roast (see 0007_roasting.sql for the columns' contract): the lines of confirmed
-- orders that are not fulfilled or canceled, due on the requested ship day (or, without one, on the day
-- the order was confirmed), with the kilograms already claimed from roasted stock. What remains to roast
-- is ordered_kg - allocated_kg. The expected roast loss is the roasted lot's own when the line names one,
-- else the average of earlier roasts of the green lot (with the line's profile when it names one).
create or replace view roast_demand with (security_invoker = true) as
select
  l.org_id::text as org_id,
  l.id::text as order_line_id,
  coalesce((o.requested_ship_at at time zone 'UTC')::date, (o.confirmed_at at time zone 'UTC')::date)::date as due_date,
  coalesce(l.profile_id, r.profile_id)::text as profile_id,
  coalesce(l.green_lot_id, r.green_lot_id)::text as green_lot_id,
  null::text as roast_level,
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
  where l.green_lot_id is not null and b.org_id = l.org_id and b.green_lot_id = l.green_lot_id
    and b.weight_loss_pct is not null and (l.profile_id is null or b.profile_id = l.profile_id)
) history on true
where o.state in ('confirmed', 'partially_allocated', 'allocated');
