-- A report being rendered is leased (src/modules/reporting/render.ts): the attempt holding lease_token renews
-- lease_expires_at while it runs, and only it may mark the report ready. A worker that dies mid-render
-- leaves the lease to run out; the sweeper then queues the report again, or fails it once `attempts`
-- renders have started without one finishing.
alter table reports
  add column lease_token text,
  add column lease_expires_at timestamptz,
  add column attempts int not null default 0;

-- The sweeper's scan: reports still in the works, across organizations.
create index reports_in_the_works on reports (status, lease_expires_at) where status in ('queued', 'rendering');
