-- Spreadsheet imports (src/modules/imports): a row exists as soon as an apply operation answers; the job
-- `imports.apply` moves it queued → checking → writing → applied, or refused (some row breaks a rule:
-- `problems` names the rows and columns, nothing was written) or failed (`failure_reason`). The file is
-- kept in the blob store under file_key. An applied import and its rows commit in one transaction.
create table imports (
  org_id text not null references organizations (id),
  id text not null,
  kind text not null,
  format text not null check (format in ('csv', 'xlsx')),
  file_name text,
  file_key text not null,
  file_hash text not null,
  -- The caller's key, or `sha256:<file hash>`: one import per key and kind stands (refused and failed ones aside).
  dedupe_key text not null,
  caller_key text,
  status text not null default 'queued' check (status in ('queued', 'checking', 'writing', 'applied', 'refused', 'failed')),
  rows_total int,
  rows_checked int not null default 0,
  created_count int not null default 0,
  problem_count int not null default 0,
  problems jsonb not null default '[]',
  mapping jsonb,
  failure_reason text,
  credential_id text not null,
  created_at timestamptz not null default now(),
  started_at timestamptz,
  completed_at timestamptz,
  updated_at timestamptz not null default now(),
  primary key (org_id, id),
  constraint imports_failed_has_reason check ((status = 'failed') = (failure_reason is not null))
);
select firstcrack_tenant_table('imports');
create unique index imports_one_per_key on imports (org_id, kind, dedupe_key) where status not in ('refused', 'failed');
create index imports_newest on imports (org_id, created_at desc, id desc);
