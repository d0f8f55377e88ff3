import { useEffect, useRef, useState } from 'preact/hooks';
import type { AreaProps } from '../areas.tsx';
import { SubNav } from '../areas.tsx';
import { EntityPage, SpecForm, type Entity } from '../crud.tsx';
import { compact, DataList } from '../list.tsx';
import { call, can, type Session } from '../session.ts';
import { Badge, BusyButton, ErrorBox, LoadState, useAction, useLoad, when } from '../ui.tsx';
import { formatDate, formatNumber } from '../units.ts';

const page = (cursor: string | undefined, limit: number) => ({ limit, ...(cursor ? { cursor } : {}) });
const KINDS = ['espresso_machine', 'grinder', 'batch_brewer', 'water_system'];
/** How often the live bar is read while it is on screen (the service answers it from the live window, not the database). */
const LIVE_EVERY_MS = 2000;

const sites: Entity<any> = {
  what: 'sites',
  one: 'site',
  name: 'sites',
  write: 'cafe.write',
  list: (s, _f, cursor, limit) => call(s, 'cafe.listSites', { page: page(cursor, limit) }),
  columns: [
    { label: 'Code', key: 'code', render: (r) => <span class="code">{r.code}</span> },
    { label: 'Name', key: 'name', render: (r) => <a href={`#/cafe/live/${r.id}`}>{r.name}</a> },
    { label: 'Time zone', key: 'timezone', wide: true },
    { label: 'Shot target', csv: (r) => JSON.stringify(r.shotTarget), render: (r) => `${r.shotTarget.doseG} g, 1:${r.shotTarget.ratioMin}–${r.shotTarget.ratioMax}, ${r.shotTarget.timeMinS}–${r.shotTarget.timeMaxS} s` },
  ],
  fields: [
    { name: 'name', label: 'Name', required: true },
    { name: 'code', label: 'Code', required: true },
    { name: 'timezone', label: 'Time zone (e.g. Europe/Berlin)' },
    { name: 'shotTarget.doseG', label: 'Target dose (g)', type: 'number' },
    { name: 'shotTarget.timeMinS', label: 'Shortest good shot (s)', type: 'number' },
    { name: 'shotTarget.timeMaxS', label: 'Longest good shot (s)', type: 'number' },
  ],
  create: (s, input) => call(s, 'cafe.createSite', input as never),
};

function BarToken({ session, machineId }: { session: Session; machineId: string }) {
  const action = useAction();
  const [token, setToken] = useState<string | null>(null);
  if (token)
    return (
      <div class="secret" data-bar-token>
        Machine token (shown once): <code>{token}</code>
      </div>
    );
  return (
    <>
      <BusyButton class="small secondary" busy={action.busy} busyLabel="Issuing…" onClick={() => void action.run('Issuing…', () => call(session, 'cafe.issueBarMachineToken', { machineId })).then((t) => t && setToken(t.token))}>
        Issue token
      </BusyButton>
      <ErrorBox error={action.error} />
    </>
  );
}

function machines(siteOptions: [string, string][]): Entity<any> {
  return {
    what: 'bar machines',
    one: 'bar machine',
    name: 'bar-machines',
    write: 'cafe.write',
    list: (s, filter, cursor, limit) => call(s, 'cafe.listMachines', { filter: filter as never, page: page(cursor, limit) } as never),
    filters: [{ name: 'siteId', label: 'Site', type: 'select', options: [['', 'every site'], ...siteOptions] }],
    columns: [
      { label: 'Code', key: 'code', render: (r) => <span class="code">{r.code}</span> },
      { label: 'Name', key: 'name' },
      { label: 'Site', csv: (r) => r.siteId, render: (r) => siteOptions.find(([id]) => id === r.siteId)?.[1] ?? r.siteId },
      { label: 'Kind', key: 'kind', wide: true },
      { label: 'Groups', key: 'groupCount', num: true },
    ],
    fields: [
      { name: 'siteId', label: 'Site', type: 'select', required: true, options: siteOptions },
      { name: 'name', label: 'Name', required: true },
      { name: 'code', label: 'Code', required: true },
      { name: 'kind', label: 'Kind', type: 'select', required: true, options: KINDS.map((k) => [k, k.replace('_', ' ')]) },
      { name: 'groupCount', label: 'Group heads', type: 'int' },
      { name: 'brand', label: 'Brand' },
      { name: 'model', label: 'Model' },
    ],
    create: (s, input) => call(s, 'cafe.registerMachine', input as never),
    rowActions: (session, row) => <BarToken session={session} machineId={row.id} />,
  };
}

/** What the live bar exposes for tests: how many times it was read and how many shots it shows. */
declare global {
  interface Window {
    __firstcrackBar?: { reads: number; shots: number; failing: number };
  }
}

/** The bar right now: each group head's last shots and the failing heads, read again every two seconds while shown. */
function LiveBar({ session, siteId }: { session: Session; siteId: string }) {
  const [bar, setBar] = useState<any>(null);
  const [error, setError] = useState<unknown>(null);
  const reads = useRef(0);
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = async () => {
      try {
        const answer = await call(session, 'cafe.getLiveBar', { siteId });
        if (!live) return;
        reads.current++;
        setBar(answer);
        setError(null);
        const shots = answer.groupHeads.reduce((n, g) => n + g.shots.length, 0);
        window.__firstcrackBar = { reads: reads.current, shots, failing: answer.failing.length };
      } catch (e) {
        if (live) setError(e);
      }
      // A hidden tab is not read; it is read again as soon as it is shown.
      if (live) timer = setTimeout(read, document.hidden ? LIVE_EVERY_MS * 5 : LIVE_EVERY_MS);
    };
    void read();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [session, siteId]);
  if (!bar) return error ? <ErrorBox error={error} /> : <LoadState state={{ loading: true, data: null, error: null }} what="the bar" />;
  return (
    <section data-live-bar aria-live="polite">
      <p class="muted">
        As of {when(bar.asOf)} · last {Math.round(bar.windowSeconds / 60)} minutes · <Badge tone="live">live</Badge>{' '}
        {bar.failing.length ? <Badge tone="bad">{bar.failing.length} failing</Badge> : <Badge tone="ok">all heads good</Badge>}
      </p>
      <ErrorBox error={error} />
      <div class="bar-grid">
        {bar.groupHeads.map((g: any) => (
          <article class={'card group-head' + (g.failing ? ' failing' : '')} data-head={`${g.machineCode}-${g.group}`} data-shots={g.shots.length} data-failing={String(g.failing)}>
            <h3>
              {g.machineCode} · group {g.group} {g.failing ? <Badge tone="bad">failing</Badge> : null}
            </h3>
            {g.reasons.map((r: any) => (
              <p class="error">{r.detail}</p>
            ))}
            {g.shots.length === 0 ? <p class="muted">idle</p> : null}
            <ul class="plain shots">
              {g.shots.slice(0, 5).map((s: any) => (
                <li class={s.outsideTarget || s.channeling ? 'off' : ''}>
                  {formatNumber(s.durationS, 1)} s · {formatNumber(s.doseG, 1)} g → {formatNumber(s.yieldG, 1)} g {s.channeling ? <Badge tone="bad">channeling</Badge> : s.outsideTarget ? <Badge tone="warn">off target</Badge> : null}
                </li>
              ))}
            </ul>
          </article>
        ))}
      </div>
    </section>
  );
}

function SitePicker({ session, siteId, base }: { session: Session; siteId?: string; base: string }) {
  const list = useLoad(() => call(session, 'cafe.listSites', { page: { limit: 100 } }), [session]);
  useEffect(() => {
    if (!siteId && list.data?.items[0]) location.replace(`#${base}/${list.data.items[0].id}`);
  }, [list.data, siteId]);
  return (
    <>
      <LoadState state={list} what="sites" />
      {list.data?.items.length === 0 ? <p class="muted">No sites yet.</p> : null}
      {list.data && list.data.items.length > 0 ? (
        <label class="check">
          Site{' '}
          <select value={siteId ?? ''} onChange={(e) => location.assign(`#${base}/${(e.target as HTMLSelectElement).value}`)}>
            {list.data.items.map((s) => (
              <option value={s.id}>{s.name}</option>
            ))}
          </select>
        </label>
      ) : null}
    </>
  );
}

/** Shots a day over a range, as bars (good and outside target), with the figures as a table for those who do not see the chart. */
function PerformanceChart({ days }: { days: { date: string; shots: number; outsideTargetShots: number; saleShotEquivalents: number }[] }) {
  const max = Math.max(1, ...days.map((d) => d.shots));
  const w = Math.max(300, days.length * 28);
  const h = 180;
  const bw = (w - 40) / Math.max(1, days.length);
  return (
    <div class="graph-wrap">
      <svg class="perf-chart" width={w} height={h + 24} viewBox={`0 0 ${w} ${h + 24}`} role="img" aria-label={`Shots a day, ${days.length} days; the table below gives the figures`} data-days={days.length}>
        <line x1="36" y1={h} x2={w} y2={h} stroke="#b9a797" />
        <text x="0" y="12" font-size="11" fill="#6f625a">
          {max}
        </text>
        <text x="0" y={h} font-size="11" fill="#6f625a">
          0
        </text>
        {days.map((d, i) => {
          const good = d.shots - d.outsideTargetShots;
          const x = 40 + i * bw;
          const hg = (good / max) * (h - 10);
          const ho = (d.outsideTargetShots / max) * (h - 10);
          return (
            <g>
              <rect x={x} y={h - hg} width={bw * 0.7} height={hg} fill="#1b5e20" />
              <rect x={x} y={h - hg - ho} width={bw * 0.7} height={ho} fill="#a4262c" />
              {days.length <= 14 || i % Math.ceil(days.length / 10) === 0 ? (
                <text x={x} y={h + 16} font-size="10" fill="#6f625a">
                  {d.date.slice(5)}
                </text>
              ) : null}
            </g>
          );
        })}
      </svg>
      <p class="legend">
        <span class="swatch good" /> within target <span class="swatch off" /> outside target
      </p>
    </div>
  );
}

function Performance({ session, siteId }: { session: Session; siteId?: string }) {
  const today = new Date().toISOString().slice(0, 10);
  const [range, setRange] = useState({ from: new Date(Date.now() - 13 * 86_400_000).toISOString().slice(0, 10), to: today });
  const perf = useLoad(() => (siteId ? call(session, 'cafe.getSitePerformance', { siteId, ...range }) : Promise.resolve(null)), [session, siteId, range.from, range.to]);
  const p = perf.data;
  return (
    <>
      <SitePicker session={session} siteId={siteId} base="/cafe/performance" />
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <label class="check">
          From <input type="date" value={range.from} onChange={(e) => setRange({ ...range, from: (e.target as HTMLInputElement).value })} />
        </label>
        <label class="check">
          To <input type="date" value={range.to} onChange={(e) => setRange({ ...range, to: (e.target as HTMLInputElement).value })} />
        </label>
      </form>
      <LoadState state={perf} what="the site's performance" />
      {p ? (
        <>
          <dl class="facts">
            <div>
              <dt>Shots</dt>
              <dd data-value="shots">{p.totals.shots}</dd>
            </div>
            <div>
              <dt>Outside target</dt>
              <dd>{formatNumber(p.totals.failingShare * 100, 1)} %</dd>
            </div>
            <div>
              <dt>Channeling</dt>
              <dd>{p.totals.channelingShots}</dd>
            </div>
            <div>
              <dt>Sold (shots)</dt>
              <dd>{p.totals.saleShotEquivalents}</dd>
            </div>
            <div>
              <dt>Variance</dt>
              <dd>{p.totals.variance}</dd>
            </div>
          </dl>
          <h2 class="spaced">Shots a day</h2>
          <PerformanceChart days={p.days} />
          <details>
            <summary>The figures</summary>
            <div class="table-wrap">
              <table data-list="performance-days">
                <thead>
                  <tr>
                    <th>Day</th>
                    <th class="num">Shots</th>
                    <th class="num">Outside target</th>
                    <th class="num">Sold</th>
                  </tr>
                </thead>
                <tbody>
                  {p.days.map((d) => (
                    <tr>
                      <td>{formatDate(d.date)}</td>
                      <td class="num">{d.shots}</td>
                      <td class="num">{d.outsideTargetShots}</td>
                      <td class="num">{d.saleShotEquivalents}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </details>
        </>
      ) : null}
    </>
  );
}

function Reconciliations({ session, siteOptions }: { session: Session; siteOptions: [string, string][] }) {
  const [version, setVersion] = useState(0);
  return (
    <>
      {can(session, 'cafe.write') ? (
        <SpecForm
          key={version}
          name="reconcile"
          title="Reconcile a day (shots pulled against point-of-sale sales)"
          submit="Reconcile"
          busyLabel="Reconciling…"
          fields={[
            { name: 'siteId', label: 'Site', type: 'select', required: true, options: siteOptions },
            { name: 'businessDate', label: 'Business day', type: 'date', required: true },
          ]}
          run={(input) => call(session, 'cafe.reconcilePos', input as never)}
          done={() => setVersion((n) => n + 1)}
        />
      ) : null}
      <DataList
        name="reconciliations"
        what="reconciliations"
        deps={[session, version]}
        filters={[
          { name: 'siteId', label: 'Site', type: 'select', options: [['', 'every site'], ...siteOptions] },
          { name: 'latestOnly', label: 'latest only', type: 'check' },
        ]}
        load={(f, cursor, limit) => call(session, 'cafe.listReconciliations', { filter: compact(f) as never, page: page(cursor, limit) })}
        columns={[
          { label: 'Day', key: 'businessDate', render: (r) => formatDate(r.businessDate) },
          { label: 'Site', csv: (r) => r.siteId, render: (r) => siteOptions.find(([id]) => id === r.siteId)?.[1] ?? r.siteId },
          { label: 'Version', key: 'version', num: true, wide: true },
          { label: 'Pulled', key: 'shotsPulled', num: true },
          { label: 'Sold', key: 'saleShotEquivalents', num: true },
          { label: 'Variance', key: 'variance', num: true },
        ]}
      />
    </>
  );
}

export function view({ session, parts: [, tab, id] }: AreaProps) {
  // Read again on each tab: a site created on one is chosen on the next.
  const siteList = useLoad(() => call(session, 'cafe.listSites', { page: { limit: 100 } }), [session, tab]);
  const siteOptions: [string, string][] = (siteList.data?.items ?? []).map((s) => [s.id, s.name]);
  const tabs: [string, string][] = [
    ['live', 'Live bar'],
    ['sites', 'Sites'],
    ['machines', 'Bar machines'],
    ['reconciliations', 'Reconciliations'],
    ['performance', 'Performance'],
  ];
  const current = tabs.find(([t]) => t === tab) ?? tabs[0]!;
  return (
    <>
      <h1>{current[1]}</h1>
      <SubNav current={`/cafe/${current[0]}`} items={tabs.map(([t, l]) => [`/cafe/${t}`, l])} />
      {current[0] === 'live' ? (
        <>
          <SitePicker session={session} siteId={id} base="/cafe/live" />
          {id ? <LiveBar key={id} session={session} siteId={id} /> : null}
        </>
      ) : current[0] === 'sites' ? (
        <EntityPage session={session} entity={sites} />
      ) : current[0] === 'machines' ? (
        siteList.data ? <EntityPage key={siteOptions.length} session={session} entity={machines(siteOptions)} /> : <LoadState state={siteList} what="sites" />
      ) : current[0] === 'reconciliations' ? (
        <Reconciliations session={session} siteOptions={siteOptions} />
      ) : (
        <Performance session={session} siteId={id} />
      )}
    </>
  );
}
