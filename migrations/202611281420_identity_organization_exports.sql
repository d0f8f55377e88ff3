-- Organization exports (src/modules/identity/export.ts): an owner asks for everything the organization owns as
-- one archive (identity.exportOrganization); the organization-export job moves the row queued → building →
-- ready (the .tar.gz in the blob store under blob_key) or failed (failure_reason says what to do about it).
-- The archive is the one `firstcrack org export` writes (src/jobs/organization-export.ts).
create table organization_exports (
  org_id text not null references organizations (id),
  id text not null,
  status text not null default 'queued' check (status in ('queued', 'building', 'ready', 'failed')),
  failure_reason text,
  blob_key text,
  size_bytes bigint,
  -- Rows per table and blobs in the archive (null until ready).
  contents jsonb,
  credential_id text not null,
  attempts int not null default 0,
  created_at timestamptz not null default now(),
  started_at timestamptz,
  completed_at timestamptz,
  primary key (org_id, id),
  constraint organization_exports_ready_has_archive check (status <> 'ready' or (blob_key is not null and size_bytes is not null and completed_at is not null)),
  constraint organization_exports_failed_has_reason check ((status = 'failed') = (failure_reason is not null))
);
select firstcrack_tenant_table('organization_exports');
