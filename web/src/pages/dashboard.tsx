import { useEffect } from 'preact/hooks';
import { call, can, type Session } from '../session.ts';
import { Badge, kg, Link, LoadState, useLoad, when } from '../ui.tsx';

/** At most this many lots' balances are read to sum stock by location (one call per lot: there is no by-location report). */
const STOCK_LOTS = 60;

async function stockByLocation(session: Session) {
  const [lots, roasted, locations] = await Promise.all([
    call(session, 'inventory.green.listGreenLots', { filter: { hasStock: true }, page: { limit: STOCK_LOTS } }),
    can(session, 'inventory.roast.read') ? call(session, 'inventory.roast.listRoastedLots', { filter: { hasStock: true }, page: { limit: 100 } }) : null,
    can(session, 'catalog.location.read') ? call(session, 'catalog.location.listLocations', { page: { limit: 100 } }) : null,
  ]);
  const names = new Map<string | null, string>((locations?.items ?? []).map((l) => [l.id, `${l.name} (${l.code})`]));
  const rows = new Map<string, { green: number; roasted: number }>();
  const row = (key: string) => rows.get(key) ?? rows.set(key, { green: 0, roasted: 0 }).get(key)!;
  const balances = await Promise.all(lots.items.map((lot) => call(session, 'inventory.green.listGreenLotBalances', { greenLotId: lot.id })));
  for (const page of balances) {
    for (const b of page.items) row(b.locationId ? names.get(b.locationId) ?? b.locationName ?? b.locationId : 'Unassigned').green += Number(b.onHandKg);
  }
  for (const lot of roasted?.items ?? []) row(lot.locationId ? names.get(lot.locationId) ?? lot.locationId : 'Unassigned').roasted += Number(lot.onHandKg);
  return { rows: [...rows.entries()].sort((a, b) => a[0].localeCompare(b[0])), partial: lots.nextCursor !== null };
}

export function Dashboard({ session }: { session: Session }) {
  const stock = useLoad(() => (can(session, 'inventory.green.read') ? stockByLocation(session) : Promise.resolve(null)), [session]);
  const live = useLoad(
    () => (can(session, 'production.roast.read') ? call(session, 'production.roast.listRoastBatches', { filter: { state: 'live' }, page: { limit: 20 } }) : Promise.resolve(null)),
    [session],
  );
  // A batch charged while the dashboard is open shows up within 15 seconds.
  useEffect(() => {
    const timer = setInterval(() => document.visibilityState === 'visible' && live.reload(), 15_000);
    return () => clearInterval(timer);
  }, [session]);
  const waiting = useLoad(async () => {
    if (!can(session, 'orders.read')) return null;
    const [confirmed, partial] = await Promise.all([
      call(session, 'orders.listOrders', { filter: { state: 'confirmed' }, page: { limit: 20 } }),
      call(session, 'orders.listOrders', { filter: { state: 'partially_allocated' }, page: { limit: 20 } }),
    ]);
    return [...confirmed.items, ...partial.items];
  }, [session]);
  const materials = useLoad(
    () => (can(session, 'inventory.material.read') ? call(session, 'inventory.material.listMaterials', { filter: { belowReorderPoint: true }, page: { limit: 20 } }) : Promise.resolve(null)),
    [session],
  );
  const quarantined = useLoad(
    () => (can(session, 'inventory.green.read') ? call(session, 'inventory.green.listGreenLots', { filter: { quarantined: true }, page: { limit: 20 } }) : Promise.resolve(null)),
    [session],
  );

  return (
    <>
      <h1>Dashboard</h1>
      <div class="grid">
        {can(session, 'inventory.green.read') ? (
          <section class="card" data-card="stock">
            <h2>Stock by location</h2>
            <LoadState state={stock} what="stock" />
            {stock.data ? (
              stock.data.rows.length === 0 ? (
                <p class="muted">No stock.</p>
              ) : (
                <table>
                  <thead>
                    <tr>
                      <th>Location</th>
                      <th class="num">Green</th>
                      <th class="num">Roasted</th>
                    </tr>
                  </thead>
                  <tbody>
                    {stock.data.rows.map(([name, r]) => (
                      <tr>
                        <td>{name}</td>
                        <td class="num">{kg(r.green)}</td>
                        <td class="num">{kg(r.roasted)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )
            ) : null}
            {stock.data?.partial ? <p class="muted">Green stock of the first {STOCK_LOTS} lots.</p> : null}
          </section>
        ) : null}
        {can(session, 'production.roast.read') ? (
          <section class="card" data-card="live">
            <h2>Live roasts</h2>
            <LoadState state={live} what="live roasts" />
            {live.data && live.data.items.length === 0 ? <p class="muted">Nothing in the drum.</p> : null}
            <ul class="plain">
              {live.data?.items.map((b) => (
                <li>
                  <Link to={`/batches/${b.id}`}>{b.batchNumber}</Link> <Badge tone="live">live</Badge> <span class="muted">since {when(b.startedAt)}</span>
                </li>
              ))}
            </ul>
          </section>
        ) : null}
        {can(session, 'orders.read') ? (
          <section class="card" data-card="orders">
            <h2>Orders waiting for allocation</h2>
            <LoadState state={waiting} what="orders" />
            {waiting.data && waiting.data.length === 0 ? <p class="muted">None waiting.</p> : null}
            <ul class="plain">
              {waiting.data?.map((o) => (
                <li>
                  <Link to={`/orders/${o.id}`}>{o.orderNumber}</Link> {o.customer.name} · {kg(o.totalKg)} <Badge tone="warn">{o.state.replace('_', ' ')}</Badge>
                </li>
              ))}
            </ul>
          </section>
        ) : null}
        {can(session, 'inventory.material.read') ? (
          <section class="card" data-card="materials">
            <h2>Materials below reorder point</h2>
            <LoadState state={materials} what="materials" />
            {materials.data && materials.data.items.length === 0 ? <p class="muted">All above their reorder points.</p> : null}
            <ul class="plain">
              {materials.data?.items.map((m) => (
                <li>
                  {m.name} <span class="muted">({m.sku})</span>: {Number(m.onHand).toLocaleString('en')} on hand, reorder at {Number(m.reorderPoint).toLocaleString('en')}
                </li>
              ))}
            </ul>
          </section>
        ) : null}
        {can(session, 'inventory.green.read') ? (
          <section class="card" data-card="quarantine">
            <h2>Quarantined lots</h2>
            <LoadState state={quarantined} what="quarantined lots" />
            {quarantined.data && quarantined.data.items.length === 0 ? <p class="muted">None.</p> : null}
            <ul class="plain">
              {quarantined.data?.items.map((l) => (
                <li>
                  <Link to={`/lots/${l.id}`}>{l.lotCode}</Link> {l.name} <Badge tone="bad">quarantined</Badge> <span class="muted">{l.quarantineReason}</span>
                </li>
              ))}
            </ul>
          </section>
        ) : null}
      </div>
    </>
  );
}
