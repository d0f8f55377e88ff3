-- Blend recipes. A recipe's target ratios are never changed afterwards (what a production run actually
-- used is recorded separately as drift), so components are append-only and there is no update path.

create table blends (
  org_id text not null references organizations (id),
  id text not null,
  code text not null,
  name text not null,
  blend_type text not null check (blend_type in ('pre_roast', 'post_roast')),
  roast_level text check (roast_level in ('light', 'medium', 'dark')),
  is_decaf boolean not null default false,
  target_weight_loss_pct numeric(5, 2) check (target_weight_loss_pct >= 0 and target_weight_loss_pct <= 50),
  created_at timestamptz not null default now(),
  primary key (org_id, id),
  unique (org_id, code),
  -- Pre-roast blends are grossed up for roast loss, so they always carry the figure.
  constraint blends_pre_roast_has_loss check (blend_type <> 'pre_roast' or target_weight_loss_pct is not null)
);
select firstcrack_tenant_table('blends');
select firstcrack_append_only('blends');

-- Until roasted lots exist, the components of post-roast blends also name green lots.
create table blend_components (
  org_id text not null references organizations (id),
  id text not null,
  blend_id text not null,
  position int not null,
  green_lot_id text not null,
  ratio_pct numeric(5, 2) not null check (ratio_pct > 0 and ratio_pct <= 100),
  primary key (org_id, id),
  unique (org_id, blend_id, green_lot_id),
  unique (org_id, blend_id, position),
  foreign key (org_id, blend_id) references blends (org_id, id),
  foreign key (org_id, green_lot_id) references green_lots (org_id, id)
);
select firstcrack_tenant_table('blend_components');
select firstcrack_append_only('blend_components');
create index blend_components_by_lot on blend_components (org_id, green_lot_id);
