import { useState } from 'preact/hooks';
import type { AreaProps } from '../areas.tsx';
import { SubNav } from '../areas.tsx';
import { EntityPage, type Entity } from '../crud.tsx';
import { F, FormProblem, Submit, useForm } from '../form.tsx';
import { call, can, type Session } from '../session.ts';
import { Link, LoadState, navigate, useLoad } from '../ui.tsx';
import { massLabel } from '../units.ts';
import { OrderDetail, Orders } from './orders.tsx';

const CUSTOMER_TYPES = ['wholesale', 'cafe', 'retail', 'distributor', 'subscription', 'internal', 'export'];
const page = (cursor: string | undefined, limit: number) => ({ limit, ...(cursor ? { cursor } : {}) });

const customers: Entity<any> = {
  what: 'customers',
  one: 'customer',
  name: 'customers',
  write: 'orders.write',
  list: (s, filter, cursor, limit) => call(s, 'orders.listCustomers', { filter: filter as never, page: page(cursor, limit) }),
  filters: [
    { name: 'q', label: 'Search customers', type: 'search', placeholder: 'Name, code or email' },
    { name: 'customerType', label: 'Type', type: 'select', options: [['', 'any type'], ...CUSTOMER_TYPES.map((t): [string, string] => [t, t])] },
  ],
  columns: [
    { label: 'Code', key: 'code', render: (r) => <span class="code">{r.code}</span> },
    { label: 'Name', key: 'name' },
    { label: 'Type', key: 'customerType', wide: true },
    { label: 'Currency', key: 'currency', wide: true },
    { label: 'Email', key: 'contactEmail', wide: true },
  ],
  fields: [
    { name: 'name', label: 'Name', required: true },
    { name: 'code', label: 'Code', required: true, createOnly: true },
    { name: 'customerType', label: 'Type', type: 'select', options: CUSTOMER_TYPES.map((t) => [t, t]) },
    { name: 'currency', label: 'Currency (e.g. EUR)' },
    { name: 'paymentTermsDays', label: 'Payment terms (days)', type: 'int' },
    { name: 'contactEmail', label: 'Contact email', type: 'email' },
    { name: 'shippingAddress.line1', label: 'Street' },
    { name: 'shippingAddress.city', label: 'City' },
    { name: 'shippingAddress.country', label: 'Country (ISO code)' },
  ],
  create: (s, input) => call(s, 'orders.createCustomer', input as never),
};

/** A new order: its customer, its number and its lines (a roasted or green lot, a quantity in the user's unit, a price). */
function NewOrder({ session }: { session: Session }) {
  const form = useForm();
  const [lines, setLines] = useState([0]);
  const [nextLine, setNextLine] = useState(1);
  const options = useLoad(
    () =>
      Promise.all([
        call(session, 'orders.listCustomers', { page: { limit: 100 } }),
        can(session, 'inventory.roast.read') ? call(session, 'inventory.roast.listRoastedLots', { filter: { hasStock: true }, page: { limit: 100 } }) : null,
        can(session, 'inventory.green.read') ? call(session, 'inventory.green.listGreenLots', { filter: { hasStock: true }, page: { limit: 100 } }) : null,
      ]),
    [session],
  );
  const [customers, roasted, green] = options.data ?? [null, null, null];
  return (
    <>
      <p class="crumbs">
        <Link to="/orders">Orders</Link> /
      </p>
      <h1>New order</h1>
      <LoadState state={options} what="customers and lots" />
      {customers ? (
        <form
          class="card"
          data-form="new-order"
          noValidate
          onSubmit={form.submit(
            'Creating the order…',
            (v) =>
              call(session, 'orders.createOrder', {
                orderNumber: v.text('orderNumber'),
                customerId: v.text('customerId'),
                ...(v.str('currency') ? { currency: v.str('currency') } : {}),
                ...(v.str('requestedShipAt') ? { requestedShipAt: v.str('requestedShipAt') } : {}),
                lines: lines.map((n, i) => {
                  const [kind, lotId] = v.text(`lot${n}`).split(':');
                  return { ...(kind === 'green' ? { greenLotId: lotId } : { roastedLotId: lotId }), quantityKg: v.kg(`qty${n}`) ?? '', unitPrice: v.decimal(`price${n}`) ?? '' } as never;
                }),
              } as never),
            (order) => navigate(`/orders/${order.id}`),
          )}
        >
          <F form={form} name="customerId" label="Customer">
            <select name="customerId" required>
              <option value="">—</option>
              {customers.items.map((c) => (
                <option value={c.id}>
                  {c.name} ({c.code})
                </option>
              ))}
            </select>
          </F>
          {customers.items.length === 0 ? (
            <p class="notice">
              No customers yet: <Link to="/customers">create one</Link> first.
            </p>
          ) : null}
          <F form={form} name="orderNumber" label="Order number">
            <input name="orderNumber" required />
          </F>
          <div class="pair">
            <F form={form} name="currency" label="Currency (default: the customer’s)">
              <input name="currency" />
            </F>
            <F form={form} name="requestedShipAt" label="Ship by">
              <input name="requestedShipAt" type="date" />
            </F>
          </div>
          <fieldset>
            <legend>Lines</legend>
            {lines.map((n, i) => (
              <div class="pair line" data-order-line={i}>
                <F form={form} name={`lines.${i}.roastedLotId`} label={`Line ${i + 1}: lot`}>
                  <select name={`lot${n}`}>
                    {(roasted?.items ?? []).map((l) => (
                      <option value={`roasted:${l.id}`}>roasted {l.lotCode}</option>
                    ))}
                    {(green?.items ?? []).map((l) => (
                      <option value={`green:${l.id}`}>green {l.lotCode}</option>
                    ))}
                  </select>
                </F>
                <F form={form} name={`lines.${i}.quantityKg`} label={`Quantity (${massLabel()})`}>
                  <input name={`qty${n}`} inputMode="decimal" />
                </F>
                <F form={form} name={`lines.${i}.unitPrice`} label="Unit price (per kg)">
                  <input name={`price${n}`} inputMode="decimal" />
                </F>
                {lines.length > 1 ? (
                  <button type="button" class="small secondary" onClick={() => setLines(lines.filter((m) => m !== n))} aria-label={`Remove line ${i + 1}`}>
                    Remove
                  </button>
                ) : null}
              </div>
            ))}
            <button
              type="button"
              class="secondary"
              onClick={() => {
                setLines([...lines, nextLine]);
                setNextLine(nextLine + 1);
              }}
            >
              Add a line
            </button>
          </fieldset>
          <FormProblem form={form} />
          <div class="actions">
            <Submit form={form}>Create order</Submit>
          </div>
        </form>
      ) : null}
    </>
  );
}

/** Orders and customers. */
export function view({ session, parts: [head, id] }: AreaProps) {
  if (head === 'customers')
    return (
      <>
        <h1>Customers</h1>
        <SubNav current="/customers" items={[['/orders', 'Orders'], ['/customers', 'Customers']]} />
        <EntityPage session={session} entity={customers} />
      </>
    );
  if (id === 'new') return <NewOrder session={session} />;
  if (id) return <OrderDetail key={id} session={session} id={id} />;
  return <Orders session={session} />;
}
