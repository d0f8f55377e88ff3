import { useState } from 'preact/hooks';
import type { AreaProps } from '../areas.tsx';
import { SubNav } from '../areas.tsx';
import { EntityPage, SpecForm, type Entity } from '../crud.tsx';
import { F, FormProblem, Submit, useForm } from '../form.tsx';
import { compact, DataList } from '../list.tsx';
import { call, can, type Session } from '../session.ts';
import { Badge, BusyButton, ErrorBox, kg, Link, LoadState, navigate, useAction, useLoad, when } from '../ui.tsx';
import { formatDate, massLabel } from '../units.ts';

const page = (cursor: string | undefined, limit: number) => ({ limit, ...(cursor ? { cursor } : {}) });
const opts = (values: readonly string[]): [string, string][] => values.map((v) => [v, v.replace(/_/g, ' ')]);
const CONTRACT_STATUSES = ['draft', 'pending', 'confirmed', 'partially_shipped', 'shipped', 'arrived', 'closed', 'canceled', 'defaulted'];
/** The statuses a contract may move to by hand (shipping statuses follow shipments). */
const NEXT: Record<string, string[]> = {
  draft: ['pending', 'canceled'],
  pending: ['confirmed', 'canceled', 'defaulted'],
  confirmed: ['canceled', 'defaulted'],
  partially_shipped: ['shipped', 'canceled', 'defaulted'],
  shipped: ['arrived', 'canceled', 'defaulted'],
  arrived: ['closed', 'canceled', 'defaulted'],
};
const MILESTONES = ['contract_signed', 'fixation', 'shipment', 'vessel_departure', 'vessel_arrival', 'customs_clearance', 'warehouse_receipt', 'sample_approval', 'payment'];
const tone = (s: string) => (['closed', 'arrived', 'shipped'].includes(s) ? 'ok' : ['canceled', 'defaulted'].includes(s) ? 'bad' : s === 'draft' ? undefined : 'warn');

function Contracts({ session }: { session: Session }) {
  return (
    <>
      {can(session, 'sourcing.contract.write') ? (
        <div class="actions">
          <a class="button" href="#/sourcing/contracts/new">
            New contract
          </a>
        </div>
      ) : null}
      <DataList
        name="contracts"
        what="contracts"
        deps={[session]}
        filters={[
          { name: 'q', label: 'Search contracts', type: 'search', placeholder: 'Contract number' },
          { name: 'status', label: 'Status', type: 'select', options: [['', 'any status'], ...opts(CONTRACT_STATUSES)] },
          { name: 'open', label: 'open only', type: 'check' },
        ]}
        load={(f, cursor, limit) => call(session, 'sourcing.contract.listContracts', { filter: compact(f) as never, page: page(cursor, limit) })}
        columns={[
          { label: 'Contract', key: 'contractNumber', render: (r) => <Link to={`/sourcing/contracts/${r.id}`}>{r.contractNumber}</Link> },
          { label: 'Status', key: 'status', render: (r) => <Badge tone={tone(r.status)}>{r.status.replace('_', ' ')}</Badge> },
          { label: 'Total', num: true, csv: (r) => r.position.totalKg, render: (r) => kg(r.position.totalKg) },
          { label: 'Received', num: true, wide: true, csv: (r) => r.position.receivedKg, render: (r) => kg(r.position.receivedKg) },
          { label: 'Open', num: true, csv: (r) => r.position.openKg, render: (r) => kg(r.position.openKg) },
          { label: 'Date', wide: true, key: 'contractDate' },
        ]}
      />
    </>
  );
}

function NewContract({ session }: { session: Session }) {
  const refs = useLoad(() => Promise.all([call(session, 'catalog.party.listPartners', { page: { limit: 100 } }), call(session, 'catalog.party.listProducers', { page: { limit: 100 } })]), [session]);
  const form = useForm();
  const [lines, setLines] = useState([0]);
  const [next, setNext] = useState(1);
  const [partners, producers] = refs.data ?? [null, null];
  return (
    <>
      <p class="crumbs">
        <Link to="/sourcing/contracts">Contracts</Link> /
      </p>
      <h1>New contract</h1>
      <LoadState state={refs} what="partners and producers" />
      {partners ? (
        <form
          class="card"
          data-form="new-contract"
          noValidate
          onSubmit={form.submit(
            'Creating the contract…',
            (v) =>
              call(session, 'sourcing.contract.createContract', {
                contractNumber: v.text('contractNumber'),
                partnerId: v.text('partnerId'),
                priceType: v.text('priceType') as never,
                ...(v.str('currency') ? { currency: v.str('currency') } : {}),
                ...(v.str('incoterm') ? { incoterm: v.str('incoterm') as never } : {}),
                ...(v.str('contractDate') ? { contractDate: v.str('contractDate') } : {}),
                lines: lines.map((n) => ({
                  ...(v.str(`producer${n}`) ? { producerId: v.str(`producer${n}`) } : {}),
                  ...(v.str(`origin${n}`) ? { origin: v.str(`origin${n}`) } : {}),
                  weightKg: v.kg(`weight${n}`) ?? '',
                  ...(v.decimal(`price${n}`) ? { pricePerKg: v.decimal(`price${n}`) } : {}),
                })) as never,
              }),
            (c) => navigate(`/sourcing/contracts/${c.id}`),
          )}
        >
          <F form={form} name="partnerId" label="Partner (seller)">
            <select name="partnerId">
              <option value="">—</option>
              {partners.items.map((p) => (
                <option value={p.id}>
                  {p.name} ({p.code})
                </option>
              ))}
            </select>
          </F>
          <div class="pair">
            <F form={form} name="contractNumber" label="Contract number">
              <input name="contractNumber" />
            </F>
            <F form={form} name="contractDate" label="Contract date">
              <input name="contractDate" type="date" />
            </F>
          </div>
          <div class="pair">
            <F form={form} name="priceType" label="Price type">
              <select name="priceType">
                {opts(['fixed', 'differential', 'to_be_fixed', 'formula']).map(([v, l]) => (
                  <option value={v}>{l}</option>
                ))}
              </select>
            </F>
            <F form={form} name="currency" label="Currency">
              <input name="currency" placeholder="USD" />
            </F>
            <F form={form} name="incoterm" label="Incoterm">
              <select name="incoterm">
                <option value="">—</option>
                {['EXW', 'FCA', 'FAS', 'FOB', 'CFR', 'CIF', 'CPT', 'CIP', 'DAP', 'DPU', 'DDP'].map((i) => (
                  <option value={i}>{i}</option>
                ))}
              </select>
            </F>
          </div>
          <fieldset>
            <legend>Lines</legend>
            {lines.map((n, i) => (
              <div class="pair line" data-contract-line={i}>
                <F form={form} name={`lines.${i}.producerId`} label={`Line ${i + 1}: producer`}>
                  <select name={`producer${n}`}>
                    <option value="">—</option>
                    {(producers?.items ?? []).map((p) => (
                      <option value={p.id}>{p.name}</option>
                    ))}
                  </select>
                </F>
                <F form={form} name={`lines.${i}.origin`} label="Origin">
                  <input name={`origin${n}`} />
                </F>
                <F form={form} name={`lines.${i}.weightKg`} label={`Weight (${massLabel()})`}>
                  <input name={`weight${n}`} inputMode="decimal" />
                </F>
                <F form={form} name={`lines.${i}.pricePerKg`} label="Price per kg">
                  <input name={`price${n}`} inputMode="decimal" />
                </F>
                {lines.length > 1 ? (
                  <button type="button" class="small secondary" aria-label={`Remove line ${i + 1}`} onClick={() => setLines(lines.filter((m) => m !== n))}>
                    Remove
                  </button>
                ) : null}
              </div>
            ))}
            <button type="button" class="secondary" onClick={() => (setLines([...lines, next]), setNext(next + 1))}>
              Add a line
            </button>
          </fieldset>
          <FormProblem form={form} />
          <Submit form={form}>Create contract</Submit>
        </form>
      ) : null}
    </>
  );
}

/** Receiving a booked shipment, line by line: each contract line becomes a green lot of the weight that arrived. */
function Receive({ session, shipment, contract, locations, onDone }: { session: Session; shipment: any; contract: any; locations: any[]; onDone: () => void }) {
  const form = useForm();
  const open = contract.lines.filter((l: any) => Number(l.openKg) > 0);
  return (
    <form
      class="card"
      data-form={`receive-${shipment.reference}`}
      noValidate
      onSubmit={form.submit(
        'Receiving…',
        (v) =>
          call(session, 'sourcing.contract.receiveContractShipment', {
            shipmentId: shipment.id,
            ...(v.str('locationId') ? { locationId: v.str('locationId') } : {}),
            lines: open
              .map((l: any, i: number) => ({ i, l }))
              .filter(({ i }: { i: number }) => v.str(`weight${i}`) || v.str(`lot${i}`))
              .map(({ i, l }: { i: number; l: any }) => ({ contractLineId: l.id, lotCode: v.text(`lot${i}`), weightKg: v.kg(`weight${i}`) ?? '' })) as never,
          }),
        onDone,
      )}
    >
      <h3>Receive {shipment.reference}</h3>
      <F form={form} name="locationId" label="Into location">
        <select name="locationId">
          <option value="">—</option>
          {locations.map((l) => (
            <option value={l.id}>
              {l.name} ({l.code})
            </option>
          ))}
        </select>
      </F>
      {open.map((l: any, i: number) => (
        <div class="pair line" data-receive-line={l.lineNumber}>
          <F form={form} name={`lines.${i}.lotCode`} label={`Line ${l.lineNumber} (${l.origin ?? 'producer'}, open ${kg(l.openKg)}): lot code`}>
            <input name={`lot${i}`} />
          </F>
          <F form={form} name={`lines.${i}.weightKg`} label={`Weight received (${massLabel()})`}>
            <input name={`weight${i}`} inputMode="decimal" />
          </F>
        </div>
      ))}
      <FormProblem form={form} />
      <Submit form={form}>Receive</Submit>
    </form>
  );
}

function ContractPage({ session, id }: { session: Session; id: string }) {
  const [version, setVersion] = useState(0);
  const bump = () => setVersion((n) => n + 1);
  const contract = useLoad(() => call(session, 'sourcing.contract.getContract', { id }), [session, id, version]);
  const shipments = useLoad(() => call(session, 'sourcing.contract.listContractShipments', { filter: { contractId: id }, page: { limit: 100 } }), [session, id, version]);
  const milestones = useLoad(() => call(session, 'sourcing.contract.listContractMilestones', { filter: { contractId: id } }), [session, id, version]);
  const locations = useLoad(() => (can(session, 'catalog.location.read') ? call(session, 'catalog.location.listLocations', { page: { limit: 100 } }) : Promise.resolve(null)), [session]);
  const status = useAction();
  const [receiving, setReceiving] = useState<string | null>(null);
  const [shipping, setShipping] = useState(false);
  const [planning, setPlanning] = useState(false);
  const c = contract.data;
  const writable = can(session, 'sourcing.contract.write');
  return (
    <>
      <p class="crumbs">
        <Link to="/sourcing/contracts">Contracts</Link> /
      </p>
      <LoadState state={contract} what="the contract" />
      {c ? (
        <>
          <h1>
            {c.contractNumber} <Badge tone={tone(c.status)}>{c.status.replace('_', ' ')}</Badge>
          </h1>
          <p class="muted">
            {c.priceType.replace(/_/g, ' ')} · {c.currency} {c.incoterm ?? ''} · total {kg(c.position.totalKg)} · received {kg(c.position.receivedKg)} · open {kg(c.position.openKg)}
          </p>
          {can(session, 'sourcing.contract.approve') && NEXT[c.status]?.length ? (
            <div class="actions" role="group" aria-label="Contract status">
              {NEXT[c.status]!.map((s) => (
                <BusyButton
                  class={s === 'canceled' || s === 'defaulted' ? 'danger' : ''}
                  busy={status.busy && status.pending?.label.includes(s) === true}
                  disabled={status.busy}
                  busyLabel={`Marking ${s}…`}
                  onClick={() => void status.run(`Marking ${s}…`, () => call(session, 'sourcing.contract.updateContractStatus', { id: c.id, status: s as never })).then((r) => r && bump())}
                >
                  Mark {s.replace('_', ' ')}
                </BusyButton>
              ))}
            </div>
          ) : null}
          <ErrorBox error={status.error} />
          <h2 class="spaced">Lines</h2>
          <div class="table-wrap">
            <table class="list" data-list="contract-lines">
              <thead>
                <tr>
                  <th>#</th>
                  <th>Origin</th>
                  <th class="num">Weight</th>
                  <th class="num">Received</th>
                  <th class="num">Open</th>
                  <th class="num hide-narrow">Price / kg</th>
                </tr>
              </thead>
              <tbody>
                {c.lines.map((l) => (
                  <tr data-line={l.lineNumber}>
                    <td>{l.lineNumber}</td>
                    <td>{l.origin ?? l.quality ?? '—'}</td>
                    <td class="num">{kg(l.weightKg)}</td>
                    <td class="num" data-received>
                      {kg(l.receivedKg)}
                    </td>
                    <td class="num">{kg(l.openKg)}</td>
                    <td class="num hide-narrow">{l.pricePerKg ? `${l.pricePerKg} ${l.currency}` : '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>

          <h2 class="spaced">Shipments</h2>
          {writable && ['confirmed', 'partially_shipped'].includes(c.status) ? (
            shipping ? (
              <SpecForm
                name="new-shipment"
                title="Book a shipment"
                submit="Book"
                busyLabel="Booking…"
                fields={[
                  { name: 'reference', label: 'Reference (bill of lading)', required: true },
                  { name: 'weightKg', label: 'Weight', type: 'kg', required: true },
                  { name: 'vessel', label: 'Vessel' },
                  { name: 'containerNumber', label: 'Container' },
                  { name: 'etd', label: 'Departs (ETD)', type: 'date' },
                  { name: 'eta', label: 'Arrives (ETA)', type: 'date' },
                ]}
                run={(input) => call(session, 'sourcing.contract.createContractShipment', { contractId: c.id, ...input } as never)}
                done={() => (setShipping(false), bump())}
                onCancel={() => setShipping(false)}
              />
            ) : (
              <button type="button" class="secondary" onClick={() => setShipping(true)}>
                Book a shipment
              </button>
            )
          ) : null}
          <LoadState state={shipments} what="shipments" />
          {shipments.data?.items.length === 0 ? <p class="muted">No shipments.</p> : null}
          {shipments.data?.items.map((s) => (
            <section class="card spaced" data-shipment={s.reference} data-status={s.status}>
              <h3>
                {s.reference} <Badge tone={s.status === 'received' ? 'ok' : 'warn'}>{s.status}</Badge>
              </h3>
              <p class="muted">
                {kg(s.weightKg)} · {s.vessel ?? 'no vessel'} · ETD {formatDate(s.etd)} · ETA {formatDate(s.eta)}
                {s.receivedAt ? ` · received ${kg(s.receivedKg)} on ${when(s.receivedAt)}` : ''}
              </p>
              {s.lots.length ? (
                <p>
                  Lots:{' '}
                  {s.lots.map((l) => (
                    <>
                      <Link to={`/lots/${l.greenLotId}`}>{kg(l.weightKg)}</Link>{' '}
                    </>
                  ))}
                </p>
              ) : null}
              {writable && s.status === 'booked' ? (
                receiving === s.id ? (
                  <Receive session={session} shipment={s} contract={c} locations={locations.data?.items ?? []} onDone={() => (setReceiving(null), bump())} />
                ) : (
                  <button type="button" onClick={() => setReceiving(s.id)}>
                    Receive {s.reference}
                  </button>
                )
              ) : null}
            </section>
          ))}

          <h2 class="spaced">Milestones</h2>
          {writable ? (
            planning ? (
              <SpecForm
                name="new-milestone"
                title="Add a milestone"
                submit="Add"
                busyLabel="Adding…"
                fields={[
                  { name: 'kind', label: 'Kind', type: 'select', required: true, options: opts(MILESTONES) },
                  { name: 'dueAt', label: 'Due on', type: 'date', required: true },
                  { name: 'notes', label: 'Notes' },
                ]}
                run={(input) => call(session, 'sourcing.contract.createContractMilestone', { contractId: c.id, ...input, dueAt: input.dueAt ? `${input.dueAt}T12:00:00Z` : '' } as never)}
                done={() => (setPlanning(false), bump())}
                onCancel={() => setPlanning(false)}
              />
            ) : (
              <button type="button" class="secondary" onClick={() => setPlanning(true)}>
                Add a milestone
              </button>
            )
          ) : null}
          <Timeline session={session} items={milestones.data?.items ?? []} writable={writable} onDone={bump} />
        </>
      ) : null}
    </>
  );
}

function Timeline({ session, items, writable, onDone }: { session: Session; items: any[]; writable: boolean; onDone: () => void }) {
  const action = useAction();
  const sorted = [...items].sort((a, b) => a.dueAt.localeCompare(b.dueAt));
  if (sorted.length === 0) return <p class="muted">No milestones.</p>;
  return (
    <>
      <ol class="timeline" data-list="milestones">
        {sorted.map((m) => (
          <li class={m.completedAt ? 'done' : m.overdue ? 'overdue' : ''} data-milestone={m.kind}>
            <strong>{m.kind.replace(/_/g, ' ')}</strong> <span class="muted">due {formatDate(m.dueAt)}</span>{' '}
            {m.completedAt ? <Badge tone="ok">done {formatDate(m.completedAt)}</Badge> : m.overdue ? <Badge tone="bad">overdue</Badge> : <Badge>open</Badge>}
            {m.notes ? <div class="muted">{m.notes}</div> : null}
            {writable && !m.completedAt ? (
              <div>
                <BusyButton
                  class="small secondary"
                  busy={action.busy}
                  busyLabel="Completing…"
                  onClick={() => void action.run('Completing…', () => call(session, 'sourcing.contract.completeContractMilestone', { id: m.id })).then((r) => r && onDone())}
                >
                  Complete
                </BusyButton>
              </div>
            ) : null}
          </li>
        ))}
      </ol>
      <ErrorBox error={action.error} />
    </>
  );
}

function Positions({ session }: { session: Session }) {
  const positions = useLoad(() => call(session, 'sourcing.contract.listOpenPositions', {}), [session]);
  const p = positions.data;
  return (
    <>
      <LoadState state={positions} what="open positions" />
      {p ? (
        <div class="grid">
          <section class="card">
            <h2>By contract</h2>
            <div class="table-wrap">
              <table data-list="positions">
                <thead>
                  <tr>
                    <th>Contract</th>
                    <th class="num">Open</th>
                    <th class="num">Open value</th>
                  </tr>
                </thead>
                <tbody>
                  {p.contracts.map((c) => (
                    <tr>
                      <td>
                        <Link to={`/sourcing/contracts/${c.contractId}`}>{c.contractNumber}</Link>
                      </td>
                      <td class="num">{kg(c.openKg)}</td>
                      <td class="num">
                        {c.openFixedValue} {c.currency}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </section>
          <section class="card">
            <h2>By origin</h2>
            <ul class="plain">
              {p.byOrigin.map((o) => (
                <li>
                  {o.origin ?? o.producerId ?? '—'}: {kg(o.openKg)} · {o.openFixedValue} {o.currency}
                </li>
              ))}
            </ul>
          </section>
        </div>
      ) : null}
    </>
  );
}

const SAMPLE_TYPES = ['offer', 'pre_shipment', 'arrival', 'type', 'spot', 'production', 'competition'];
const SAMPLE_NEXT: Record<string, string[]> = {
  requested: ['in_transit', 'received', 'archived'],
  in_transit: ['received', 'archived'],
  received: ['roasted', 'cupped', 'archived'],
  roasted: ['cupped', 'archived'],
  cupped: ['approved', 'rejected', 'archived'],
  approved: ['rejected', 'archived'],
  rejected: ['approved', 'archived'],
  archived: [],
};

function SampleActions({ session, row, reload }: { session: Session; row: any; reload: () => void }) {
  const action = useAction();
  const [transfer, setTransfer] = useState(false);
  return (
    <>
      {can(session, 'sourcing.sample.approve')
        ? SAMPLE_NEXT[row.status]!.map((s) => (
            <BusyButton class="small secondary" busy={false} disabled={action.busy} busyLabel="…" onClick={() => void action.run(`Marking ${s}…`, () => call(session, 'sourcing.sample.updateSampleStatus', { id: row.id, status: s as never })).then((r) => r && reload())}>
              {s.replace('_', ' ')}
            </BusyButton>
          ))
        : null}
      {row.status === 'approved' && !row.greenLotId ? (
        transfer ? (
          <SpecForm
            name="sample-to-lot"
            title="Into inventory"
            submit="Create lot"
            busyLabel="Creating the lot…"
            fields={[
              { name: 'lotCode', label: 'Lot code', required: true },
              { name: 'weightKg', label: 'Weight', type: 'kg', required: true },
            ]}
            run={(input) => call(session, 'sourcing.sample.transferSampleToInventory', { id: row.id, ...input } as never)}
            done={() => (setTransfer(false), reload())}
            onCancel={() => setTransfer(false)}
          />
        ) : (
          <button type="button" class="small" onClick={() => setTransfer(true)}>
            To inventory
          </button>
        )
      ) : null}
      {action.error ? <ErrorBox error={action.error} /> : null}
    </>
  );
}

const samples: Entity<any> = {
  what: 'samples',
  one: 'sample',
  name: 'samples',
  write: 'sourcing.sample.write',
  list: (s, filter, cursor, limit) => call(s, 'sourcing.sample.listSamples', { filter: filter as never, page: page(cursor, limit) }),
  filters: [
    { name: 'q', label: 'Search samples', type: 'search', placeholder: 'Number or name' },
    { name: 'status', label: 'Status', type: 'select', options: [['', 'any status'], ...opts(Object.keys(SAMPLE_NEXT))] },
  ],
  columns: [
    { label: 'Sample', key: 'sampleNumber', render: (r) => <span class="code">{r.sampleNumber}</span> },
    { label: 'Name', key: 'name' },
    { label: 'Type', key: 'sampleType', wide: true },
    { label: 'Status', key: 'status', render: (r) => <Badge tone={r.status === 'approved' ? 'ok' : r.status === 'rejected' ? 'bad' : undefined}>{r.status.replace('_', ' ')}</Badge> },
    { label: 'Lot', csv: (r) => r.greenLotId, render: (r) => (r.greenLotId ? <Link to={`/lots/${r.greenLotId}`}>lot</Link> : '—') },
  ],
  fields: [
    { name: 'name', label: 'Name', required: true },
    { name: 'sampleNumber', label: 'Sample number', required: true, createOnly: true },
    { name: 'sampleType', label: 'Type', type: 'select', required: true, options: opts(SAMPLE_TYPES) },
    { name: 'weightKg', label: 'Weight', type: 'kg' },
  ],
  create: (s, input) => call(s, 'sourcing.sample.createSample', input as never),
  rowActions: (session, row, reload) => <SampleActions session={session} row={row} reload={reload} />,
};

export function view({ session, parts: [, tab, id] }: AreaProps) {
  if (tab === 'contracts' && id === 'new') return <NewContract session={session} />;
  if (tab === 'contracts' && id) return <ContractPage key={id} session={session} id={id} />;
  const tabs: [string, string, boolean][] = [
    ['contracts', 'Contracts', can(session, 'sourcing.contract.read')],
    ['positions', 'Open positions', can(session, 'sourcing.contract.read')],
    ['samples', 'Samples', can(session, 'sourcing.sample.read')],
  ];
  const current = tabs.find(([t, , ok]) => t === tab && ok) ?? tabs.find(([, , ok]) => ok);
  if (!current) return <h1>Sourcing</h1>;
  return (
    <>
      <h1>{current[1]}</h1>
      <SubNav current={`/sourcing/${current[0]}`} items={tabs.map(([t, l, ok]) => [`/sourcing/${t}`, l, ok])} />
      {current[0] === 'contracts' ? <Contracts session={session} /> : current[0] === 'positions' ? <Positions session={session} /> : <EntityPage session={session} entity={samples} />}
    </>
  );
}
