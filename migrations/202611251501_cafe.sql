-- Cafe: sites, their bar machines, the shots the machines post, hourly shot and sale rollups, POS sale
-- lines and daily reconciliations. Shots, sale lines and reconciliations are history (append-only); the
-- rollups are counters kept in the same transaction as the rows they count, so performance questions are
-- answered without scanning raw shots.

create table cafe_sites (
  org_id text not null references organizations (id),
  id text not null,
  code text not null,
  name text not null,
  location_id text,
  timezone text not null,
  -- The shot target every group head of the site is judged against (defaults in src/modules/cafe/targets.ts).
  shot_target jsonb not null,
  created_at timestamptz not null default now(),
  primary key (org_id, id),
  unique (org_id, code)
);
select firstcrack_tenant_table('cafe_sites');

create table cafe_machines (
  org_id text not null references organizations (id),
  id text not null,
  site_id text not null,
  code text not null,
  name text not null,
  kind text not null check (kind in ('espresso_machine', 'grinder', 'batch_brewer', 'water_system')),
  group_count int not null check (group_count between 0 and 6),
  brand text,
  model text,
  device_id text,
  created_at timestamptz not null default now(),
  primary key (org_id, id),
  foreign key (org_id, site_id) references cafe_sites (org_id, id),
  -- Codes are unique per site (every cafe has its EM1); named so a duplicate names the field `code`.
  constraint cafe_machines_org_id_code_key unique (org_id, site_id, code),
  unique (org_id, device_id),
  check ((kind = 'espresso_machine') = (group_count >= 1))
);
select firstcrack_tenant_table('cafe_machines');
create index cafe_machines_by_site on cafe_machines (org_id, site_id, id);

create table cafe_shots (
  org_id text not null references organizations (id),
  id text not null,
  site_id text not null,
  machine_id text not null,
  -- The machine's own id for the shot: a resent shot is recognised by it and stored once.
  shot_id text not null,
  group_no int not null check (group_no between 1 and 6),
  started_at timestamptz not null,
  duration_s double precision not null check (duration_s >= 0),
  dose_g double precision not null check (dose_g >= 0),
  yield_g double precision not null check (yield_g >= 0),
  outside_target boolean not null,
  channeling boolean not null,
  series jsonb,
  received_at timestamptz not null default now(),
  primary key (org_id, id),
  foreign key (org_id, machine_id) references cafe_machines (org_id, id),
  unique (org_id, machine_id, shot_id)
);
select firstcrack_tenant_table('cafe_shots');
select firstcrack_append_only('cafe_shots');
create index cafe_shots_by_time on cafe_shots (org_id, site_id, started_at, id);

create table cafe_shot_rollups (
  org_id text not null references organizations (id),
  site_id text not null,
  hour timestamptz not null check (date_trunc('hour', hour) = hour),
  machine_id text not null,
  group_no int not null,
  -- The site's local day and hour of the hour's start, fixed at write (a site's timezone never changes),
  -- so performance reads group by them without converting every row.
  local_date date not null,
  local_hour int not null check (local_hour between 0 and 23),
  shots int not null,
  outside_target int not null,
  channeling int not null,
  duration_sum_s double precision not null,
  primary key (org_id, site_id, hour, machine_id, group_no)
);
select firstcrack_tenant_table('cafe_shot_rollups');

create table cafe_pos_sales (
  org_id text not null references organizations (id),
  id text not null,
  site_id text not null,
  -- The POS system's own line id: re-importing it adds nothing.
  pos_line_id text not null,
  sold_at timestamptz not null,
  item text not null,
  quantity int not null check (quantity >= 1),
  shot_equivalents int not null check (shot_equivalents >= 0),
  created_at timestamptz not null default now(),
  primary key (org_id, id),
  foreign key (org_id, site_id) references cafe_sites (org_id, id),
  unique (org_id, site_id, pos_line_id)
);
select firstcrack_tenant_table('cafe_pos_sales');
select firstcrack_append_only('cafe_pos_sales');
create index cafe_pos_sales_by_time on cafe_pos_sales (org_id, site_id, sold_at);

create table cafe_sale_rollups (
  org_id text not null references organizations (id),
  site_id text not null,
  hour timestamptz not null check (date_trunc('hour', hour) = hour),
  local_date date not null,
  local_hour int not null check (local_hour between 0 and 23),
  lines int not null,
  shot_equivalents bigint not null,
  primary key (org_id, site_id, hour)
);
select firstcrack_tenant_table('cafe_sale_rollups');

create table cafe_reconciliations (
  org_id text not null references organizations (id),
  id text not null,
  site_id text not null,
  business_date date not null,
  version int not null check (version >= 1),
  timezone text not null,
  day_start timestamptz not null,
  day_end timestamptz not null,
  shots_pulled int not null,
  sale_shot_equivalents bigint not null,
  variance bigint not null,
  machines jsonb not null,
  created_at timestamptz not null default now(),
  primary key (org_id, id),
  foreign key (org_id, site_id) references cafe_sites (org_id, id),
  unique (org_id, site_id, business_date, version)
);
select firstcrack_tenant_table('cafe_reconciliations');
select firstcrack_append_only('cafe_reconciliations');
