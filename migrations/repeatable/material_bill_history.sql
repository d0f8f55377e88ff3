-- A published bill of materials is history (owned by src/modules/inventory/material): it may only be
-- retired, once, and never deleted (but with its whole organization, platform_append_only.sql). The trigger binds every role, including the embedded database's owner
-- connection. 0004_materials.sql creates the trigger (and first created this function).
--
-- A repeatable migration: this is the one current text of this function, re-applied whenever it changes.
create or replace function firstcrack_bill_of_materials_immutable() returns trigger language plpgsql as $$
begin
  if firstcrack_purging(tg_op, old.org_id) then
    return old; -- purging the whole organization (platform_append_only.sql)
  end if;
  if tg_op = 'DELETE' then
    raise exception 'bill of materials % is history and cannot be deleted', old.id using errcode = 'integrity_constraint_violation';
  end if;
  if old.retired_at is not null
     or (new.org_id, new.id, new.product_id, new.version, new.name, new.yield_qty, new.published_by, new.published_at)
        is distinct from (old.org_id, old.id, old.product_id, old.version, old.name, old.yield_qty, old.published_by, old.published_at) then
    raise exception 'bill of materials % is history: only retired_at may be set, and only once', old.id using errcode = 'integrity_constraint_violation';
  end if;
  return new;
end $$;
