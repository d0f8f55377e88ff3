import { useState } from 'preact/hooks';
import type { OperationName } from '../../../clients/typescript/src/index.ts';
import { call, can, type Session } from '../session.ts';
import { Badge, ErrorBox, kg, Link, Loading, MoreButton, useLoad, usePaged, when } from '../ui.tsx';

type OrderState = 'draft' | 'confirmed' | 'partially_allocated' | 'allocated' | 'fulfilled' | 'canceled';
const STATES: OrderState[] = ['draft', 'confirmed', 'partially_allocated', 'allocated', 'fulfilled', 'canceled'];
const tone = (s: OrderState) => (s === 'fulfilled' || s === 'allocated' ? 'ok' : s === 'canceled' ? 'bad' : s === 'draft' ? undefined : 'warn');

export function Orders({ session }: { session: Session }) {
  const [state, setState] = useState<OrderState | ''>('');
  const list = usePaged(
    (cursor) => call(session, 'orders.listOrders', { filter: state ? { state } : {}, page: { limit: 25, ...(cursor ? { cursor } : {}) } }),
    [session, state],
  );
  return (
    <>
      <h1>Orders</h1>
      <div class="filters">
        <label>
          State{' '}
          <select value={state} onChange={(e) => setState((e.target as HTMLSelectElement).value as OrderState)}>
            <option value="">all</option>
            {STATES.map((s) => (
              <option value={s}>{s.replace('_', ' ')}</option>
            ))}
          </select>
        </label>
      </div>
      <ErrorBox error={list.error} />
      <div class="table-wrap">
        <table class="list" data-list="orders">
          <thead>
            <tr>
              <th>Order</th>
              <th>Customer</th>
              <th>State</th>
              <th class="num">Kg</th>
              <th class="num hide-narrow">Allocated</th>
              <th class="hide-narrow">Ship by</th>
            </tr>
          </thead>
          <tbody>
            {list.items.map((o) => (
              <tr>
                <td>
                  <Link to={`/orders/${o.id}`}>{o.orderNumber}</Link>
                </td>
                <td>{o.customer.name}</td>
                <td>
                  <Badge tone={tone(o.state)}>{o.state.replace('_', ' ')}</Badge>
                </td>
                <td class="num">{kg(o.totalKg)}</td>
                <td class="num hide-narrow">{kg(o.allocatedKg)}</td>
                <td class="hide-narrow">{when(o.requestedShipAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {list.loading && list.items.length === 0 ? <Loading /> : null}
      {!list.loading && list.items.length === 0 && !list.error ? <p class="muted">No orders.</p> : null}
      <MoreButton more={list.more} loading={list.loading} />
    </>
  );
}

export function OrderDetail({ session, id }: { session: Session; id: string }) {
  const order = useLoad(() => call(session, 'orders.getOrder', { id }), [session, id]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [note, setNote] = useState<string | null>(null);
  const o = order.data;
  const writable = can(session, 'orders.write');
  const act = async (name: OperationName, input: Record<string, unknown>, done?: (answer: any) => string | null) => {
    setBusy(true);
    setError(null);
    try {
      const answer = await call(session, name, input as never);
      setNote(done ? done(answer) : null);
      order.reload();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <p class="crumbs">
        <Link to="/orders">Orders</Link> /
      </p>
      {order.loading && !o ? <Loading /> : <ErrorBox error={order.error} />}
      {o ? (
        <>
          <h1>
            {o.orderNumber} <Badge tone={tone(o.state)}>{o.state.replace('_', ' ')}</Badge>
          </h1>
          <p class="muted">
            {o.customer.name} · {kg(o.totalKg)} · {o.totalAmount} {o.currency} · allocated {kg(o.allocatedKg)} · fulfilled {kg(o.fulfilledKg)}
          </p>
          {writable && (o.state === 'confirmed' || o.state === 'partially_allocated' || o.state === 'allocated') ? (
            <div class="actions">
              {o.state !== 'allocated' ? (
                <button
                  type="button"
                  disabled={busy}
                  onClick={() =>
                    act('orders.allocateOrder', { id: o.id }, (a) =>
                      a.complete ? 'Allocated in full.' : `Short: ${a.shortfalls.map((s: any) => `line ${s.lineNumber} ${s.shortfallKg} kg`).join(', ')}`,
                    )
                  }
                >
                  Allocate (FEFO)
                </button>
              ) : null}
              {o.state === 'allocated' ? (
                <button type="button" disabled={busy} onClick={() => act('orders.fulfillOrder', { id: o.id }, () => 'Fulfilled.')}>
                  Fulfil
                </button>
              ) : null}
            </div>
          ) : null}
          {note ? <p class="notice">{note}</p> : null}
          <ErrorBox error={error} />
          {o.lines.map((line) => (
            <section class="card" data-line={line.lineNumber}>
              <h2>
                Line {line.lineNumber}: {kg(line.quantityKg)} {line.roastedLotCode ? `of ${line.roastedLotCode}` : line.greenLotCode ? `from ${line.greenLotCode}` : ''}
              </h2>
              <p class="muted">
                allocated {kg(line.allocatedKg)} · fulfilled {kg(line.fulfilledKg)} · open {kg(line.unallocatedKg)}
              </p>
              {line.allocations.length ? (
                <table>
                  <thead>
                    <tr>
                      <th>Roasted lot</th>
                      <th class="num">Kg</th>
                      <th class="hide-narrow">Best before</th>
                      <th>State</th>
                    </tr>
                  </thead>
                  <tbody>
                    {line.allocations.map((a) => (
                      <tr>
                        <td>{can(session, 'traceability.read') ? <Link to={`/trace/roasted_lot/${a.roastedLotId}`}>{a.lotCode}</Link> : a.lotCode}</td>
                        <td class="num">{kg(a.quantityKg)}</td>
                        <td class="hide-narrow">{a.bestBefore}</td>
                        <td>{a.state}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              ) : null}
              <div class="actions">
                {writable && line.allocations.some((a) => a.state === 'active') ? (
                  <button type="button" class="secondary" disabled={busy} onClick={() => act('orders.releaseOrderAllocation', { orderLineId: line.id }, () => 'Released.')}>
                    Release allocation
                  </button>
                ) : null}
                {can(session, 'traceability.read') && Number(line.fulfilledKg) > 0 ? <Link to={`/trace/order_line/${line.id}`}>Trace this line</Link> : null}
              </div>
            </section>
          ))}
        </>
      ) : null}
    </>
  );
}
