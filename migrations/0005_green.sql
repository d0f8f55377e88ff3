-- Green coffee inventory: lots, their append-only ledger, materialised balances, landed cost, and the
-- general lineage graph that every later stage (roasting, blending, packing, orders) extends.
--
-- Invariants, kept by src/modules/inventory/green/repository.ts in the same transaction as each ledger
-- row and checked by the module's tests:
--   green_lot_balances.on_hand_kg  = sum(green_lot_ledger.delta_kg) for that lot and location (null = unassigned)
--   green_lots.on_hand_kg          = sum(delta_kg) over the lot = sum of its balances
--   green_lots.reserved_kg         = sum(reserved_delta_kg) over the lot
--   green_lots.opening_kg          = sum(delta_kg) of the lot's receive and split_in rows (landed-cost basis)
--   green_lots.ledger_seq          = number of ledger rows of the lot (each row's seq is 1..ledger_seq)

create table green_lots (
  org_id text not null references organizations (id),
  id text not null,
  lot_code text not null,
  name text not null,
  supplier_ref text,
  producer_id text,
  partner_id text,
  state text not null default 'green'
    check (state in ('green', 'parchment', 'dry_cherry', 'wet_parchment', 'raw_green', 'decaf_green')),
  varieties text[] not null default '{}',
  process_method text,
  harvest_year int check (harvest_year between 1900 and 2200),
  certifications text[] not null default '{}',
  bag_count int check (bag_count >= 0),
  bag_weight_kg numeric(14, 3) check (bag_weight_kg > 0),
  unit_cost numeric(18, 4) check (unit_cost >= 0),
  currency text,
  min_weight_kg numeric(14, 3) check (min_weight_kg >= 0),
  notes text,
  quarantined boolean not null default false,
  quarantine_reason text,
  -- Materialised from the ledger (see the invariants above); never written except with a ledger row.
  on_hand_kg numeric(14, 3) not null default 0,
  reserved_kg numeric(14, 3) not null default 0 check (reserved_kg >= 0),
  opening_kg numeric(14, 3) not null default 0,
  ledger_seq int not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (org_id, id),
  unique (org_id, lot_code),
  foreign key (org_id, producer_id) references producers (org_id, id),
  foreign key (org_id, partner_id) references partners (org_id, id),
  constraint green_lots_unit_cost_currency check (unit_cost is null or currency is not null)
);
select firstcrack_tenant_table('green_lots');
create index green_lots_by_producer on green_lots (org_id, producer_id) where producer_id is not null;
create index green_lots_by_partner on green_lots (org_id, partner_id) where partner_id is not null;

-- Every change to a lot's stock or reservations, in order per lot (seq). Stock rows move delta_kg at one
-- location (null = not yet placed anywhere); reservation rows (reserve, release) move reserved_delta_kg and
-- no stock. Rows of one movement (a transfer's two legs, a split, a merge) share group_id.
create table green_lot_ledger (
  org_id text not null references organizations (id),
  id text not null,
  lot_id text not null,
  seq int not null check (seq > 0),
  kind text not null,
  location_id text,
  delta_kg numeric(14, 3) not null,
  reserved_delta_kg numeric(14, 3) not null default 0,
  group_id text,
  credential_id text not null,
  comment text,
  created_at timestamptz not null default now(),
  primary key (org_id, id),
  unique (org_id, lot_id, seq),
  foreign key (org_id, lot_id) references green_lots (org_id, id),
  foreign key (org_id, location_id) references locations (org_id, id),
  constraint green_lot_ledger_kind check (kind in (
    'receive', 'adjust', 'shrinkage', 'write_off', 'recount', 'sample_draw', 'return',
    'transfer_out', 'transfer_in', 'split_out', 'split_in', 'merge_out', 'merge_in',
    'reserve', 'release')),
  constraint green_lot_ledger_moves_one_thing check (
    case when kind in ('reserve', 'release')
      then delta_kg = 0 and location_id is null and reserved_delta_kg <> 0
      else reserved_delta_kg = 0 and delta_kg <> 0 end)
);
select firstcrack_tenant_table('green_lot_ledger');
select firstcrack_append_only('green_lot_ledger');
create index green_lot_ledger_by_group on green_lot_ledger (org_id, group_id) where group_id is not null;

-- One row per lot and location the lot has ever been held at; location_id null is the unassigned balance.
create table green_lot_balances (
  org_id text not null references organizations (id),
  lot_id text not null,
  location_id text,
  on_hand_kg numeric(14, 3) not null,
  updated_at timestamptz not null default now(),
  constraint green_lot_balances_key unique nulls not distinct (org_id, lot_id, location_id),
  foreign key (org_id, lot_id) references green_lots (org_id, id),
  foreign key (org_id, location_id) references locations (org_id, id)
);
select firstcrack_tenant_table('green_lot_balances');
-- listGreenLots' locationId filter: the lots holding stock at a location.
create index green_lot_balances_held_at on green_lot_balances (org_id, location_id, lot_id) where on_hand_kg > 0;

-- Landed cost components, versioned: setGreenLotCostComponents appends a new version and the rollup
-- names the current one, so earlier versions stay as the history of what the coffee was said to cost.
create table green_lot_cost_components (
  org_id text not null references organizations (id),
  id text not null,
  lot_id text not null,
  version int not null check (version > 0),
  position int not null,
  bucket text not null check (bucket in ('price', 'freight', 'duty', 'carry', 'other')),
  amount numeric(18, 4) not null check (amount >= 0),
  currency text not null,
  basis text not null check (basis in ('total', 'per_kg')),
  description text,
  created_at timestamptz not null default now(),
  primary key (org_id, id),
  unique (org_id, lot_id, version, position),
  foreign key (org_id, lot_id) references green_lots (org_id, id)
);
select firstcrack_tenant_table('green_lot_cost_components');
select firstcrack_append_only('green_lot_cost_components');

-- The rollup of a lot's current component version: one row per lot that has had components set.
create table green_lot_landed_costs (
  org_id text not null references organizations (id),
  lot_id text not null,
  version int not null,
  currency text,
  price numeric(20, 4) not null,
  freight numeric(20, 4) not null,
  duty numeric(20, 4) not null,
  carry numeric(20, 4) not null,
  other numeric(20, 4) not null,
  total numeric(20, 4) not null,
  weight_basis_kg numeric(14, 3) not null,
  per_kg numeric(20, 4),
  updated_at timestamptz not null default now(),
  primary key (org_id, lot_id),
  foreign key (org_id, lot_id) references green_lots (org_id, id)
);
select firstcrack_tenant_table('green_lot_landed_costs');

-- Lineage between anything coffee passes through, by the specification's trace kinds. Edges are facts
-- about what happened (append-only); weight_kg is how much coffee followed the edge, when known.
create table lineage_edges (
  org_id text not null references organizations (id),
  id text not null,
  from_kind text not null,
  from_id text not null,
  to_kind text not null,
  to_id text not null,
  weight_kg numeric(14, 3),
  group_id text,
  created_at timestamptz not null default now(),
  primary key (org_id, id),
  constraint lineage_edges_kinds check (
    from_kind in ('producer', 'green_lot', 'roast_batch', 'roasted_lot', 'blend_lot', 'product_batch', 'order_line')
    and to_kind in ('producer', 'green_lot', 'roast_batch', 'roasted_lot', 'blend_lot', 'product_batch', 'order_line')),
  constraint lineage_edges_not_a_loop check (from_kind <> to_kind or from_id <> to_id)
);
select firstcrack_tenant_table('lineage_edges');
select firstcrack_append_only('lineage_edges');
create index lineage_edges_downstream on lineage_edges (org_id, from_kind, from_id);
create index lineage_edges_upstream on lineage_edges (org_id, to_kind, to_id);
