-- A stored curve's samples and events are compressed with lz4 where the server was built with it, rather than
-- the default pglz: a 20-minute roast's 1 Hz curve is ~170 kB of JSON, and pglz took about a third more of the
-- insert's time on PostgreSQL 15 (bench/README.md, completeRoastBatch). Rows already stored keep their
-- compression until rewritten; either is read the same. Builds without lz4 (embedded PGlite) keep pglz.
do $$
begin
  if exists (select 1 from pg_settings where name = 'default_toast_compression' and 'lz4' = any (enumvals)) then
    alter table roast_curves alter column samples set compression lz4, alter column events set compression lz4;
  end if;
end
$$;
