-- Plots: the land a producer grows coffee on, as the EU Deforestation Regulation asks for it (a point for a
-- plot up to 4 ha, a polygon above). The geometry is RFC 7946 GeoJSON (WGS 84, longitude first), checked by
-- the service (catalog/party/geometry.ts) before it is stored; jsonb keeps the coordinates exactly as given.
create table plots (
  org_id text not null references organizations (id),
  id text not null,
  producer_id text not null,
  name text not null,
  area_ha numeric(12, 4) not null check (area_ha > 0),
  geometry jsonb not null check (geometry ->> 'type' in ('Point', 'Polygon')),
  -- What turf computes for a polygon, in hectares (null for a point): kept so readers need not recompute it.
  computed_area_ha numeric(14, 4),
  production_from date,
  production_to date,
  created_at timestamptz not null default now(),
  primary key (org_id, id),
  -- Named so a clash answers 409 naming `name` (http/problems.ts reads the field off the name).
  constraint plots_org_id_name_key unique (org_id, producer_id, name),
  foreign key (org_id, producer_id) references producers (org_id, id),
  constraint plots_production_period check (production_from is null or production_to is null or production_from <= production_to)
);
select firstcrack_tenant_table('plots');
