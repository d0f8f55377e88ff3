-- Every table holding organization data calls this once: RLS on, one policy keyed by app.org_id.
--
-- Versioned migrations call it while they run, before repeatable ones are applied, so 0001_platform.sql
-- also creates it; this file is its one current text, re-applied whenever it changes, and a change here
-- reaches the tables created after it (existing policies are not rewritten by re-applying it).
create or replace function firstcrack_tenant_table(target regclass) returns void language plpgsql as $$
begin
  execute format('alter table %s enable row level security', target);
  execute format(
    'create policy tenant_isolation on %s using (org_id = current_setting(''app.org_id'', true)) '
    'with check (org_id = current_setting(''app.org_id'', true))', target);
end $$;
