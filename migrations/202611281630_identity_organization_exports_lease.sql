-- An organization export is built under a lease, as a report is rendered (src/jobs/leases.ts): the attempt
-- building it holds lease_token until lease_expires_at and renews it while it runs. A worker that dies
-- mid-build holds it at most one lease; the sweeper then queues it again, or fails it after three attempts,
-- so an export is never left `building`. updated_at tells the sweeper how long a queued export has waited.
alter table organization_exports
  add column lease_token text,
  add column lease_expires_at timestamptz,
  add column updated_at timestamptz not null default now();
