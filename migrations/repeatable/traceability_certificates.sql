-- The public certificate page knows only the token, not the organization, so the lookup runs as the owner
-- (owned by src/modules/traceability). It answers one certificate's frozen snapshot and the roaster's name,
-- nothing else.
--
-- A repeatable migration: this is the one current text of this function, re-applied whenever it changes.
create or replace function firstcrack_certificate_by_token(public_token text)
returns table (id text, organization_name text, snapshot jsonb, issued_at timestamptz)
language sql stable security definer set search_path = public as $$
  select c.id, o.name, c.snapshot, c.issued_at
  from certificates c join organizations o on o.id = c.org_id
  where c.token = public_token
$$;
grant execute on function firstcrack_certificate_by_token(text) to firstcrack_app;
