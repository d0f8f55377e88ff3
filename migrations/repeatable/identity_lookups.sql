-- Lookups that authentication makes before the organization is known (the credential names it), so they run
-- as the owner, like firstcrack_credential_by_hash, and expose only what authentication needs. `at` is the
-- service's clock, so expiry is judged by the same clock that issued the credential.
--
-- A repeatable migration: this is the one current text of these functions, re-applied whenever it changes.

-- A live OAuth client by its client_id, with its secret hash to compare and its organization's plan.
create or replace function firstcrack_oauth_client(client text)
returns table (id text, org_id text, role text, scopes text[], secret_hash text, plan text)
language sql stable security definer set search_path = public as $$
  select c.id, c.org_id, c.role, c.scopes, c.secret_hash, o.plan
  from oauth_clients c join organizations o on o.id = c.org_id
  where c.id = client and c.revoked_at is null
$$;
grant execute on function firstcrack_oauth_client(text) to firstcrack_app;

-- A live opaque access token: unexpired at `at`, and its client not revoked.
create or replace function firstcrack_oauth_access_token(hash text, at timestamptz)
returns table (id text, org_id text, client_id text, role text, scope text[], plan text, issued_at timestamptz, expires_at timestamptz)
language sql stable security definer set search_path = public as $$
  select t.id, t.org_id, t.client_id, c.role, t.scope, o.plan, t.issued_at, t.expires_at
  from oauth_access_tokens t
  join oauth_clients c on c.org_id = t.org_id and c.id = t.client_id
  join organizations o on o.id = t.org_id
  where t.token_hash = hash and t.expires_at > at and c.revoked_at is null
$$;
grant execute on function firstcrack_oauth_access_token(text, timestamptz) to firstcrack_app;

-- Every organization a user is a member of, with the role there (login's answer).
create or replace function firstcrack_user_memberships(member text)
returns table (org_id text, name text, role text, plan text)
language sql stable security definer set search_path = public as $$
  select m.org_id, o.name, m.role, o.plan
  from memberships m join organizations o on o.id = m.org_id
  where m.user_id = member
  order by m.created_at, m.org_id
$$;
grant execute on function firstcrack_user_memberships(text) to firstcrack_app;

-- A live user session and the user's membership in `org` (role and plan null when not a member).
create or replace function firstcrack_user_session(hash text, org text, at timestamptz)
returns table (session_id text, user_id text, role text, plan text)
language sql stable security definer set search_path = public as $$
  select s.id, s.user_id, m.role, o.plan
  from user_sessions s
  left join memberships m on m.user_id = s.user_id and m.org_id = org
  left join organizations o on o.id = m.org_id
  where s.token_hash = hash and s.revoked_at is null and s.expires_at > at
$$;
grant execute on function firstcrack_user_session(text, text, timestamptz) to firstcrack_app;

-- The plan of an organization named by a stateless credential (a JWT carries the organization, not its plan,
-- which may change while the token lives).
create or replace function firstcrack_organization_plan(org text)
returns table (plan text)
language sql stable security definer set search_path = public as $$
  select o.plan from organizations o where o.id = org
$$;
grant execute on function firstcrack_organization_plan(text) to firstcrack_app;
