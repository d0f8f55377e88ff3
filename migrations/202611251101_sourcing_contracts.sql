-- Green purchase contracts (src/modules/sourcing/contract): header, lines, shipments, receipts, milestones.
--
-- Invariants, kept by the module's repository in the transaction of each change:
--   green_contracts.total_kg    = the sum of its lines' weight_kg (lines are written once, with the header);
--   green_contracts.shipped_kg  = the sum of its shipments' weight_kg, never above total_kg (checked under the
--                                 contract's row lock, FOR UPDATE, and by the constraint below);
--   green_contracts.received_kg = the sum of its lines' received_kg = the sum of its receipt lines' weight_kg;
--   fixed_value                 = the sum over lines with a fixed price of weight_kg × price_per_kg.
-- The open position (committed and not yet received) is read off these columns: no scan of lines or
-- shipments, whatever the organization's history (see listOpenPositions and bench/sourcing.ts).

create table green_contracts (
  org_id text not null references organizations (id),
  id text not null,
  contract_number text not null,
  partner_id text not null,
  currency text not null,
  price_type text not null check (price_type in ('fixed', 'differential', 'to_be_fixed', 'formula')),
  incoterm text check (incoterm in ('EXW', 'FCA', 'FAS', 'FOB', 'CFR', 'CIF', 'CPT', 'CIP', 'DAP', 'DPU', 'DDP')),
  contract_date date,
  payment_terms_days int check (payment_terms_days between 0 and 3650),
  notes text,
  status text not null default 'draft'
    check (status in ('draft', 'pending', 'confirmed', 'partially_shipped', 'shipped', 'arrived', 'closed', 'canceled', 'defaulted')),
  status_changed_at timestamptz not null default now(),
  total_kg numeric(14, 3) not null,
  shipped_kg numeric(14, 3) not null default 0,
  received_kg numeric(14, 3) not null default 0,
  fixed_kg numeric(14, 3) not null default 0,
  fixed_value numeric(20, 4) not null default 0,
  fixed_received_value numeric(20, 4) not null default 0,
  credential_id text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (org_id, id),
  unique (org_id, contract_number),
  constraint green_contracts_shipped_within_total check (shipped_kg <= total_kg),
  constraint green_contracts_weights check (total_kg > 0 and shipped_kg >= 0 and received_kg >= 0)
);
select firstcrack_tenant_table('green_contracts');
create index green_contracts_newest on green_contracts (org_id, id);
create index green_contracts_by_partner on green_contracts (org_id, partner_id, id);
-- The open positions: committed contracts with weight still to receive. Closed, canceled, defaulted, draft
-- and fully received contracts (an organization's history) are not in this index at all.
create index green_contracts_open on green_contracts (org_id, id)
  where status in ('confirmed', 'partially_shipped', 'shipped', 'arrived') and received_kg < total_kg;

create table green_contract_lines (
  org_id text not null references organizations (id),
  id text not null,
  contract_id text not null,
  line_number int not null,
  producer_id text,
  origin text,
  quality text,
  process_method text,
  harvest_year int,
  weight_kg numeric(14, 3) not null check (weight_kg > 0),
  price_per_kg numeric(14, 4),
  differential_per_kg numeric(14, 4),
  market text,
  fixation_status text not null check (fixation_status in ('fixed', 'unfixed')),
  currency text not null,
  bag_count int,
  bag_weight_kg numeric(14, 3),
  received_kg numeric(14, 3) not null default 0,
  created_at timestamptz not null default now(),
  primary key (org_id, id),
  unique (org_id, contract_id, line_number),
  foreign key (org_id, contract_id) references green_contracts (org_id, id),
  constraint green_contract_lines_fixed_has_price check (fixation_status = 'unfixed' or price_per_kg is not null)
);
select firstcrack_tenant_table('green_contract_lines');

create table green_contract_shipments (
  org_id text not null references organizations (id),
  id text not null,
  contract_id text not null,
  reference text not null,
  weight_kg numeric(14, 3) not null check (weight_kg > 0),
  vessel text,
  carrier text,
  container_number text,
  port_of_loading text,
  port_of_discharge text,
  etd date,
  eta date,
  destination_location_id text,
  status text not null default 'booked' check (status in ('booked', 'received')),
  received_at timestamptz,
  received_kg numeric(14, 3),
  credential_id text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (org_id, id),
  unique (org_id, contract_id, reference),
  foreign key (org_id, contract_id) references green_contracts (org_id, id),
  constraint green_contract_shipments_received check ((status = 'received') = (received_at is not null))
);
select firstcrack_tenant_table('green_contract_shipments');
create index green_contract_shipments_by_contract on green_contract_shipments (org_id, contract_id, id);

-- One row per green lot a receipt created: what the shipment brought in, line by line (append-only).
create table green_contract_receipt_lines (
  org_id text not null references organizations (id),
  id text not null,
  shipment_id text not null,
  contract_id text not null,
  contract_line_id text not null,
  -- The line's position in the receipt (1-based): receipts answer their lots in the order they were given.
  position int not null,
  green_lot_id text not null,
  weight_kg numeric(14, 3) not null check (weight_kg > 0),
  created_at timestamptz not null default now(),
  primary key (org_id, id),
  unique (org_id, green_lot_id),
  foreign key (org_id, shipment_id) references green_contract_shipments (org_id, id),
  foreign key (org_id, contract_line_id) references green_contract_lines (org_id, id)
);
select firstcrack_tenant_table('green_contract_receipt_lines');
select firstcrack_append_only('green_contract_receipt_lines');
create index green_contract_receipt_lines_by_shipment on green_contract_receipt_lines (org_id, shipment_id);

create table green_contract_milestones (
  org_id text not null references organizations (id),
  id text not null,
  contract_id text not null,
  kind text not null check (kind in ('contract_signed', 'fixation', 'shipment', 'vessel_departure', 'vessel_arrival',
                                     'customs_clearance', 'warehouse_receipt', 'sample_approval', 'payment')),
  due_at timestamptz not null,
  notes text,
  completed_at timestamptz,
  completed_by text,
  -- sample_approval: the approved pre-shipment sample the completion points to.
  sample_id text,
  created_at timestamptz not null default now(),
  primary key (org_id, id),
  foreign key (org_id, contract_id) references green_contracts (org_id, id)
);
select firstcrack_tenant_table('green_contract_milestones');
create index green_contract_milestones_due on green_contract_milestones (org_id, due_at, id);
create index green_contract_milestones_by_contract on green_contract_milestones (org_id, contract_id, due_at);

-- Lineage may now name contracts and samples (the trace's provenance of a received lot or a transferred sample).
alter table lineage_edges drop constraint lineage_edges_kinds;
alter table lineage_edges add constraint lineage_edges_kinds check (
  from_kind in ('producer', 'green_lot', 'roast_batch', 'roasted_lot', 'blend_lot', 'product_batch', 'order_line', 'contract', 'sample')
  and to_kind in ('producer', 'green_lot', 'roast_batch', 'roasted_lot', 'blend_lot', 'product_batch', 'order_line', 'contract', 'sample'));
