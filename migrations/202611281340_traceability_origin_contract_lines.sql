-- Origin per contract line: a contract line names the plots (or producers) its coffee comes from, and a
-- green lot received against the line inherits them (traceability/origin.ts: the lot's own declaration,
-- then its contract line's, its shipment's, its contract's, its sample's). A contract's declaration stays
-- the default for lines that name none.
alter table origin_declarations drop constraint origin_declarations_subject_kind_check;
alter table origin_declarations add constraint origin_declarations_subject_kind_check
  check (subject_kind in ('green_lot', 'contract', 'contract_line', 'shipment', 'sample'));
