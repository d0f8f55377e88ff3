import { useState } from 'preact/hooks';
import type { OperationName } from '../../../clients/typescript/src/index.ts';
import { call, can, problemFields, type Session } from '../session.ts';
import { Badge, BusyButton, ErrorBox, Field, kg, Link, ListFooter, LoadState, navigate, Progress, useAction, useLoad, usePaged, when } from '../ui.tsx';
import { SpecForm } from '../crud.tsx';
import { F, FormProblem, Submit, useForm } from '../form.tsx';

export function Lots({ session }: { session: Session }) {
  const [q, setQ] = useState('');
  const [quarantinedOnly, setQuarantinedOnly] = useState(false);
  const list = usePaged(
    (cursor) =>
      call(session, 'inventory.green.listGreenLots', {
        filter: { ...(q ? { q } : {}), ...(quarantinedOnly ? { quarantined: true } : {}) },
        page: { limit: 25, ...(cursor ? { cursor } : {}) },
      }),
    [session, q, quarantinedOnly],
  );
  return (
    <>
      <div class="head">
        <h1>Green lots</h1>
        {can(session, 'inventory.green.write') ? (
          <a class="button" href="#/lots/new">
            New green lot
          </a>
        ) : null}
      </div>
      <form
        class="filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setQ(String(new FormData(e.target as HTMLFormElement).get('q') ?? ''));
        }}
      >
        <input name="q" type="search" placeholder="Lot code or name" aria-label="Search lots" defaultValue={q} />
        <button type="submit">Search</button>
        <label class="check">
          <input type="checkbox" checked={quarantinedOnly} onChange={(e) => setQuarantinedOnly((e.target as HTMLInputElement).checked)} /> quarantined
        </label>
      </form>
      <ErrorBox error={list.error} />
      <div class="table-wrap">
        <table class="list" data-list="lots">
          <thead>
            <tr>
              <th>Lot</th>
              <th class="hide-narrow">Name</th>
              <th class="num">On hand</th>
              <th class="num hide-narrow">Reserved</th>
              <th class="num">Available</th>
            </tr>
          </thead>
          <tbody>
            {list.items.map((lot) => (
              <tr>
                <td>
                  <Link to={`/lots/${lot.id}`} class="code">
                    {lot.lotCode}
                  </Link>{' '}
                  {lot.quarantined ? <Badge tone="bad">quarantined</Badge> : null}
                  <div class="muted show-narrow">{lot.name}</div>
                </td>
                <td class="hide-narrow">{lot.name}</td>
                <td class="num">{kg(lot.onHandKg)}</td>
                <td class="num hide-narrow">{kg(lot.reservedKg)}</td>
                <td class="num">{kg(lot.availableKg)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <ListFooter list={list} what="lots" />
    </>
  );
}

/** Roasted stock, freshest first; a lot past its best-before day is marked expired (allocation does not promise it). */
export function RoastedLots({ session }: { session: Session }) {
  const [inStock, setInStock] = useState(true);
  const [expiredOnly, setExpiredOnly] = useState(false);
  const list = usePaged(
    (cursor) =>
      call(session, 'inventory.roast.listRoastedLots', {
        filter: { ...(inStock ? { hasStock: true } : {}), ...(expiredOnly ? { expired: true } : {}) },
        page: { limit: 25, ...(cursor ? { cursor } : {}) },
      }),
    [session, inStock, expiredOnly],
  );
  return (
    <>
      <h1>Roasted lots</h1>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <label class="check">
          <input type="checkbox" checked={inStock} onChange={(e) => setInStock((e.target as HTMLInputElement).checked)} /> in stock
        </label>
        <label class="check">
          <input type="checkbox" checked={expiredOnly} onChange={(e) => setExpiredOnly((e.target as HTMLInputElement).checked)} /> expired
        </label>
      </form>
      <ErrorBox error={list.error} />
      <div class="table-wrap">
        <table class="list" data-list="roasted-lots">
          <thead>
            <tr>
              <th>Lot</th>
              <th class="hide-narrow">Green lot</th>
              <th class="hide-narrow">Roasted</th>
              <th>Best before</th>
              <th class="num">On hand</th>
            </tr>
          </thead>
          <tbody>
            {list.items.map((lot) => (
              <tr data-expired={lot.expired ? 'true' : 'false'}>
                <td>
                  <span class="code">{lot.lotCode}</span> {lot.expired ? <Badge tone="bad">expired</Badge> : null}
                </td>
                <td class="hide-narrow">{lot.greenLotId ? <Link to={`/lots/${lot.greenLotId}`}>{lot.greenLotCode}</Link> : '—'}</td>
                <td class="hide-narrow">{when(lot.roastedAt)}</td>
                <td>{lot.bestBefore}</td>
                <td class="num">{kg(lot.onHandKg)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <ListFooter list={list} what="roasted lots" />
    </>
  );
}

type Action = 'adjust' | 'transfer' | 'reserve' | 'split' | 'merge';
const ACTIONS: Action[] = ['adjust', 'transfer', 'reserve', 'split', 'merge'];
/** What the service refuses on a quarantined lot (409 lot_quarantined): not offered until it is released. */
const REFUSED_IN_QUARANTINE = new Set<Action>(['reserve', 'split', 'merge']);

/** A quarantined lot's reason, and its release with a reason for those who may grade. */
export function Quarantine({ session, lotId, reason, onReleased }: { session: Session; lotId: string; reason: string | null; onReleased: () => void }) {
  const form = useForm();
  const [open, setOpen] = useState(false);
  return (
    <div class="error quarantine" data-quarantine>
      <strong>Quarantined</strong>: {reason ?? 'no reason given'}. Reserving, splitting, merging and roasting are refused until it is released.
      {can(session, 'quality.grading.write') ? (
        open ? (
          <form
            data-form="release"
            noValidate
            onSubmit={form.submit('Releasing…', (v) => call(session, 'quality.grading.releaseQuarantine', { greenLotId: lotId, reason: v.text('reason') }), onReleased)}
          >
            <F form={form} name="reason" label="Why it may be used again">
              <input name="reason" required />
            </F>
            <FormProblem form={form} />
            <Submit form={form}>Release</Submit>
          </form>
        ) : (
          <div>
            <button type="button" class="secondary small" onClick={() => setOpen(true)}>
              Release from quarantine
            </button>
          </div>
        )
      ) : null}
    </div>
  );
}

export function LotDetail({ session, id }: { session: Session; id: string }) {
  const [version, setVersion] = useState(0);
  const lot = useLoad(() => call(session, 'inventory.green.getGreenLot', { id }), [session, id, version]);
  const balances = useLoad(() => call(session, 'inventory.green.listGreenLotBalances', { greenLotId: id }), [session, id, version]);
  const cost = useLoad(() => call(session, 'inventory.green.getGreenLotLandedCost', { greenLotId: id }), [session, id, version]);
  const ledger = usePaged(
    (cursor) => call(session, 'inventory.green.listGreenLotTransactions', { greenLotId: id, page: { limit: 50, ...(cursor ? { cursor } : {}) } }),
    [session, id, version],
  );
  const locations = useLoad(
    () => (can(session, 'catalog.location.read') ? call(session, 'catalog.location.listLocations', { page: { limit: 100 } }) : Promise.resolve(null)),
    [session],
  );
  const [action, setAction] = useState<Action | null>(null);
  const [made, setMade] = useState<{ id: string; lotCode: string } | null>(null);
  const writable = can(session, 'inventory.green.write');
  const l = lot.data;
  const locationName = (locationId: string | null) =>
    locationId === null ? 'Unassigned' : locations.data?.items.find((x) => x.id === locationId)?.code ?? locationId;

  return (
    <>
      <p class="crumbs">
        <Link to="/lots">Green lots</Link> /
      </p>
      <LoadState state={lot} what="the lot" />
      {l ? (
        <>
          <h1>
            {l.lotCode} <span class="muted">{l.name}</span> {l.quarantined ? <Badge tone="bad">quarantined</Badge> : null}
          </h1>
          {l.quarantined ? <Quarantine session={session} lotId={l.id} reason={l.quarantineReason} onReleased={() => setVersion((n) => n + 1)} /> : null}
          <dl class="facts" data-lot={l.id}>
            <div>
              <dt>On hand</dt>
              <dd data-value="onHandKg">{kg(l.onHandKg)}</dd>
            </div>
            <div>
              <dt>Reserved</dt>
              <dd>{kg(l.reservedKg)}</dd>
            </div>
            <div>
              <dt>Available</dt>
              <dd>{kg(l.availableKg)}</dd>
            </div>
            <div>
              <dt>State</dt>
              <dd>{l.state.replace('_', ' ')}</dd>
            </div>
          </dl>
          {can(session, 'traceability.read') ? (
            <p>
              <Link to={`/trace/green_lot/${l.id}`}>Trace this lot</Link>
            </p>
          ) : null}
          {writable ? (
            <div class="actions" role="group" aria-label="Lot actions">
              {ACTIONS.filter((a) => !l.quarantined || !REFUSED_IN_QUARANTINE.has(a)).map((a) => (
                <button
                  type="button"
                  class={action === a ? '' : 'secondary'}
                  aria-pressed={action === a}
                  onClick={() => {
                    setMade(null);
                    setAction(action === a ? null : a);
                  }}
                >
                  {a[0].toUpperCase() + a.slice(1)}
                </button>
              ))}
            </div>
          ) : null}
          {writable && action ? (
            <ActionForm
              key={action}
              session={session}
              action={action}
              lotId={l.id}
              locations={locations.data?.items ?? []}
              onDone={(answer) => {
                setAction(null);
                setMade(answer.child ? { id: answer.child.id, lotCode: answer.child.lotCode } : null);
                setVersion((v) => v + 1);
              }}
            />
          ) : null}
          {made ? (
            <p class="notice" data-made={made.id}>
              Split off into <Link to={`/lots/${made.id}`}>{made.lotCode}</Link>.
            </p>
          ) : null}
        </>
      ) : null}

      {l ? (
      <>
      <div class="grid">
        <section class="card">
          <h2>Balances</h2>
          <ErrorBox error={balances.error} />
          <table>
            <tbody>
              {balances.data?.items.map((b) => (
                <tr>
                  <td>{b.locationCode ? `${b.locationName} (${b.locationCode})` : 'Unassigned'}</td>
                  <td class="num">{kg(b.onHandKg)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
        <section class="card">
          <h2>Landed cost</h2>
          <ErrorBox error={cost.error} />
          {cost.data ? (
            <table>
              <tbody>
                {Object.entries(cost.data.buckets).map(([bucket, amount]) => (
                  <tr>
                    <td>{bucket}</td>
                    <td class="num">
                      {amount} {cost.data!.currency ?? ''}
                    </td>
                  </tr>
                ))}
                <tr class="total">
                  <td>total</td>
                  <td class="num">
                    {cost.data.total} {cost.data.currency ?? ''}
                  </td>
                </tr>
                <tr>
                  <td>per kg</td>
                  <td class="num">{cost.data.perKg ?? '—'}</td>
                </tr>
              </tbody>
            </table>
          ) : null}
        </section>
      </div>

      <section>
        <h2>Ledger</h2>
        <ErrorBox error={ledger.error} />
        <div class="table-wrap">
          <table class="list" data-list="ledger">
            <thead>
              <tr>
                <th>#</th>
                <th>Kind</th>
                <th class="num">Δ kg</th>
                <th class="num hide-narrow">Δ reserved</th>
                <th>Location</th>
                <th class="hide-narrow">When</th>
                <th class="hide-narrow">Comment</th>
              </tr>
            </thead>
            <tbody>
              {ledger.items.map((t) => (
                <tr data-kind={t.kind} data-delta={t.deltaKg}>
                  <td>{t.seq}</td>
                  <td>
                    {t.kind.replace('_', ' ')}
                    {Number(t.reservedDeltaKg) !== 0 ? <div class="muted show-narrow">reserved {t.reservedDeltaKg}</div> : null}
                  </td>
                  <td class="num">{t.deltaKg}</td>
                  <td class="num hide-narrow">{t.reservedDeltaKg}</td>
                  <td>{locationName(t.locationId)}</td>
                  <td class="hide-narrow">{when(t.createdAt)}</td>
                  <td class="hide-narrow">{t.comment}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <ListFooter list={ledger} what="ledger rows" />
      </section>
      </>
      ) : null}
    </>
  );
}

const REASONS = ['adjust', 'recount', 'shrinkage', 'write_off', 'sample_draw', 'return'] as const;
const PENDING: Record<Action, string> = {
  adjust: 'Adjusting…',
  transfer: 'Transferring…',
  reserve: 'Reserving…',
  split: 'Splitting…',
  merge: 'Merging…',
};
/** What an action answers: a split names the lot it made. */
type ActionAnswer = { child?: { id: string; lotCode: string } };

function ActionForm({
  session,
  action,
  lotId,
  locations,
  onDone,
}: {
  session: Session;
  action: Action;
  lotId: string;
  locations: { id: string; code: string; name: string }[];
  onDone: (answer: ActionAnswer) => void;
}) {
  const action$ = useAction();
  const others = useLoad(
    () =>
      action === 'merge'
        ? call(session, 'inventory.green.listGreenLots', { filter: { hasStock: true }, page: { limit: 100 } }).then((page) => page.items.filter((l) => l.id !== lotId))
        : Promise.resolve([]),
    [session, action, lotId],
  );
  const locationSelect = (name: string, allowNone: boolean) => (
    <select name={name}>
      {allowNone ? <option value="">Unassigned</option> : null}
      {locations.map((l) => (
        <option value={l.id}>
          {l.name} ({l.code})
        </option>
      ))}
    </select>
  );
  const submit = async (e: Event) => {
    e.preventDefault();
    const f = new FormData(e.target as HTMLFormElement);
    const text = (k: string) => String(f.get(k) ?? '').trim();
    const optional = (k: string) => (text(k) ? { [k]: text(k) } : {});
    const nullable = (k: string) => (text(k) === '' ? null : text(k));
    let op: OperationName;
    let input: Record<string, unknown>;
    switch (action) {
      case 'adjust':
        op = 'inventory.green.adjustGreenLotQuantity';
        input = { id: lotId, deltaKg: text('deltaKg'), reason: text('reason'), ...(locations.length ? { locationId: nullable('locationId') } : {}), ...optional('comment') };
        break;
      case 'transfer':
        op = 'inventory.green.transferGreenLotToLocation';
        input = { id: lotId, fromLocationId: nullable('fromLocationId'), toLocationId: nullable('toLocationId'), weightKg: text('weightKg'), ...optional('comment') };
        break;
      case 'reserve':
        op = 'inventory.green.reserveGreenLot';
        input = { id: lotId, weightKg: text('weightKg'), ...optional('comment') };
        break;
      case 'split':
        op = 'inventory.green.splitGreenLot';
        input = { id: lotId, weightKg: text('weightKg'), newLotCode: text('newLotCode'), ...optional('newName'), ...optional('comment') };
        break;
      case 'merge':
        op = 'inventory.green.mergeGreenLots';
        input = { targetId: lotId, sourceIds: f.getAll('sourceIds').map(String), ...optional('comment') };
        break;
    }
    const answer = await action$.run(PENDING[action], () => call(session, op, input as never));
    if (answer !== undefined) onDone(answer as ActionAnswer);
  };
  const found = action$.error ? problemFields(action$.error) : { byField: {} as Record<string, string>, general: null };
  // The lot itself (`id`, `targetId`) is not a field of the form: its problem is shown above the button.
  const { id: lotProblem, targetId, ...byField } = found.byField;
  const errors = { byField, general: found.general ?? lotProblem ?? targetId ?? null };
  const err = (k: string) => errors.byField[k];
  return (
    <form class="card action-form" data-action={action} onSubmit={submit} noValidate>
      <h2>{action[0].toUpperCase() + action.slice(1)}</h2>
      {action === 'adjust' ? (
        <>
          <Field label="Change (kg, negative to take out)" name="deltaKg" error={err('deltaKg')}>
            <input name="deltaKg" inputMode="decimal" required />
          </Field>
          <Field label="Reason" name="reason" error={err('reason')}>
            <select name="reason">
              {REASONS.map((r) => (
                <option value={r}>{r.replace('_', ' ')}</option>
              ))}
            </select>
          </Field>
          {locations.length ? (
            <Field label="Location" name="locationId" error={err('locationId')}>
              {locationSelect('locationId', true)}
            </Field>
          ) : null}
        </>
      ) : null}
      {action === 'transfer' ? (
        <>
          <Field label="From" name="fromLocationId" error={err('fromLocationId')}>
            {locationSelect('fromLocationId', true)}
          </Field>
          <Field label="To" name="toLocationId" error={err('toLocationId')}>
            {locationSelect('toLocationId', true)}
          </Field>
        </>
      ) : null}
      {action === 'transfer' || action === 'reserve' || action === 'split' ? (
        <Field label="Weight (kg)" name="weightKg" error={err('weightKg')}>
          <input name="weightKg" inputMode="decimal" required />
        </Field>
      ) : null}
      {action === 'split' ? (
        <>
          <Field label="New lot code" name="newLotCode" error={err('newLotCode')}>
            <input name="newLotCode" required />
          </Field>
          <Field label="New name (optional)" name="newName" error={err('newName')}>
            <input name="newName" />
          </Field>
        </>
      ) : null}
      {action === 'merge' ? (
        <Field label="Lots to merge into this one" name="sourceIds" error={err('sourceIds')}>
          {others.loading ? <Progress label="Loading lots…" inline /> : null}
          <ErrorBox error={others.error} />
          <select name="sourceIds" multiple size={Math.min(6, Math.max(2, others.data?.length ?? 0))}>
            {others.data?.map((o) => (
              <option value={o.id}>
                {o.lotCode} {o.name} ({kg(o.availableKg)})
              </option>
            ))}
          </select>
        </Field>
      ) : null}
      <Field label="Comment" name="comment" error={err('comment')}>
        <input name="comment" />
      </Field>
      {errors.general ? (
        <p class="error" role="alert">
          {errors.general}
        </p>
      ) : null}
      <div class="actions">
        <BusyButton type="submit" busy={action$.busy} busyLabel={PENDING[action]}>
          Save
        </BusyButton>
      </div>
    </form>
  );
}

/** A new green lot (inventory.green.importGreenLot): its weight in the user's unit, its producer and location from the catalog. */
export function NewLot({ session }: { session: Session }) {
  const refs = useLoad(
    () =>
      Promise.all([
        can(session, 'catalog.location.read') ? call(session, 'catalog.location.listLocations', { page: { limit: 100 } }) : null,
        can(session, 'catalog.party.read') ? call(session, 'catalog.party.listProducers', { page: { limit: 100 } }) : null,
      ]),
    [session],
  );
  const [locations, producers] = refs.data ?? [null, null];
  return (
    <>
      <p class="crumbs">
        <Link to="/lots">Green lots</Link> /
      </p>
      <h1>New green lot</h1>
      <LoadState state={refs} what="locations and producers" />
      {refs.data ? (
        <SpecForm
          name="new-lot"
          title="Receive a green lot"
          submit="Create lot"
          busyLabel="Creating the lot…"
          fields={[
            { name: 'name', label: 'Name', required: true },
            { name: 'lotCode', label: 'Lot code', required: true },
            { name: 'weightKg', label: 'Weight', type: 'kg', required: true },
            { name: 'producerId', label: 'Producer', type: 'select', options: (producers?.items ?? []).map((p) => [p.id, `${p.name} (${p.code})`]) },
            { name: 'locationId', label: 'Location', type: 'select', options: (locations?.items ?? []).map((l) => [l.id, `${l.name} (${l.code})`]) },
            { name: 'harvestYear', label: 'Harvest year', type: 'int' },
            { name: 'processMethod', label: 'Process' },
            { name: 'varieties', label: 'Varieties (comma-separated)', type: 'list' },
            { name: 'bagCount', label: 'Bags', type: 'int' },
            { name: 'unitCost', label: 'Cost per kg', type: 'decimal' },
            { name: 'currency', label: 'Currency (e.g. EUR)' },
            { name: 'notes', label: 'Notes', type: 'textarea' },
          ]}
          run={(input) => call(session, 'inventory.green.importGreenLot', input as never)}
          done={(r: any) => navigate(`/lots/${r.lot.id}`)}
        />
      ) : null}
    </>
  );
}
