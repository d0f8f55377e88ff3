-- The organization's own time zone (IANA name, checked by the service): its documents print times in it.
-- Null: UTC. "if not exists": another change reading roast logs may add the same column under the same name.
alter table organizations add column if not exists timezone text;
