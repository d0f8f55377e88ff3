-- Packaging and other non-coffee materials, their append-only quantity ledger, and versioned bills of
-- materials per product. Also two product rules the catalog migration left to the application.

-- A product's list price is meaningless without its currency; one barcode names one product.
alter table products add constraint products_price_needs_currency check (list_price is null or currency is not null);
alter table products add constraint products_org_id_barcode_key unique (org_id, barcode);

-- Quantities are counted in each material's own stock-keeping unit (pieces of a bag, label or valve;
-- metres of tape, ...), exact to 3 decimals. on_hand is never written directly: it moves only together
-- with a material_transactions row in the same transaction, so on_hand = sum(delta_qty) at all times and
-- reading a balance costs the same however long the ledger grows.
create table materials (
  org_id text not null references organizations (id),
  id text not null,
  sku text not null,
  name text not null,
  kind text not null check (kind in ('bag', 'label', 'valve', 'box', 'tin', 'capsule', 'tape', 'insert', 'merch', 'other')),
  unit_cost numeric(14, 4) check (unit_cost >= 0),
  currency text,
  reorder_point numeric(15, 3) check (reorder_point >= 0),
  reorder_qty numeric(15, 3) check (reorder_qty > 0),
  lead_time_days int check (lead_time_days >= 0),
  supplier_partner_id text,
  on_hand numeric(15, 3) not null default 0,
  is_active boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (org_id, id),
  unique (org_id, sku),
  foreign key (org_id, supplier_partner_id) references partners (org_id, id),
  constraint materials_cost_needs_currency check (unit_cost is null or currency is not null)
);
select firstcrack_tenant_table('materials');
create index materials_by_supplier on materials (org_id, supplier_partner_id) where supplier_partner_id is not null;

-- The ledger. credential_id names who made the change as authentication resolved it (not a foreign key:
-- credentials may come from more than one store, e.g. API keys and OAuth clients). balance_after is the
-- material's on_hand right after this row, so the history reads as a running balance without summing.
-- Only reason recount may leave a negative balance (checked by the service under the material's row
-- lock, before the row is written).
create table material_transactions (
  org_id text not null references organizations (id),
  id text not null,
  material_id text not null,
  reason text not null check (reason in ('receive', 'adjust', 'shrinkage', 'write_off', 'recount', 'return')),
  delta_qty numeric(15, 3) not null check (delta_qty <> 0),
  balance_after numeric(15, 3) not null,
  location_id text,
  credential_id text not null,
  comment text,
  created_at timestamptz not null default now(),
  primary key (org_id, id),
  foreign key (org_id, material_id) references materials (org_id, id),
  foreign key (org_id, location_id) references locations (org_id, id),
  constraint material_transactions_sign check (
    (reason <> 'receive' or delta_qty > 0) and (reason not in ('shrinkage', 'write_off') or delta_qty < 0))
);
select firstcrack_tenant_table('material_transactions');
select firstcrack_append_only('material_transactions');
create index material_transactions_by_material on material_transactions (org_id, material_id, id);

-- Bills of materials: one row per published version. A version is history the moment it is published:
-- nothing about it may change except that retired_at is stamped once, when the next version replaces it.
-- The partial unique index keeps at most one active version per product, whatever the application does.
create table bills_of_materials (
  org_id text not null references organizations (id),
  id text not null,
  product_id text not null,
  version int not null check (version >= 1),
  name text not null,
  yield_qty int not null check (yield_qty >= 1),
  published_by text not null,
  -- clock_timestamp(), not now(): publications for a product take turns on its row lock, and a request
  -- that started first may publish second; stamps must follow the order in which versions succeed.
  published_at timestamptz not null default clock_timestamp(),
  retired_at timestamptz,
  primary key (org_id, id),
  unique (org_id, product_id, version),
  foreign key (org_id, product_id) references products (org_id, id),
  constraint bills_of_materials_retired_after_published check (retired_at is null or retired_at >= published_at)
);
select firstcrack_tenant_table('bills_of_materials');
select firstcrack_append_only('bills_of_materials');
grant update (retired_at) on bills_of_materials to firstcrack_app;
create unique index bills_of_materials_one_active on bills_of_materials (org_id, product_id) where retired_at is null;

-- quantity is per yield_qty product units; waste_pct grosses it up for what is spoiled in production.
create table bill_of_materials_lines (
  org_id text not null references organizations (id),
  bill_of_materials_id text not null,
  line_no int not null check (line_no >= 1),
  material_id text not null,
  quantity numeric(15, 3) not null check (quantity > 0),
  waste_pct numeric(5, 2) not null default 0 check (waste_pct between 0 and 100),
  primary key (org_id, bill_of_materials_id, line_no),
  unique (org_id, bill_of_materials_id, material_id),
  foreign key (org_id, bill_of_materials_id) references bills_of_materials (org_id, id),
  foreign key (org_id, material_id) references materials (org_id, id)
);
select firstcrack_tenant_table('bill_of_materials_lines');
select firstcrack_append_only('bill_of_materials_lines');
create index bill_of_materials_lines_by_material on bill_of_materials_lines (org_id, material_id);

-- The grants above bind the service role in server mode; these triggers bind every role (including the
-- embedded database's owner connection), so published history cannot be rewritten by anyone.
create function firstcrack_bill_of_materials_immutable() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    raise exception 'bill of materials % is history and cannot be deleted', old.id using errcode = 'integrity_constraint_violation';
  end if;
  if old.retired_at is not null
     or (new.org_id, new.id, new.product_id, new.version, new.name, new.yield_qty, new.published_by, new.published_at)
        is distinct from (old.org_id, old.id, old.product_id, old.version, old.name, old.yield_qty, old.published_by, old.published_at) then
    raise exception 'bill of materials % is history: only retired_at may be set, and only once', old.id using errcode = 'integrity_constraint_violation';
  end if;
  return new;
end $$;
create trigger bills_of_materials_immutable before update or delete on bills_of_materials
  for each row execute function firstcrack_bill_of_materials_immutable();

create function firstcrack_material_history_refuse_rewrite() returns trigger language plpgsql as $$
begin
  raise exception '% is append-only', tg_table_name using errcode = 'integrity_constraint_violation';
end $$;
create trigger bill_of_materials_lines_append_only before update or delete on bill_of_materials_lines
  for each row execute function firstcrack_material_history_refuse_rewrite();
create trigger material_transactions_append_only before update or delete on material_transactions
  for each row execute function firstcrack_material_history_refuse_rewrite();
