-- Append-only tables (ledgers, events, lineage, certificates…): history is never rewritten, by any role.
-- firstcrack_append_only(table) revokes update and delete from the service role (server mode) and puts a
-- refusing trigger on the table, which binds every role, including the embedded database's single owner
-- connection. Re-runnable: calling it again on a table leaves the table the same.
--
-- The one exception is purging a whole organization (src/jobs/organization-purge.ts): a delete of a row whose
-- organization is scheduled for deletion, in a transaction that named that organization in the setting
-- firstcrack.purging_org. Both keys are needed: the setting alone (any session may set one) deletes nothing of
-- an organization nobody scheduled for deletion, and the service role holds no delete privilege on these tables.
--
-- A repeatable migration: this is the one current text of these functions, re-applied whenever it changes.
-- Whether this delete is part of purging organization `org` (see above).
create or replace function firstcrack_purging(op text, org text) returns boolean language plpgsql stable as $$
begin
  return op = 'DELETE' and org is not null and org = current_setting('firstcrack.purging_org', true)
    and exists (select 1 from organizations where id = org and deletion_scheduled_at is not null);
end $$;

create or replace function firstcrack_refuse_rewrite() returns trigger language plpgsql as $$
begin
  if firstcrack_purging(tg_op, to_jsonb(old) ->> 'org_id') then
    return old;
  end if;
  raise exception '% is append-only', tg_table_name using errcode = 'integrity_constraint_violation';
end $$;

create or replace function firstcrack_append_only(target regclass) returns void language plpgsql as $$
begin
  execute format('revoke update, delete on %s from firstcrack_app', target);
  execute format('drop trigger if exists append_only on %s', target);
  execute format('create trigger append_only before update or delete on %s '
                 'for each row execute function firstcrack_refuse_rewrite()', target);
end $$;
