-- Authentication happens before the organization is known, so the lookup by secret hash runs as the
-- owner. It returns only live credentials and exposes nothing but what authorization needs.
--
-- A repeatable migration: this is the one current text of this function, re-applied whenever it changes.
create or replace function firstcrack_credential_by_hash(hash text)
returns table (id text, org_id text, kind text, role text, scopes text[], machine_id text, plan text)
language sql stable security definer set search_path = public as $$
  select c.id, c.org_id, c.kind, c.role, c.scopes, c.machine_id, o.plan
  from credentials c join organizations o on o.id = c.org_id
  where c.secret_hash = hash
    and c.revoked_at is null
    and (c.expires_at is null or c.expires_at > now())
$$;
grant execute on function firstcrack_credential_by_hash(text) to firstcrack_app;
