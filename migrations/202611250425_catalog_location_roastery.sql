-- The roaster's own site is stored and answered as `roastery`; the specification's spelling
-- `the service` is accepted as input only (catalog/location/schemas.ts), so it is no stored value.
alter table locations drop constraint locations_kind_check;
update locations set kind = 'roastery' where kind = 'the service';
alter table locations add constraint locations_kind_check
  check (kind in ('roastery', 'warehouse', 'cafe', 'lab', 'transit', 'external'));
