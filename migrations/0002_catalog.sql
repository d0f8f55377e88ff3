-- Catalog: locations, trading partners, producers, roasting machines, products.
-- Every key starts with org_id, and references are composite (org_id, id), so a row can never point
-- at another organization's row, whatever the application does.

create table locations (
  org_id text not null references organizations (id),
  id text not null,
  code text not null,
  name text not null,
  kind text not null check (kind in ('the service', 'warehouse', 'cafe', 'lab', 'transit', 'external')),
  address jsonb,
  timezone text,
  is_active boolean not null default true,
  archived_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (org_id, id),
  unique (org_id, code)
);
select firstcrack_tenant_table('locations');

create table partners (
  org_id text not null references organizations (id),
  id text not null,
  code text not null,
  name text not null,
  types text[] not null check (cardinality(types) > 0),
  country text,
  default_currency text,
  payment_terms_days int,
  contact_email text,
  contact_phone text,
  website text,
  notes text,
  is_active boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (org_id, id),
  unique (org_id, code)
);
select firstcrack_tenant_table('partners');
create index partners_types on partners using gin (types);

create table producers (
  org_id text not null references organizations (id),
  id text not null,
  code text not null,
  name text not null,
  kind text not null check (kind in ('farm', 'cooperative', 'washing_station', 'estate', 'smallholder_group')),
  partner_id text,
  country text,
  region text,
  subregion text,
  altitude_min_m int,
  altitude_max_m int,
  latitude numeric(8, 6) check (latitude between -90 and 90),
  longitude numeric(9, 6) check (longitude between -180 and 180),
  varieties text[] not null default '{}',
  process_methods text[] not null default '{}',
  farm_size_ha numeric(12, 3),
  is_active boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (org_id, id),
  unique (org_id, code),
  foreign key (org_id, partner_id) references partners (org_id, id),
  constraint producers_altitude_range check (altitude_min_m is null or altitude_max_m is null or altitude_min_m <= altitude_max_m)
);
select firstcrack_tenant_table('producers');

create table machines (
  org_id text not null references organizations (id),
  id text not null,
  code text not null,
  name text not null,
  location_id text,
  brand text,
  model text,
  machine_type text check (machine_type in ('drum', 'fluid_bed', 'recirculating', 'sample', 'tangential', 'centrifugal')),
  capacity_kg numeric(10, 3),
  min_batch_kg numeric(10, 3),
  max_batch_kg numeric(10, 3),
  connectivity text check (connectivity in ('none', 'logger', 'bridge', 'modbus', 'serial', 'cloud_api')),
  installed_at date,
  is_active boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (org_id, id),
  unique (org_id, code),
  foreign key (org_id, location_id) references locations (org_id, id),
  constraint machines_batch_range check (
    (min_batch_kg is null or max_batch_kg is null or min_batch_kg <= max_batch_kg)
    and (max_batch_kg is null or capacity_kg is null or max_batch_kg <= capacity_kg)
    and (min_batch_kg is null or capacity_kg is null or min_batch_kg <= capacity_kg))
);
select firstcrack_tenant_table('machines');

create table products (
  org_id text not null references organizations (id),
  id text not null,
  sku text not null,
  name text not null,
  format text not null check (format in ('whole_bean', 'ground_espresso', 'ground_filter', 'ground_french_press', 'capsule', 'instant', 'drip_bag', 'bulk')),
  net_weight_kg numeric(12, 3),
  list_price numeric(14, 4),
  currency text,
  barcode text,
  is_active boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (org_id, id),
  unique (org_id, sku)
);
select firstcrack_tenant_table('products');
