-- Append-only tables (ledgers, events, lineage, certificates…): history is never rewritten, by any role.
-- firstcrack_append_only(table) revokes update and delete from the service role (server mode) and puts a
-- refusing trigger on the table, which binds every role, including the embedded database's single owner
-- connection. Re-runnable: calling it again on a table leaves the table the same.
--
-- A repeatable migration: this is the one current text of these functions, re-applied whenever it changes.
create or replace function firstcrack_refuse_rewrite() returns trigger language plpgsql as $$
begin
  raise exception '% is append-only', tg_table_name using errcode = 'integrity_constraint_violation';
end $$;

create or replace function firstcrack_append_only(target regclass) returns void language plpgsql as $$
begin
  execute format('revoke update, delete on %s from firstcrack_app', target);
  execute format('drop trigger if exists append_only on %s', target);
  execute format('create trigger append_only before update or delete on %s '
                 'for each row execute function firstcrack_refuse_rewrite()', target);
end $$;
