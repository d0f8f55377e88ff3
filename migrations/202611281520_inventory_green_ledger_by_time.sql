-- The rows recorded since an instant, per organization: a report's stock at an instant is today's balances
-- less these (src/modules/inventory/green/repository.ts, holdingsAt), so it reads the ledger since then,
-- not all of it.
create index green_lot_ledger_by_time on green_lot_ledger (org_id, created_at);
