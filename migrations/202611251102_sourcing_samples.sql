-- Samples (src/modules/sourcing/sample): offer, pre-shipment, arrival and other samples, evaluated and not
-- stocked, until transferSampleToInventory turns one into a green lot (green_lot_id, set once).

create table samples (
  org_id text not null references organizations (id),
  id text not null,
  sample_number text not null,
  name text not null,
  sample_type text not null check (sample_type in ('offer', 'pre_shipment', 'arrival', 'type', 'spot', 'production', 'competition')),
  partner_id text,
  producer_id text,
  contract_id text,
  contract_line_id text,
  po_number text,
  sales_number text,
  tracking_numbers text[] not null default '{}',
  weight_kg numeric(14, 3) check (weight_kg > 0),
  due_at timestamptz,
  status text not null default 'requested'
    check (status in ('requested', 'in_transit', 'received', 'roasted', 'cupped', 'approved', 'rejected', 'archived')),
  status_changed_at timestamptz not null default now(),
  decision_at timestamptz,
  decision text check (decision in ('approved', 'rejected')),
  decision_notes text,
  green_lot_id text,
  transferred_at timestamptz,
  credential_id text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (org_id, id),
  unique (org_id, sample_number),
  unique (org_id, green_lot_id),
  constraint samples_decision check ((decision is null) = (decision_at is null)),
  constraint samples_transferred check ((green_lot_id is null) = (transferred_at is null))
);
select firstcrack_tenant_table('samples');
create index samples_newest on samples (org_id, id);
create index samples_by_contract on samples (org_id, contract_id, sample_type, status) where contract_id is not null;

-- Lineage copies a sample's number and name and a contract's number (migrations/repeatable/lineage_known.sql):
-- neither changes once written.
create trigger keep_label before update of sample_number, name on samples for each row
  when (old.sample_number is distinct from new.sample_number or old.name is distinct from new.name)
  execute function firstcrack_refuse_relabel('sample_number and name');
create trigger keep_label before update of contract_number on green_contracts for each row
  when (old.contract_number is distinct from new.contract_number) execute function firstcrack_refuse_relabel('contract_number');
