-- Webhooks: endpoints, one delivery (attempt series) per event per endpoint, and its attempts; and the
-- commit order of the event feed.
--
-- The feed's order. Event ids and sequence numbers are taken before commit, so transactions commit out of
-- their order: a poller that resumed after the highest id it saw would skip an event committed later with
-- a lower one. Each event row records the id of the transaction that wrote it (xid8, never wraps) and a
-- sequence number; the feed serves only rows whose transaction is older than the oldest transaction still
-- in flight (pg_snapshot_xmin), ordered by (txid, seq). Every row that becomes visible later belongs to a
-- transaction at or above that horizon, so it sorts after anything already served: no gaps, no repeats.
alter table events add column txid xid8 not null default pg_current_xact_id();
alter table events add column seq bigint generated always as identity;
create index events_feed on events (org_id, txid, seq);

create table webhook_endpoints (
  org_id text not null references organizations (id),
  id text not null,
  url text not null check (length(url) <= 2048),
  description text,
  -- Exact types or prefix wildcards (`inventory.*`); empty subscribes to everything, later types too.
  event_types text[] not null default '{}',
  status text not null default 'active' check (status in ('active', 'disabled')),
  -- manual (updateEndpoint) or failing (the auto-disable rule).
  disabled_reason text check (disabled_reason in ('manual', 'failing')),
  disabled_at timestamptz,
  consecutive_failures int not null default 0,
  -- Start of the current run of failed attempts (no success since); null while the endpoint succeeds.
  failing_since timestamptz,
  -- AES-256-GCM (src/crypto/secrets.ts); the plaintext is answered once and never stored.
  secret_encrypted text not null,
  previous_secret_encrypted text,
  previous_secret_expires_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz,
  primary key (org_id, id)
);
select firstcrack_tenant_table('webhook_endpoints');
create index webhook_endpoints_active on webhook_endpoints (org_id) where status = 'active' and deleted_at is null;

create table webhook_deliveries (
  org_id text not null references organizations (id),
  id text not null,
  endpoint_id text not null,
  event_id text not null,
  event_type text not null,
  status text not null default 'pending' check (status in ('pending', 'succeeded', 'failed', 'canceled')),
  -- Attempts made in the current schedule (redeliver resets it to 0) and in total.
  schedule_step int not null default 0,
  attempt_count int not null default 0,
  next_attempt_at timestamptz,
  -- The queued job that owns the next attempt; a job carrying another token is stale and does nothing.
  job_token text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (org_id, id),
  unique (org_id, endpoint_id, event_id),
  foreign key (org_id, endpoint_id) references webhook_endpoints (org_id, id)
);
select firstcrack_tenant_table('webhook_deliveries');
create index webhook_deliveries_by_event on webhook_deliveries (org_id, event_id);

create table webhook_attempts (
  org_id text not null references organizations (id),
  delivery_id text not null,
  attempt int not null,
  started_at timestamptz not null,
  latency_ms int not null,
  status_code int,
  succeeded boolean not null,
  -- The first KB of the answer, and what went wrong (timeout, refused address, status).
  response_body text,
  error text,
  primary key (org_id, delivery_id, attempt),
  foreign key (org_id, delivery_id) references webhook_deliveries (org_id, id)
);
select firstcrack_tenant_table('webhook_attempts');
select firstcrack_append_only('webhook_attempts');

-- The service role inserts events; the identity's sequence is not covered by the table grants.
grant usage on sequence events_seq_seq to firstcrack_app;
