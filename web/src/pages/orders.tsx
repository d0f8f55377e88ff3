import { useState } from 'preact/hooks';
import type { OperationName } from '../../../clients/typescript/src/index.ts';
import { call, can, type Session } from '../session.ts';
import { Badge, BusyButton, ErrorBox, kg, Link, ListFooter, LoadState, useAction, useLoad, usePaged, when } from '../ui.tsx';

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
      <div class="head">
        <h1>Orders</h1>
        {can(session, 'orders.write') ? (
          <a class="button" href="#/orders/new">
            New order
          </a>
        ) : null}
      </div>
      <nav class="subnav" aria-label="Pages of this area">
        <a href="#/orders" class="current" aria-current="page">
          Orders
        </a>
        <a href="#/customers">Customers</a>
      </nav>
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
      <ListFooter list={list} what="orders" />
    </>
  );
}

export function OrderDetail({ session, id }: { session: Session; id: string }) {
  const order = useLoad(() => call(session, 'orders.getOrder', { id }), [session, id]);
  const action = useAction();
  const [note, setNote] = useState<string | null>(null);
  /** Which button started the action under way: it alone says what is happening; the others wait disabled. */
  const [started, setStarted] = useState<string | null>(null);
  const o = order.data;
  const writable = can(session, 'orders.write');
  const busy = action.busy;
  const act = async (button: string, pending: string, name: OperationName, input: Record<string, unknown>, done?: (answer: any) => string | null) => {
    setStarted(button);
    setNote(null);
    const answer = await action.run(pending, () => call(session, name, input as never));
    if (answer !== undefined) {
      setNote(done ? done(answer) : null);
      order.reload();
    }
  };
  const mine = (button: string) => busy && started === button;
  return (
    <>
      <p class="crumbs">
        <Link to="/orders">Orders</Link> /
      </p>
      <LoadState state={order} what="the order" />
      {o ? (
        <>
          <h1>
            {o.orderNumber} <Badge tone={tone(o.state)}>{o.state.replace('_', ' ')}</Badge>
          </h1>
          <p class="muted">
            {o.customer.name} · {kg(o.totalKg)} · {o.totalAmount} {o.currency} · allocated {kg(o.allocatedKg)} · fulfilled {kg(o.fulfilledKg)}
          </p>
          {writable && o.state === 'draft' ? (
            <div class="actions">
              <BusyButton busy={mine('confirm')} disabled={busy} busyLabel="Confirming…" onClick={() => act('confirm', 'Confirming…', 'orders.confirmOrder', { id: o.id }, () => 'Confirmed.')}>
                Confirm
              </BusyButton>
            </div>
          ) : null}
          {writable && (o.state === 'confirmed' || o.state === 'partially_allocated' || o.state === 'allocated') ? (
            <div class="actions">
              {o.state !== 'allocated' ? (
                <BusyButton
                  busy={mine('allocate')}
                  disabled={busy}
                  busyLabel="Allocating…"
                  onClick={() =>
                    act('allocate', 'Allocating…', 'orders.allocateOrder', { id: o.id }, (a) =>
                      a.complete ? 'Allocated in full.' : `Short: ${a.shortfalls.map((s: any) => `line ${s.lineNumber} ${s.shortfallKg} kg`).join(', ')}`,
                    )
                  }
                >
                  Allocate (FEFO)
                </BusyButton>
              ) : null}
              {o.state === 'allocated' ? (
                <BusyButton busy={mine('fulfil')} disabled={busy} busyLabel="Fulfilling…" onClick={() => act('fulfil', 'Fulfilling…', 'orders.fulfillOrder', { id: o.id }, () => 'Fulfilled.')}>
                  Fulfil
                </BusyButton>
              ) : null}
            </div>
          ) : null}
          {note ? <p class="notice">{note}</p> : null}
          <ErrorBox error={action.error} />
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
                  <BusyButton
                    class="secondary"
                    busy={mine(`release:${line.id}`)}
                    disabled={busy}
                    busyLabel="Releasing…"
                    onClick={() => act(`release:${line.id}`, 'Releasing…', 'orders.releaseOrderAllocation', { orderLineId: line.id }, () => 'Released.')}
                  >
                    Release allocation
                  </BusyButton>
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
