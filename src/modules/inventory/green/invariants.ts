import type { Queryable } from '../../../db/client.js';

/**
 * Checks, by SQL over the whole ledger, what the green inventory promises: every materialised figure
 * equals the sum of its ledger rows, and the history never went where the rules forbid. Returns one line
 * per violation (empty: all is well). Used by the tests and the ledger benchmark, run as the tables' owner.
 */
export async function ledgerInvariantViolations(q: Queryable, orgId?: string): Promise<string[]> {
  const rows = await q.query<{ violation: string }>(
    `with ledger_by_balance as (
       select org_id, lot_id, coalesce(location_id, '') as location_key, sum(delta_kg) as kg
       from green_lot_ledger where kind not in ('reserve', 'release') and ($1::text is null or org_id = $1)
       group by 1, 2, 3
     ),
     balances as (
       select org_id, lot_id, coalesce(location_id, '') as location_key, on_hand_kg
       from green_lot_balances where $1::text is null or org_id = $1
     ),
     ledger_by_lot as (
       select org_id, lot_id, sum(delta_kg) as on_hand, sum(reserved_delta_kg) as reserved,
              coalesce(sum(delta_kg) filter (where kind in ('receive', 'split_in')), 0) as opening,
              count(*) as row_count, max(seq) as max_seq
       from green_lot_ledger where $1::text is null or org_id = $1 group by 1, 2
     ),
     balance_by_lot as (select org_id, lot_id, sum(on_hand_kg) as on_hand from balances group by 1, 2),
     history as (
       select org_id, lot_id, seq, kind, delta_kg, reserved_delta_kg, location_id,
              sum(delta_kg) over (partition by org_id, lot_id, coalesce(location_id, '') order by seq) as location_after,
              sum(delta_kg - reserved_delta_kg) over (partition by org_id, lot_id order by seq) as available_after
       from green_lot_ledger where $1::text is null or org_id = $1
     )
     select format('balance %s@%s is %s but its ledger rows sum to %s', coalesce(b.lot_id, l.lot_id), coalesce(b.location_key, l.location_key),
                   coalesce(b.on_hand_kg, 0), coalesce(l.kg, 0)) as violation
     from balances b full join ledger_by_balance l
       on l.org_id = b.org_id and l.lot_id = b.lot_id and l.location_key = b.location_key
     where coalesce(b.on_hand_kg, 0) <> coalesce(l.kg, 0)
     union all
     select format('lot %s totals (on hand %s, reserved %s, opening %s, seq %s) disagree with its ledger (%s, %s, %s, %s rows up to seq %s) or balances (%s)',
                   g.id, g.on_hand_kg, g.reserved_kg, g.opening_kg, g.ledger_seq,
                   coalesce(l.on_hand, 0), coalesce(l.reserved, 0), coalesce(l.opening, 0), coalesce(l.row_count, 0), coalesce(l.max_seq, 0),
                   coalesce(bl.on_hand, 0))
     from green_lots g
     left join ledger_by_lot l on l.org_id = g.org_id and l.lot_id = g.id
     left join balance_by_lot bl on bl.org_id = g.org_id and bl.lot_id = g.id
     where ($1::text is null or g.org_id = $1)
       and (g.on_hand_kg <> coalesce(l.on_hand, 0) or g.on_hand_kg <> coalesce(bl.on_hand, 0) or g.reserved_kg <> coalesce(l.reserved, 0)
            or g.opening_kg <> coalesce(l.opening, 0) or g.ledger_seq <> coalesce(l.row_count, 0) or g.ledger_seq <> coalesce(l.max_seq, 0))
     union all
     select format('lot %s row %s (%s) took %s below zero without a recount', lot_id, seq, kind, coalesce(location_id, 'the unassigned balance'))
     from history where kind <> 'recount' and delta_kg < 0 and location_after < 0
     union all
     select format('lot %s row %s (%s) left less available than reserved without a recount', lot_id, seq, kind)
     from history
     where kind in ('adjust', 'shrinkage', 'write_off', 'sample_draw', 'return', 'split_out', 'merge_out', 'reserve')
       and (delta_kg < 0 or reserved_delta_kg > 0) and available_after < 0
       and not exists (select 1 from green_lot_ledger r where r.org_id = history.org_id and r.lot_id = history.lot_id and r.kind = 'recount' and r.seq < history.seq)`,
    [orgId ?? null],
  );
  return rows.map((r) => r.violation);
}
