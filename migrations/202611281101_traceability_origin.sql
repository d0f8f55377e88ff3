-- Proof of origin. An origin declaration says which plots (or producers, standing for all their plots) the
-- coffee of a green lot, a contract, a shipment or a sample came from, and the reference and verification
-- numbers of the upstream due diligence statements. Declaring again replaces the declaration. Descendants
-- (splits, merges, roasts, blends, order lines) are never written here: they inherit through lineage_edges,
-- read when asked (traceability/origin.ts).
create table origin_declarations (
  org_id text not null references organizations (id),
  subject_kind text not null check (subject_kind in ('green_lot', 'contract', 'shipment', 'sample')),
  subject_id text not null,
  plot_ids text[] not null default '{}',
  producer_ids text[] not null default '{}',
  -- [{"referenceNumber": "...", "verificationNumber": "..."}]
  upstream_statements jsonb not null default '[]',
  declared_at timestamptz not null default now(),
  primary key (org_id, subject_kind, subject_id)
);
select firstcrack_tenant_table('origin_declarations');

-- The organization as an operator under Regulation (EU) 2023/1115, and its GS1 identity for EPCIS exports.
create table operator_identities (
  org_id text not null references organizations (id),
  name text not null,
  country text not null,
  eori text,
  gs1_company_prefix text check (gs1_company_prefix ~ '^[0-9]{6,12}$'),
  -- GTIN-14 per kind of lot ({"green_lot": "0...", "roasted_lot": ...}): lots of a kind with one are LGTINs.
  gtins jsonb not null default '{}',
  updated_at timestamptz not null default now(),
  primary key (org_id)
);
select firstcrack_tenant_table('operator_identities');
