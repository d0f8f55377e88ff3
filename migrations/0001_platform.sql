-- Platform: organizations, credentials, events, idempotency records, and the tenancy machinery every
-- later table uses.
--
-- Tenancy is enforced twice: every repository query filters by org_id, and in server mode the service
-- connects as the role firstcrack_app, for which row-level security shows only the rows of the
-- organization named by the transaction-local setting app.org_id. Migrations run as the tables' owner.

do $$
begin
  if not exists (select 1 from pg_roles where rolname = 'firstcrack_app') then
    create role firstcrack_app login;
  end if;
exception when duplicate_object or unique_violation then
  null; -- another database on the same cluster created it at the same moment
end $$;

grant usage on schema public to firstcrack_app;
alter default privileges in schema public grant select, insert, update, delete on tables to firstcrack_app;

-- Every table holding organization data calls this once: RLS on, one policy keyed by app.org_id.
create function firstcrack_tenant_table(target regclass) returns void language plpgsql as $$
begin
  execute format('alter table %s enable row level security', target);
  execute format(
    'create policy tenant_isolation on %s using (org_id = current_setting(''app.org_id'', true)) '
    'with check (org_id = current_setting(''app.org_id'', true))', target);
end $$;

-- Append-only tables: the service role may read and insert, never rewrite history.
create function firstcrack_append_only(target regclass) returns void language plpgsql as $$
begin
  execute format('revoke update, delete on %s from firstcrack_app', target);
end $$;

create table organizations (
  id text primary key,
  name text not null check (length(name) between 1 and 200),
  plan text not null check (plan in ('free', 'starter', 'pro', 'enterprise')),
  created_at timestamptz not null default now()
);
alter table organizations enable row level security;
create policy tenant_isolation on organizations using (id = current_setting('app.org_id', true));

-- API keys and machine bridge tokens. Only a SHA-256 of the secret is kept; the secret is shown once.
create table credentials (
  org_id text not null references organizations (id),
  id text not null,
  kind text not null check (kind in ('api_key', 'machine_bridge')),
  role text,
  scopes text[],
  machine_id text,
  secret_hash text not null unique,
  label text,
  created_at timestamptz not null default now(),
  expires_at timestamptz,
  revoked_at timestamptz,
  primary key (org_id, id),
  unique (id),
  check ((kind = 'api_key' and role is not null) or (kind = 'machine_bridge' and machine_id is not null))
);
select firstcrack_tenant_table('credentials');

-- Authentication happens before the organization is known, so the lookup by secret hash runs as the
-- owner. It returns only live credentials and exposes nothing but what authorization needs.
create function firstcrack_credential_by_hash(hash text)
returns table (id text, org_id text, kind text, role text, scopes text[], machine_id text, plan text)
language sql stable security definer set search_path = public as $$
  select c.id, c.org_id, c.kind, c.role, c.scopes, c.machine_id, o.plan
  from credentials c join organizations o on o.id = c.org_id
  where c.secret_hash = hash
    and c.revoked_at is null
    and (c.expires_at is null or c.expires_at > now())
$$;
grant execute on function firstcrack_credential_by_hash(text) to firstcrack_app;

-- Every successful mutation writes one row here in its own transaction (envelope in DESIGN.md).
create table events (
  org_id text not null references organizations (id),
  id text not null,
  type text not null,
  created_at timestamptz not null default now(),
  data jsonb not null,
  primary key (org_id, id)
);
select firstcrack_tenant_table('events');
select firstcrack_append_only('events');
create index events_by_type on events (org_id, type, id);

-- The first answer to a POST carrying an Idempotency-Key, kept 24 hours per credential.
create table idempotency_records (
  org_id text not null references organizations (id),
  credential_id text not null,
  key text not null,
  operation text not null,
  request_hash text not null,
  -- null while the first request is still in flight
  response_status int,
  response_body jsonb,
  created_at timestamptz not null default now(),
  primary key (org_id, credential_id, key)
);
select firstcrack_tenant_table('idempotency_records');
create index idempotency_records_by_age on idempotency_records (created_at);
