-- A quarantine is a record, not only a flag: who put the lot in quarantine and when (the reason was already
-- kept in quarantine_reason), and who released it, when and why. The columns hold the lot's latest
-- quarantine; every quarantine and release is also an event (inventory.green.lot_quarantined / lot_released).
-- quarantine_reason is kept after a release (it is the latest quarantine's reason); `quarantined` says
-- whether the lot is in quarantine now.

alter table green_lots add column quarantined_at timestamptz;
alter table green_lots add column quarantined_by text;
alter table green_lots add column quarantine_released_at timestamptz;
alter table green_lots add column quarantine_released_by text;
alter table green_lots add column quarantine_release_reason text;

-- A release names its reason, who and when together; a lot in quarantine has no release after it.
alter table green_lots add constraint green_lots_quarantine_release check (
  (quarantine_released_at is null) = (quarantine_released_by is null)
  and (quarantine_released_at is null) = (quarantine_release_reason is null)
  and (not quarantined or quarantine_released_at is null)
);
