-- Deleting an organization (src/modules/identity/deletion.ts, src/jobs/organization-purge.ts): an owner schedules it, the organization works on
-- as before through a grace period in which an owner may cancel, and then the organization-purge job deletes
-- every row it owns (every table with an org_id column), its blobs and live state.
--   deletion_scheduled_at  when an owner scheduled it (null: not scheduled)
--   purge_after            the end of the grace period: the purge job takes the organization from then on
--   deletion_scheduled_by  the credential or user that scheduled it (its id, for the record)
alter table organizations
  add column if not exists deletion_scheduled_at timestamptz,
  add column if not exists purge_after timestamptz,
  add column if not exists deletion_scheduled_by text,
  add constraint organizations_deletion_complete check ((deletion_scheduled_at is null) = (purge_after is null));
create index if not exists organizations_purge_due on organizations (purge_after) where purge_after is not null;

-- What remains of a purged organization: its id and when, with the row counts deleted per table, so an operator
-- can answer "was it deleted, and when?" without keeping anything the organization owned (no name, no rows).
-- outside_purged_at: when its blobs and live state were removed too (the job retries until it is set).
create table purged_organizations (
  id text primary key,
  deletion_scheduled_at timestamptz not null,
  purged_at timestamptz not null,
  rows_deleted jsonb not null,
  outside_purged_at timestamptz
);
-- Operators' record, read and written only by the purge job on the owner connection.
revoke all on purged_organizations from firstcrack_app;
