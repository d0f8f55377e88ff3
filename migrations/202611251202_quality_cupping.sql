-- Cupping sessions: the coffees on the table (each with a blind code from a shuffle seeded by the session
-- id), the cuppers' scores on the SCA form, and, once finalized, each coffee's published result.

create table cupping_sessions (
  org_id text not null references organizations (id),
  id text not null,
  session_number text not null,
  name text not null,
  mode text not null check (mode in ('open', 'blind', 'double_blind')),
  scheduled_at timestamptz,
  status text not null default 'open' check (status in ('open', 'finalized')),
  finalized_at timestamptz,
  finalized_by text,
  created_by text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (org_id, id),
  unique (org_id, session_number),
  constraint cupping_sessions_finalized check ((status = 'finalized') = (finalized_at is not null) and (finalized_at is null) = (finalized_by is null))
);
select firstcrack_tenant_table('cupping_sessions');
create index cupping_sessions_by_scheduled on cupping_sessions (org_id, scheduled_at);

-- One coffee on the table. ref_kind names what it is; ref_id the record (null for an outside coffee);
-- ref_code and ref_name are the identity as it read when the session was created (lot code, batch number,
-- sample number; the outside coffee's name). The result columns are written once, at finalize.
create table cupping_session_samples (
  org_id text not null references organizations (id),
  id text not null,
  session_id text not null,
  position int not null check (position > 0),
  blind_code text not null,
  ref_kind text not null check (ref_kind in ('green_lot', 'sample', 'roast_batch', 'roasted_lot', 'outside')),
  ref_id text,
  ref_code text,
  ref_name text,
  mean_score numeric(5, 2),
  stddev_score numeric(5, 2),
  min_score numeric(5, 2),
  max_score numeric(5, 2),
  cupper_count int,
  attribute_means jsonb,
  top_descriptors jsonb,
  primary key (org_id, id),
  unique (org_id, session_id, position),
  unique (org_id, session_id, blind_code),
  foreign key (org_id, session_id) references cupping_sessions (org_id, id),
  constraint cupping_session_samples_ref check ((ref_kind = 'outside') = (ref_id is null) and (ref_kind <> 'outside' or ref_name is not null))
);
select firstcrack_tenant_table('cupping_session_samples');
create index cupping_session_samples_by_ref on cupping_session_samples (org_id, ref_kind, ref_id) where ref_id is not null;

-- One cupper's form for one coffee. cupper_key identifies the cupper: the name, case-folded, or the
-- credential when no name was given; a second form by the same cupper replaces the first.
create table cupping_scores (
  org_id text not null references organizations (id),
  id text not null,
  session_id text not null,
  session_sample_id text not null,
  cupper_key text not null,
  cupper_name text,
  fragrance_aroma numeric(4, 2) not null,
  flavor numeric(4, 2) not null,
  aftertaste numeric(4, 2) not null,
  acidity numeric(4, 2) not null,
  body numeric(4, 2) not null,
  balance numeric(4, 2) not null,
  uniformity numeric(4, 2) not null,
  clean_cup numeric(4, 2) not null,
  sweetness numeric(4, 2) not null,
  overall numeric(4, 2) not null,
  total_score numeric(5, 2) not null,
  defects_penalty numeric(5, 2) not null default 0,
  final_score numeric(5, 2) not null,
  descriptors text[] not null default '{}',
  notes text,
  credential_id text not null,
  revision int not null default 1,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (org_id, id),
  unique (org_id, session_sample_id, cupper_key),
  foreign key (org_id, session_id) references cupping_sessions (org_id, id),
  foreign key (org_id, session_sample_id) references cupping_session_samples (org_id, id),
  constraint cupping_scores_total check (total_score = fragrance_aroma + flavor + aftertaste + acidity + body + balance + uniformity + clean_cup + sweetness + overall
                                         and final_score = total_score - defects_penalty)
);
select firstcrack_tenant_table('cupping_scores');
create index cupping_scores_by_session on cupping_scores (org_id, session_id);
