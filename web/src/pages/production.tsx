
import type { AreaProps } from '../areas.tsx';
import { SubNav } from '../areas.tsx';
import { EntityPage, SpecForm, type Entity } from '../crud.tsx';
import { call, can, type Session } from '../session.ts';
import { Badge, BusyButton, ErrorBox, kg, Link, LoadState, navigate, useAction, useLoad, when } from '../ui.tsx';
import { formatDate, formatTemp } from '../units.ts';

const page = (cursor: string | undefined, limit: number) => ({ limit, ...(cursor ? { cursor } : {}) });
const mmss = (s: number | null) => (s === null ? '—' : `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`);

const profiles: Entity<any> = {
  what: 'profiles',
  one: 'profile',
  name: 'profiles',
  write: 'production.profile.write',
  list: (s, filter, cursor, limit) => call(s, 'production.profile.listProfiles', { filter: filter as never, page: page(cursor, limit) }),
  filters: [{ name: 'q', label: 'Search profiles', type: 'search', placeholder: 'Name or code' }],
  columns: [
    { label: 'Code', key: 'code', render: (r) => <span class="code">{r.code}</span> },
    { label: 'Name', key: 'name' },
    { label: 'Charge', num: true, csv: (r) => r.targetChargeKg, render: (r) => kg(r.targetChargeKg) },
    { label: 'Drop', num: true, csv: (r) => r.targetDropTempC, render: (r) => formatTemp(r.targetDropTempC) },
    { label: 'Time', num: true, wide: true, csv: (r) => r.targetTotalTimeS, render: (r) => mmss(r.targetTotalTimeS) },
    { label: 'DTR', num: true, wide: true, csv: (r) => r.targetDtrPct, render: (r) => (r.targetDtrPct ? `${r.targetDtrPct} %` : '—') },
  ],
  fields: [
    { name: 'name', label: 'Name', required: true },
    { name: 'code', label: 'Code', required: true, createOnly: true },
    { name: 'targetChargeKg', label: 'Charge', type: 'kg' },
    { name: 'targetDropTempC', label: 'Drop temperature', type: 'tempC' },
    { name: 'targetTotalTimeS', label: 'Total time (seconds)', type: 'int' },
    { name: 'targetDtrPct', label: 'Development time ratio (%)', type: 'decimal' },
    { name: 'shelfLifeDays', label: 'Shelf life (days)', type: 'int' },
    { name: 'notes', label: 'Notes', type: 'textarea' },
  ],
  // The API takes the drop temperature as a decimal string with one decimal.
  create: (s, input) =>
    call(s, 'production.profile.createProfile', { ...input, ...(typeof input.targetDropTempC === 'number' ? { targetDropTempC: input.targetDropTempC.toFixed(1) } : {}) } as never),
};

function Schedule({ session }: { session: Session }) {
  const demand = useLoad(() => call(session, 'production.schedule.listDemandAggregate', {}), [session]);
  const locations = useLoad(() => (can(session, 'catalog.location.read') ? call(session, 'catalog.location.listLocations', { page: { limit: 100 } }) : Promise.resolve(null)), [session]);
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  return (
    <>
      <h2>Open demand</h2>
      <LoadState state={demand} what="demand" />
      {demand.data ? (
        demand.data.items.length === 0 ? (
          <p class="muted">No open demand: confirmed orders not yet allocated appear here.</p>
        ) : (
          <div class="table-wrap">
            <table class="list" data-list="demand">
              <thead>
                <tr>
                  <th>Profile / lot</th>
                  <th class="num">Open</th>
                  <th class="num">Green needed</th>
                  <th class="hide-narrow">Due</th>
                  <th class="num hide-narrow">Lines</th>
                </tr>
              </thead>
              <tbody>
                {demand.data.items.map((d) => (
                  <tr>
                    <td>{d.profileCode ?? d.greenLotCode ?? d.roastLevel ?? '—'}</td>
                    <td class="num">{kg(d.openKg)}</td>
                    <td class="num">{kg(d.greenNeededKg)}</td>
                    <td class="hide-narrow">{formatDate(d.earliestDueDate)}</td>
                    <td class="num hide-narrow">{d.orderLineCount}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )
      ) : null}
      {can(session, 'production.schedule.write') ? (
        <div class="spaced">
          <SpecForm
            name="generate-schedule"
            title="Generate a draft schedule from demand"
            submit="Generate"
            busyLabel="Planning the batches…"
            fields={[
              { name: 'name', label: 'Name', required: true, value: () => `Roast day ${tomorrow}` },
              { name: 'scheduledDate', label: 'Roast on', type: 'date', required: true },
              { name: 'locationId', label: 'Roastery', type: 'select', options: (locations.data?.items ?? []).map((l) => [l.id, `${l.name} (${l.code})`]) },
              { name: 'dueBefore', label: 'Demand due before', type: 'date' },
              { name: 'maxBatchesPerMachine', label: 'Most batches per machine', type: 'int' },
            ]}
            run={(input) => call(session, 'production.schedule.generateProductionSchedule', input as never)}
            done={(s: any) => navigate(`/production/schedule/${s.id}`)}
          />
        </div>
      ) : null}
    </>
  );
}

function SchedulePage({ session, id }: { session: Session; id: string }) {
  const schedule = useLoad(() => call(session, 'production.schedule.getProductionSchedule', { id }), [session, id]);
  const machines = useLoad(() => (can(session, 'catalog.machine.read') ? call(session, 'catalog.machine.listMachines', { page: { limit: 100 } }) : Promise.resolve(null)), [session]);
  const release = useAction();
  const s = schedule.data;
  const machine = (id: string) => machines.data?.items.find((m) => m.id === id)?.code ?? id;
  return (
    <>
      <p class="crumbs">
        <Link to="/production/schedule">Schedule</Link> /
      </p>
      <LoadState state={schedule} what="the schedule" />
      {s ? (
        <>
          <h1>
            {s.name} <Badge tone={s.state === 'released' ? 'ok' : 'warn'}>{s.state}</Badge>
          </h1>
          <p class="muted">
            {formatDate(s.scheduledDate)} · {s.totals.batchCount} batch{s.totals.batchCount === 1 ? "" : "es"} · {kg(s.totals.greenKg)} green → {kg(s.totals.expectedRoastedKg)} roasted
            {s.releasedAt ? ` · released ${when(s.releasedAt)}` : ''}
          </p>
          {s.notes.length ? (
            <section class="card" data-notes>
              <h2>Feasibility</h2>
              <ul class="plain">
                {s.notes.map((n) => (
                  <li data-note={n.kind}>
                    <Badge tone={n.kind === 'no_demand' ? undefined : 'warn'}>{n.kind.replace(/_/g, ' ')}</Badge> {n.message}
                  </li>
                ))}
              </ul>
            </section>
          ) : null}
          {s.state === 'draft' && can(session, 'production.schedule.approve') ? (
            <div class="actions">
              <BusyButton busy={release.busy} busyLabel="Releasing…" onClick={() => void release.run('Releasing…', () => call(session, 'production.schedule.releaseScheduleToProduction', { id })).then((r) => r && schedule.reload())}>
                Release to production
              </BusyButton>
            </div>
          ) : null}
          <ErrorBox error={release.error} />
          <h2 class="spaced">Batches in run order</h2>
          <div class="table-wrap">
            <table class="list" data-list="scheduled-batches">
              <thead>
                <tr>
                  <th class="num">#</th>
                  <th>Machine</th>
                  <th class="num">Green</th>
                  <th class="num">Expected roasted</th>
                  <th class="hide-narrow">Level</th>
                </tr>
              </thead>
              <tbody>
                {[...s.batches]
                  .sort((a, b) => a.position - b.position)
                  .map((b) => (
                    <tr data-position={b.position}>
                      <td class="num">{b.position}</td>
                      <td>
                        {machine(b.machineId)} <span class="muted">#{b.machineSequence}</span>
                      </td>
                      <td class="num">{kg(b.greenKg)}</td>
                      <td class="num">{kg(b.expectedRoastedKg)}</td>
                      <td class="hide-narrow">
                        {b.roastLevel ?? '—'}
                        {b.isDecaf ? ' decaf' : ''}
                      </td>
                    </tr>
                  ))}
              </tbody>
            </table>
          </div>
        </>
      ) : null}
    </>
  );
}

export function view({ session, parts: [, tab, id] }: AreaProps) {
  if (tab === 'schedule' && id) return <SchedulePage key={id} session={session} id={id} />;
  const tabs: [string, string, boolean][] = [
    ['schedule', 'Production schedule', can(session, 'production.schedule.read')],
    ['profiles', 'Roast profiles', can(session, 'production.profile.read')],
  ];
  const current = tabs.find(([t, , ok]) => t === tab && ok) ?? tabs.find(([, , ok]) => ok);
  if (!current) return <h1>Production</h1>;
  return (
    <>
      <h1>{current[1]}</h1>
      <SubNav current={`/production/${current[0]}`} items={tabs.map(([t, l, ok]) => [`/production/${t}`, l, ok])} />
      {current[0] === 'schedule' ? <Schedule session={session} /> : <EntityPage session={session} entity={profiles} />}
    </>
  );
}

