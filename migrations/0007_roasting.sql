-- Roasting: profiles, roast batches and their curves, roasted stock with its own append-only ledger,
-- production schedules, and the demand they are planned from.
--
-- Invariants, kept by the repositories in the same transaction as each ledger row and checked by the tests:
--   roasted_lots.on_hand_kg  = sum(roasted_lot_ledger.delta_kg) of the lot
--   roasted_lots.opening_kg  = sum(delta_kg) of the lot's roast_output rows
--   roasted_lots.ledger_seq  = number of ledger rows of the lot (each row's seq is 1..ledger_seq)
--   a completed roast batch that names a green lot has exactly one roast_consume row in green_lot_ledger
--   (group_id = the batch id) and exactly one loose roasted lot; a batch without a green lot moves no stock.

-- Green coffee leaves its lot when a roast batch that used it completes.
alter table green_lot_ledger drop constraint green_lot_ledger_kind;
alter table green_lot_ledger add constraint green_lot_ledger_kind check (kind in (
  'receive', 'adjust', 'shrinkage', 'write_off', 'recount', 'sample_draw', 'return',
  'transfer_out', 'transfer_in', 'split_out', 'split_in', 'merge_out', 'merge_in',
  'reserve', 'release', 'roast_consume'));

-- Targets a batch is compared against (getRoastBatch's profileComparison). A profile may be bound to one machine.
create table roast_profiles (
  org_id text not null references organizations (id),
  id text not null,
  code text not null,
  name text not null,
  machine_id text,
  target_charge_kg numeric(10, 3) check (target_charge_kg > 0),
  target_drop_temp_c numeric(5, 1) check (target_drop_temp_c > 0 and target_drop_temp_c < 400),
  target_total_time_s int check (target_total_time_s > 0),
  target_dtr_pct numeric(5, 2) check (target_dtr_pct > 0 and target_dtr_pct < 100),
  notes text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (org_id, id),
  unique (org_id, code),
  foreign key (org_id, machine_id) references machines (org_id, id)
);
select firstcrack_tenant_table('roast_profiles');

-- A roast batch is 'live' from startRoastBatch until completeRoastBatch makes it 'completed'; an imported
-- logger roast passes through 'live' inside its one transaction and is only ever seen completed. Metrics
-- are derived once, at completion, from the whole curve.
create table roast_batches (
  org_id text not null references organizations (id),
  id text not null,
  batch_number text not null,
  source text not null check (source in ('live', 'import')),
  state text not null check (state in ('live', 'completed')),
  machine_id text,
  profile_id text,
  green_lot_id text,
  location_id text,
  charge_weight_kg numeric(10, 3) check (charge_weight_kg > 0),
  drop_weight_kg numeric(10, 3) check (drop_weight_kg > 0),
  -- round((charge - drop) / charge × 100, 2), exact in numeric; null without both weights.
  weight_loss_pct numeric(5, 2),
  import_format text,
  -- The importer's and the completion's remarks (no charge event, weights taken from the file, ...).
  warnings text[] not null default '{}',
  metrics jsonb,
  notes text,
  -- Kept to the millisecond, the precision of the list cursor.
  started_at timestamptz not null,
  completed_at timestamptz,
  credential_id text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (org_id, id),
  unique (org_id, batch_number),
  foreign key (org_id, machine_id) references machines (org_id, id),
  foreign key (org_id, profile_id) references roast_profiles (org_id, id),
  foreign key (org_id, green_lot_id) references green_lots (org_id, id),
  foreign key (org_id, location_id) references locations (org_id, id),
  constraint roast_batches_completed_at check ((state = 'completed') = (completed_at is not null)),
  constraint roast_batches_live_needs_machine check (source = 'import' or (machine_id is not null and charge_weight_kg is not null)),
  constraint roast_batches_drop_within_charge check (drop_weight_kg is null or charge_weight_kg is null or drop_weight_kg <= charge_weight_kg),
  constraint roast_batches_green_needs_weights check (green_lot_id is null or state = 'live' or (charge_weight_kg is not null and drop_weight_kg is not null))
);
select firstcrack_tenant_table('roast_batches');
-- listRoastBatches: newest first, and its filters.
create index roast_batches_newest on roast_batches (org_id, started_at desc, id desc);
create index roast_batches_by_machine on roast_batches (org_id, machine_id, started_at desc);
create index roast_batches_by_profile on roast_batches (org_id, profile_id, started_at desc) where profile_id is not null;
create index roast_batches_by_green_lot on roast_batches (org_id, green_lot_id) where green_lot_id is not null;

-- The database copy of a completed batch's curve: one sample per second (the full-fidelity copy is the
-- object full_curve_key in the blob store). Written once, at completion.
create table roast_curves (
  org_id text not null references organizations (id),
  batch_id text not null,
  samples jsonb not null,
  events jsonb not null,
  sample_count int not null,
  full_sample_count int not null,
  full_curve_key text not null,
  created_at timestamptz not null default now(),
  primary key (org_id, batch_id),
  foreign key (org_id, batch_id) references roast_batches (org_id, id)
);
select firstcrack_tenant_table('roast_curves');
select firstcrack_append_only('roast_curves');

-- Roasted stock: loose (straight from a roast batch), packaged or blended. Its weight moves only with a
-- roasted_lot_ledger row, in the same transaction (see the invariants above).
create table roasted_lots (
  org_id text not null references organizations (id),
  id text not null,
  lot_code text not null,
  form text not null check (form in ('loose', 'packaged', 'blended')),
  roast_batch_id text,
  green_lot_id text,
  profile_id text,
  location_id text,
  roasted_at timestamptz not null,
  weight_loss_pct numeric(5, 2),
  on_hand_kg numeric(14, 3) not null default 0,
  opening_kg numeric(14, 3) not null default 0,
  ledger_seq int not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (org_id, id),
  unique (org_id, lot_code),
  foreign key (org_id, roast_batch_id) references roast_batches (org_id, id),
  foreign key (org_id, green_lot_id) references green_lots (org_id, id),
  foreign key (org_id, profile_id) references roast_profiles (org_id, id),
  foreign key (org_id, location_id) references locations (org_id, id)
);
select firstcrack_tenant_table('roasted_lots');
-- A batch's output is one loose lot: a second completion could never book the roast twice.
create unique index roasted_lots_one_output_per_batch on roasted_lots (org_id, roast_batch_id) where form = 'loose';
-- listRoastedLots: freshness first.
create index roasted_lots_freshest on roasted_lots (org_id, roasted_at desc, id desc);
create index roasted_lots_by_green_lot on roasted_lots (org_id, green_lot_id) where green_lot_id is not null;

create table roasted_lot_ledger (
  org_id text not null references organizations (id),
  id text not null,
  lot_id text not null,
  seq int not null check (seq > 0),
  kind text not null,
  delta_kg numeric(14, 3) not null check (delta_kg <> 0),
  credential_id text not null,
  comment text,
  created_at timestamptz not null default now(),
  primary key (org_id, id),
  unique (org_id, lot_id, seq),
  foreign key (org_id, lot_id) references roasted_lots (org_id, id),
  constraint roasted_lot_ledger_kind check (kind in (
    'roast_output', 'adjust', 'shrinkage', 'write_off', 'recount', 'sample_draw', 'return'))
);
select firstcrack_tenant_table('roasted_lot_ledger');
select firstcrack_append_only('roasted_lot_ledger');

-- What production must roast: one row per confirmed sales order line, in roasted kilograms, with what is
-- already allocated to it from roasted stock and what decides how it is roasted. Sales orders arrive with
-- the orders module, which replaces this view (create or replace view, same columns, security_invoker so
-- its tables' row-level security applies); until then there is no demand and the view is empty.
create view roast_demand with (security_invoker = true) as
select
  null::text as org_id,
  null::text as order_line_id,
  null::date as due_date,
  null::text as profile_id,
  null::text as green_lot_id,
  null::text as roast_level,
  null::boolean as is_decaf,
  null::numeric(14, 3) as ordered_kg,
  null::numeric(14, 3) as allocated_kg,
  null::numeric(5, 2) as expected_loss_pct
where false;

-- A production schedule is generated as a 'draft' and becomes 'released' when a person with
-- production.schedule.approve commits it to the roasting floor. Feasibility notes are part of the draft.
create table production_schedules (
  org_id text not null references organizations (id),
  id text not null,
  name text not null,
  scheduled_date date not null,
  location_id text,
  due_before date,
  max_batches_per_machine int check (max_batches_per_machine > 0),
  state text not null default 'draft' check (state in ('draft', 'released')),
  notes jsonb not null default '[]',
  credential_id text not null,
  released_at timestamptz,
  released_by text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (org_id, id),
  foreign key (org_id, location_id) references locations (org_id, id),
  constraint production_schedules_released check ((state = 'released') = (released_at is not null and released_by is not null))
);
select firstcrack_tenant_table('production_schedules');

-- The batches of a schedule in the order they are to be roasted: position across the schedule,
-- machine_sequence on each machine.
create table scheduled_batches (
  org_id text not null references organizations (id),
  id text not null,
  schedule_id text not null,
  position int not null check (position > 0),
  machine_id text not null,
  machine_sequence int not null check (machine_sequence > 0),
  profile_id text,
  green_lot_id text,
  roast_level text check (roast_level in ('light', 'medium', 'dark')),
  is_decaf boolean not null,
  green_kg numeric(10, 3) not null check (green_kg > 0),
  expected_roasted_kg numeric(10, 3) not null check (expected_roasted_kg > 0),
  expected_loss_pct numeric(5, 2) not null,
  created_at timestamptz not null default now(),
  primary key (org_id, id),
  unique (org_id, schedule_id, position),
  foreign key (org_id, schedule_id) references production_schedules (org_id, id),
  foreign key (org_id, machine_id) references machines (org_id, id),
  foreign key (org_id, profile_id) references roast_profiles (org_id, id),
  foreign key (org_id, green_lot_id) references green_lots (org_id, id)
);
select firstcrack_tenant_table('scheduled_batches');
select firstcrack_append_only('scheduled_batches');
