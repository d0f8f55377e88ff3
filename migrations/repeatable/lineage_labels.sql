-- What lineage edges copy of their ends (lot codes, green lot names, batch numbers, order numbers and
-- customers) may not change afterwards: the keep_label triggers (0014_lineage_known.sql and the modules'
-- own migrations) call this with the columns they guard.
--
-- A repeatable migration: this is the one current text of this function, re-applied whenever it changes.
create or replace function firstcrack_refuse_relabel() returns trigger language plpgsql as $$
begin
  raise exception '%: % cannot change once recorded (lineage names it)', tg_table_name, tg_argv[0]
    using errcode = 'integrity_constraint_violation';
end $$;
