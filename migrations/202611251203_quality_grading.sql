-- Physical gradings of green lots and samples: the measures, the standard judged against, the result and
-- the checks behind it. A grading is a record of what was measured: append-only.

create table gradings (
  org_id text not null references organizations (id),
  id text not null,
  green_lot_id text,
  sample_id text,
  standard text not null check (standard in ('sca', 'coe', 'brazil_ny', 'indonesian', 'vietnamese', 'custom')),
  moisture_pct numeric(5, 2),
  water_activity numeric(4, 3),
  screen_size_avg numeric(5, 2),
  density_g_per_l numeric(7, 2),
  defects_primary int,
  defects_secondary int,
  screen_distribution jsonb,
  defect_counts jsonb,
  notes text,
  result text not null check (result in ('pass', 'fail', 'not_judged')),
  grade text,
  checks jsonb not null,
  quarantined_lot boolean not null default false,
  credential_id text not null,
  created_at timestamptz not null default now(),
  primary key (org_id, id),
  constraint gradings_subject check (green_lot_id is not null or sample_id is not null)
);
select firstcrack_tenant_table('gradings');
select firstcrack_append_only('gradings');
create index gradings_by_lot on gradings (org_id, green_lot_id, id) where green_lot_id is not null;
create index gradings_by_sample on gradings (org_id, sample_id, id) where sample_id is not null;
