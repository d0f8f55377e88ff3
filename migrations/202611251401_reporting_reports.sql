-- Reports (src/modules/reporting): a row exists as soon as generateReport answers; the job `reports.render`
-- moves it queued → rendering → ready (the PDF and CSV in the blob store under pdf_key and csv_key) or
-- failed (failure_reason says what a person can do about it).
create table reports (
  org_id text not null references organizations (id),
  id text not null,
  kind text not null check (kind in ('traceability_certificate', 'inventory_valuation', 'production_summary', 'quality_summary', 'cafe_performance')),
  title text not null,
  parameters jsonb not null,
  status text not null default 'queued' check (status in ('queued', 'rendering', 'ready', 'failed')),
  failure_reason text,
  -- The figures the report's totals came to, as shown on its last page (null until ready).
  summary jsonb,
  pdf_key text,
  pdf_bytes int,
  csv_key text,
  csv_bytes int,
  credential_id text not null,
  created_at timestamptz not null default now(),
  started_at timestamptz,
  completed_at timestamptz,
  updated_at timestamptz not null default now(),
  primary key (org_id, id),
  constraint reports_ready_has_files check (status <> 'ready' or (pdf_key is not null and csv_key is not null and completed_at is not null)),
  constraint reports_failed_has_reason check ((status = 'failed') = (failure_reason is not null))
);
select firstcrack_tenant_table('reports');
-- listReports: newest first, by kind and status.
create index reports_newest on reports (org_id, created_at desc, id desc);

-- The secret behind signed download links (src/http/signed-links.ts): one row per key version, made here
-- from the server's strong random source (gen_random_uuid), so every API process and worker shares it
-- without configuration. The service reads it; nobody rewrites it (a new key is a new version row).
create table link_signing_keys (
  version int primary key check (version > 0),
  secret text not null check (length(secret) >= 64),
  created_at timestamptz not null default now()
);
insert into link_signing_keys (version, secret)
values (1, encode(sha256(convert_to(gen_random_uuid()::text || gen_random_uuid()::text || gen_random_uuid()::text || clock_timestamp()::text, 'UTF8')), 'hex')
         || encode(sha256(convert_to(gen_random_uuid()::text || gen_random_uuid()::text, 'UTF8')), 'hex'));
revoke insert, update, delete on link_signing_keys from firstcrack_app;
