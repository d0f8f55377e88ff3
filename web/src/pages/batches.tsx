import { useEffect, useRef, useState } from 'preact/hooks';
import type { OperationOutput } from '../../../clients/typescript/src/index.ts';
import type { RoastChart } from '../chart.ts';
import { CurveBuffer, eventLabel, phasesOf, type Reference } from '../curve.ts';
import type { RoastEventType } from '../../../src/modules/production/roast/telemetry/curve.ts';

/** The chart (uPlot) is loaded by the pages that draw one: the dashboard's first load does not carry it. */
const loadChart = () => import('../chart.ts');
import { call, can, problemFields, type Session } from '../session.ts';
import { followBatch, type Follow } from '../stream.ts';
import { Badge, BusyButton, ErrorBox, Field, kg, Link, ListFooter, LoadState, mmss, navigate, Progress, useAction, useLoad, usePaged, when } from '../ui.tsx';
import { formatTemp } from '../units.ts';

type Batch = OperationOutput<'production.roast.getRoastBatch'>;
type State = 'live' | 'completed' | 'aborted';

export function Batches({ session }: { session: Session }) {
  const [state, setState] = useState<State | ''>('');
  const list = usePaged(
    (cursor) =>
      call(session, 'production.roast.listRoastBatches', { filter: state ? { state } : {}, page: { limit: 25, ...(cursor ? { cursor } : {}) } }),
    [session, state],
  );
  return (
    <>
      <h1>Roast batches</h1>
      <div class="filters">
        <label>
          State{' '}
          <select value={state} onChange={(e) => setState((e.target as HTMLSelectElement).value as State)}>
            <option value="">all</option>
            <option value="live">live</option>
            <option value="completed">completed</option>
            <option value="aborted">aborted</option>
          </select>
        </label>
      </div>
      {can(session, 'production.roast.write') ? (
        <div class="actions">
          {can(session, 'catalog.machine.read') ? <StartBatch session={session} /> : null}
          <ImportLog session={session} />
        </div>
      ) : null}
      <ErrorBox error={list.error} />
      <div class="table-wrap">
        <table class="list" data-list="batches">
          <thead>
            <tr>
              <th>Batch</th>
              <th>State</th>
              <th class="num">Charge</th>
              <th class="num hide-narrow">Loss</th>
              <th class="hide-narrow">Started</th>
            </tr>
          </thead>
          <tbody>
            {list.items.map((b) => (
              <tr data-batch={b.batchNumber}>
                <td>
                  <Link to={`/batches/${b.id}`}>{b.batchNumber}</Link>
                </td>
                <td>
                  <Badge tone={b.state === 'live' ? 'live' : b.state === 'aborted' ? 'bad' : 'ok'}>{b.state}</Badge>
                </td>
                <td class="num">{kg(b.chargeWeightKg)}</td>
                <td class="num hide-narrow">{b.weightLossPct ? `${b.weightLossPct} %` : '—'}</td>
                <td class="hide-narrow">{when(b.startedAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <ListFooter list={list} what="batches" />
    </>
  );
}

/** Starts a batch (its bridge then posts the telemetry) and opens its live view. */
function StartBatch({ session }: { session: Session }) {
  const [open, setOpen] = useState(false);
  const action = useAction();
  const errors = action.error ? problemFields(action.error) : { byField: {} as Record<string, string>, general: null };
  const choices = useLoad(async () => {
    if (!open) return null;
    const [machines, profilesAndLots] = await Promise.all([call(session, 'catalog.machine.listMachines', { page: { limit: 100 } }), loadProfilesAndLots(session)]);
    return { machines: machines.items, ...profilesAndLots };
  }, [session, open]);
  if (!open) {
    return (
      <button type="button" onClick={() => setOpen(true)}>
        Start a batch
      </button>
    );
  }
  const submit = async (e: Event) => {
    e.preventDefault();
    const f = new FormData(e.target as HTMLFormElement);
    const value = (k: string) => String(f.get(k) ?? '').trim();
    const optional = (k: string) => (value(k) ? { [k]: value(k) } : {});
    const batch = await action.run('Starting…', () =>
      call(session, 'production.roast.startRoastBatch', {
        batchNumber: value('batchNumber'),
        machineId: value('machineId'),
        chargeWeightKg: value('chargeWeightKg'),
        ...optional('profileId'),
        ...optional('greenLotId'),
      }),
    );
    if (batch) navigate(`/batches/${batch.id}`);
  };
  const c = choices.data;
  return (
    <form class="card action-form" onSubmit={submit} noValidate>
      <h2>Start a batch</h2>
      <LoadState state={choices} what="machines, profiles and lots" />
      <Field label="Batch number" name="batchNumber" error={errors.byField.batchNumber}>
        <input name="batchNumber" required />
      </Field>
      <Field label="Machine" name="machineId" error={errors.byField.machineId}>
        <select name="machineId">
          {c?.machines.map((m) => (
            <option value={m.id}>
              {m.name} ({m.code})
            </option>
          ))}
        </select>
      </Field>
      <ProfileAndLotFields choices={c} errors={errors.byField} lotLabel="Green lot" />
      <Field label="Charge weight (kg)" name="chargeWeightKg" error={errors.byField.chargeWeightKg}>
        <input name="chargeWeightKg" inputMode="decimal" required />
      </Field>
      {errors.general ? (
        <p class="error" role="alert">
          {errors.general}
        </p>
      ) : null}
      <div class="actions">
        <BusyButton type="submit" busy={action.busy} disabled={!c} busyLabel="Starting…">
          Start
        </BusyButton>
        <button type="button" class="secondary" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** Reads a chosen file, reporting how much is read: text as it is, a Cropster .xls base64-encoded (as the import asks). */
function readLogFile(file: File, report: (fraction: number) => void): Promise<string> {
  const binary = /\.xlsx?$/i.test(file.name);
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onprogress = (e) => e.lengthComputable && report(e.loaded / e.total);
    reader.onerror = () => reject(reader.error ?? new Error(`Could not read ${file.name}.`));
    reader.onload = () => {
      if (!binary) return resolve(String(reader.result));
      const bytes = new Uint8Array(reader.result as ArrayBuffer);
      let text = '';
      for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
      resolve(btoa(text));
    };
    if (binary) reader.readAsArrayBuffer(file);
    else reader.readAsText(file);
  });
}

/** The profiles and green lots in stock a batch may name, each empty when the role may not read them. */
async function loadProfilesAndLots(session: Session) {
  const [profiles, lots] = await Promise.all([
    can(session, 'production.profile.read') ? call(session, 'production.profile.listProfiles', { page: { limit: 100 } }) : null,
    can(session, 'inventory.green.read') ? call(session, 'inventory.green.listGreenLots', { filter: { hasStock: true }, page: { limit: 100 } }) : null,
  ]);
  return { profiles: profiles?.items ?? [], lots: lots?.items ?? [] };
}

/** The optional profile and green lot of a batch, as selects, with the server's problems at each. */
function ProfileAndLotFields({ choices, errors, lotLabel }: { choices: Awaited<ReturnType<typeof loadProfilesAndLots>> | null | undefined; errors: Record<string, string>; lotLabel: string }) {
  return (
    <>
      <Field label="Profile" name="profileId" error={errors.profileId}>
        <select name="profileId">
          <option value="">none</option>
          {choices?.profiles.map((p) => (
            <option value={p.id}>
              {p.name} ({p.code})
            </option>
          ))}
        </select>
      </Field>
      <Field label={lotLabel} name="greenLotId" error={errors.greenLotId}>
        <select name="greenLotId">
          <option value="">none</option>
          {choices?.lots.map((l) => (
            <option value={l.id}>
              {l.lotCode} {l.name} ({kg(l.availableKg)})
            </option>
          ))}
        </select>
      </Field>
    </>
  );
}

/** Imports a roast logger's export as a completed batch (production.roast.importLoggerRoast) and opens it. */
function ImportLog({ session }: { session: Session }) {
  const [open, setOpen] = useState(false);
  const action = useAction();
  const choices = useLoad(async () => {
    if (!open) return null;
    return loadProfilesAndLots(session);
  }, [session, open]);
  if (!open) {
    return (
      <button type="button" class="secondary" onClick={() => setOpen(true)}>
        Import a logger file
      </button>
    );
  }
  const found = action.error ? problemFields(action.error) : { byField: {} as Record<string, string>, general: null };
  const submit = async (e: Event) => {
    e.preventDefault();
    const f = new FormData(e.target as HTMLFormElement);
    const value = (k: string) => String(f.get(k) ?? '').trim();
    const optional = (k: string) => (value(k) ? { [k]: value(k) } : {});
    const file = f.get('file');
    const batch = await action.run('Reading the file…', async (report) => {
      // No file is the same refusal the service gives an empty `content`, at the file field.
      const content = file instanceof File && file.size > 0 ? await readLogFile(file, (x) => report('Reading the file…', x)) : '';
      report(`Uploading and importing ${file instanceof File && file.name ? file.name : 'the log'}…`);
      return call(session, 'production.roast.importLoggerRoast', {
        content,
        batchNumber: value('batchNumber'),
        ...optional('profileId'),
        ...optional('greenLotId'),
        ...optional('chargeWeightKg'),
        ...optional('dropWeightKg'),
      });
    });
    if (batch) navigate(`/batches/${batch.id}`);
  };
  const c = choices.data;
  const err = (k: string) => found.byField[k];
  return (
    <form class="card action-form" data-form="import" onSubmit={submit} noValidate>
      <h2>Import a logger file</h2>
      <LoadState state={choices} what="profiles and lots" />
      <Field label="Logger file (Artisan, IKAWA, ROEST, Loring, Aillio, Cropster)" name="content" error={err('content')}>
        <input name="file" type="file" accept=".alog,.json,.csv,.txt,.xls,.xlsx" required />
      </Field>
      <Field label="Batch number" name="batchNumber" error={err('batchNumber')}>
        <input name="batchNumber" required />
      </Field>
      <ProfileAndLotFields choices={c} errors={found.byField} lotLabel="Green lot (its stock is deducted)" />
      <Field label="Charge weight (kg), if the file has none" name="chargeWeightKg" error={err('chargeWeightKg')}>
        <input name="chargeWeightKg" inputMode="decimal" />
      </Field>
      <Field label="Drop weight (kg), if the file has none" name="dropWeightKg" error={err('dropWeightKg')}>
        <input name="dropWeightKg" inputMode="decimal" />
      </Field>
      {found.general ? (
        <p class="error" role="alert">
          {found.general}
        </p>
      ) : null}
      {action.pending ? <Progress label={action.pending.label} value={action.pending.value} /> : null}
      <div class="actions">
        <BusyButton type="submit" busy={action.busy} busyLabel="Importing…">
          Import
        </BusyButton>
        <button type="button" class="secondary" disabled={action.busy} onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/**
 * The curve to follow and the profile's targets: the reference batch chosen for this one
 * (production.roast.setRoastReference), else the profile's reference, its most recent completed batch (other than this one).
 */
async function referenceFor(session: Session, batch: Batch, referenceBatchId = batch.referenceBatchId): Promise<Reference | null> {
  const profiles = !!batch.profileId && can(session, 'production.profile.read');
  if (!referenceBatchId && !profiles) return null;
  const [profile, previous] = await Promise.all([
    profiles ? call(session, 'production.profile.getProfile', { id: batch.profileId! }) : null,
    referenceBatchId || !profiles ? null : call(session, 'production.roast.listRoastBatches', { filter: { profileId: batch.profileId!, state: 'completed' }, page: { limit: 2 } }),
  ]);
  const other = referenceBatchId ?? previous?.items.find((b) => b.id !== batch.id)?.id;
  const curve = other ? await call(session, 'production.roast.getRoastCurve', { id: other }) : null;
  return {
    t: curve ? curve.samples.map((s) => s.t / 1000) : [],
    bt: curve ? curve.samples.map((s) => s.bt) : [],
    dropTempC: profile?.targetDropTempC ?? null,
    totalTimeS: profile?.targetTotalTimeS ?? null,
  };
}

/** Chooses the curve the batch is drawn against: any completed batch, or the profile's reference. */
function ReferenceChooser({ session, batch, onChosen }: { session: Session; batch: Batch; onChosen: (referenceBatchId: string | null) => void }) {
  const [chosen, setChosen] = useState<string | null>(batch.referenceBatchId);
  const action = useAction();
  const choices = useLoad(() => call(session, 'production.roast.listRoastBatches', { filter: { state: 'completed' }, page: { limit: 50 } }), [session]);
  const writable = can(session, 'production.roast.write');
  const options = (choices.data?.items ?? []).filter((b) => b.id !== batch.id);
  const named = chosen && !options.some((b) => b.id === chosen) ? [{ id: chosen, batchNumber: chosen }] : [];
  return (
    <div class="filters reference" data-reference-chooser>
      <label>
        Reference curve{' '}
        <select
          value={chosen ?? ''}
          disabled={!writable || action.busy}
          onChange={async (e) => {
            const value = (e.target as HTMLSelectElement).value || null;
            const done = await action.run('Choosing the reference…', () => call(session, 'production.roast.setRoastReference', { id: batch.id, referenceBatchId: value }));
            if (done) {
              setChosen(done.referenceBatchId);
              onChosen(done.referenceBatchId);
            }
          }}
        >
          <option value="">{batch.profileId ? 'the profile’s (latest completed batch)' : 'none'}</option>
          {[...named, ...options].map((b) => (
            <option value={b.id}>{b.batchNumber}</option>
          ))}
        </select>
      </label>
      <ErrorBox error={action.error ?? choices.error} />
    </div>
  );
}

/** The events a roaster marks by hand on a machine that does not detect them (production.roast.markRoastEvent). */
const MARKS: [RoastEventType, string][] = [
  ['charge', 'Charge'],
  ['dry_end', 'Dry end'],
  ['first_crack_start', 'First crack'],
  ['drop', 'Drop'],
];

function MarkEvents({ session, batch }: { session: Session; batch: Batch }) {
  const action = useAction();
  const [marking, setMarking] = useState<string | null>(null);
  return (
    <div class="actions marks" data-marks>
      {MARKS.map(([type, label]) => (
        <BusyButton
          class="secondary"
          busy={action.busy && marking === type}
          disabled={action.busy}
          busyLabel={`Marking ${label.toLowerCase()}…`}
          name={`mark-${type}`}
          onClick={async () => {
            setMarking(type);
            await action.run(`Marking ${label.toLowerCase()}…`, () => call(session, 'production.roast.markRoastEvent', { id: batch.id, type }));
          }}
        >
          {label}
        </BusyButton>
      ))}
      <ErrorBox error={action.error} />
    </div>
  );
}

export function BatchPage({ session, id }: { session: Session; id: string }) {
  const batch = useLoad(() => call(session, 'production.roast.getRoastBatch', { id }), [session, id]);
  const b = batch.data;
  return (
    <>
      <p class="crumbs">
        <Link to="/batches">Roast batches</Link> /
      </p>
      <LoadState state={batch} what="the batch" />
      {b ? (
        <>
          <h1>
            {b.batchNumber} <Badge tone={b.state === 'live' ? 'live' : b.state === 'aborted' ? 'bad' : 'ok'}>{b.state}</Badge>
          </h1>
          {b.state === 'live' ? <LiveView key={b.id} session={session} batch={b} onEnded={batch.reload} /> : <DoneView session={session} batch={b} />}
        </>
      ) : null}
    </>
  );
}

interface LiveHook {
  batchId: string;
  samples: number;
  events: string[];
  lastId: number;
  connection: string;
  /** Frames drawn in each whole second since the view opened (requestAnimationFrame), to check it keeps up. */
  framesPerSecond: number[];
  drop(): void;
}

declare global {
  interface Window {
    __firstcrack?: { live?: LiveHook };
  }
}

function LiveView({ session, batch, onEnded }: { session: Session; batch: Batch; onEnded: () => void }) {
  const chartEl = useRef<HTMLDivElement>(null);
  const chartRef = useRef<RoastChart | null>(null);
  const curve = useRef(new CurveBuffer()).current;
  const [tick, setTick] = useState(0);
  const [connection, setConnection] = useState<string>('connecting');
  const [ended, setEnded] = useState<string | null>(null);
  const [chartReady, setChartReady] = useState(false);
  const followRef = useRef<Follow | null>(null);

  useEffect(() => {
    const el = chartEl.current!;
    let chart: RoastChart | null = null;
    let disposed = false;
    let dirty = false;
    let frame = 0;
    let frames = 0;
    let secondStart = performance.now();
    const hook: LiveHook = {
      batchId: batch.id,
      samples: 0,
      events: [],
      lastId: 0,
      connection: 'connecting',
      framesPerSecond: [],
      drop: () => followRef.current?.drop(),
    };
    window.__firstcrack = { ...window.__firstcrack, live: hook };
    // One redraw per animation frame however many samples arrived since the last: 10 Hz telemetry costs at most
    // ten redraws a second, and a burst after a reconnect costs one.
    const loop = (now: number) => {
      frames++;
      if (now - secondStart >= 1000) {
        hook.framesPerSecond.push(frames);
        if (hook.framesPerSecond.length > 600) hook.framesPerSecond.shift();
        frames = 0;
        secondStart = now;
      }
      if (dirty) {
        dirty = false;
        chart?.update();
        hook.samples = curve.t.length;
        hook.events = curve.events.map((e) => e.type);
        el.dataset.samples = String(curve.t.length);
        el.dataset.events = hook.events.join(' ');
        setTick((t) => t + 1);
      }
      frame = requestAnimationFrame(loop);
    };
    frame = requestAnimationFrame(loop);
    const follow = followBatch(session, batch.id, {
      sample(s) {
        curve.add(s);
        dirty = true;
        hook.lastId = follow.lastId();
      },
      event(e) {
        curve.addEvent(e);
        dirty = true;
      },
      status() {},
      connection(state, detail) {
        hook.connection = state;
        el.dataset.connection = state;
        setConnection(state);
        if (state === 'ended') setEnded(detail ?? 'ended');
      },
    });
    followRef.current = follow;
    void loadChart().then(({ roastChart }) => {
      if (disposed) return;
      chart = roastChart(el, curve);
      chartRef.current = chart;
      setChartReady(true);
      referenceFor(session, batch).then(
        (r) => {
          chart?.setReference(r);
          el.dataset.reference = String(r?.t.length ?? 0);
        },
        () => {},
      );
    });
    const observer = new ResizeObserver(() => chart?.resize(el.clientWidth));
    observer.observe(el);
    return () => {
      disposed = true;
      follow.stop();
      cancelAnimationFrame(frame);
      observer.disconnect();
      chart?.destroy();
    };
  }, [batch.id]);

  const last = curve.t.length - 1;
  const phases = phasesOf(curve.events, curve.now);
  const pct = (s: number) => (phases.total > 0 ? `${(s / phases.total) * 100}%` : '0%');
  void tick;
  return (
    <>
      <div class="readouts" aria-live="off">
        <div>
          <span>Time</span>
          <strong>{mmss(curve.now)}</strong>
        </div>
        <div class="bt">
          <span>BT</span>
          <strong>{last >= 0 && curve.bt[last] !== null ? formatTemp(curve.bt[last]) : '—'}</strong>
        </div>
        <div class="et">
          <span>ET</span>
          <strong>{last >= 0 && curve.et[last] !== null ? formatTemp(curve.et[last]) : '—'}</strong>
        </div>
        <div class="ror">
          <span>RoR</span>
          <strong>{last >= 0 && curve.ror[last] !== null ? `${curve.ror[last]!.toFixed(1)}` : '—'}</strong>
        </div>
        <div>
          <span>DTR</span>
          <strong data-value="dtr">{phases.dtrPct === null ? '—' : `${phases.dtrPct.toFixed(1)} %`}</strong>
        </div>
      </div>
      <div class="phasebar" aria-label="Roast phases">
        {/* A phase not reached has no segment: an empty one would still show its padding as a sliver. */}
        {phases.drying > 0 ? (
          <div class="drying" style={{ width: pct(phases.drying) }} title="Drying">
            Drying {mmss(phases.drying)}
          </div>
        ) : null}
        {phases.maillard > 0 ? (
          <div class="maillard" style={{ width: pct(phases.maillard) }} title="Maillard">
            Maillard {mmss(phases.maillard)}
          </div>
        ) : null}
        {phases.development > 0 ? (
          <div class="development" style={{ width: pct(phases.development) }} title="Development">
            Dev {mmss(phases.development)}
          </div>
        ) : null}
      </div>
      {chartReady ? null : <Progress label="Loading the chart…" />}
      <div class="chart live-chart" ref={chartEl} data-samples="0" data-events="" data-connection="connecting" />
      <p class="muted legend">
        <span class="key bt">BT</span> <span class="key et">ET</span> <span class="key ror">RoR</span> <span class="key ref">reference</span>{' '}
        {connection === 'connecting' || connection === 'reconnecting' ? (
          <span class="conn">
            <Progress label={connection === 'connecting' ? 'Connecting…' : 'Reconnecting…'} inline />
          </span>
        ) : (
          <span class={'conn ' + connection}>{connection === 'open' ? 'live' : connection}</span>
        )}
      </p>
      {ended ? null : can(session, 'production.roast.write') ? <MarkEvents session={session} batch={batch} /> : null}
      <ReferenceChooser
        session={session}
        batch={batch}
        onChosen={(id) =>
          referenceFor(session, batch, id).then(
            (r) => {
              chartRef.current?.setReference(r);
              if (chartEl.current) chartEl.current.dataset.reference = String(r?.t.length ?? 0);
            },
            () => {},
          )
        }
      />
      <ul class="events plain" data-events-list>
        {curve.events.map((e) => (
          <li>
            {eventLabel(e.type)} at {mmss(e.t / 1000)}
          </li>
        ))}
      </ul>
      {ended ? (
        <p class="notice">
          {ended}{' '}
          <button type="button" class="secondary" onClick={onEnded}>
            Show the result
          </button>
        </p>
      ) : can(session, 'production.roast.write') ? (
        <FinishForm session={session} batch={batch} onDone={onEnded} />
      ) : null}
    </>
  );
}

function FinishForm({ session, batch, onDone }: { session: Session; batch: Batch; onDone: () => void }) {
  const action = useAction();
  const [aborting, setAborting] = useState(false);
  const errors = action.error ? problemFields(action.error) : { byField: {} as Record<string, string>, general: null };
  const run = async (e: Event, abort: boolean) => {
    e.preventDefault();
    const form = (e.target as HTMLElement).closest('form')!;
    const f = new FormData(form);
    const drop = String(f.get('dropWeightKg') ?? '').trim();
    const notes = String(f.get('notes') ?? '').trim();
    setAborting(abort);
    const done = await action.run(abort ? 'Aborting…' : 'Completing…', () =>
      abort
        ? call(session, 'production.roast.abortRoastBatch', { id: batch.id, reason: notes || 'aborted from the console' })
        : call(session, 'production.roast.completeRoastBatch', { id: batch.id, ...(drop ? { dropWeightKg: drop } : {}), ...(notes ? { notes } : {}) }),
    );
    if (done) onDone();
  };
  return (
    <form class="card finish" onSubmit={(e) => run(e, false)} noValidate>
      <h2>Finish the batch</h2>
      <Field label="Drop weight (kg)" name="dropWeightKg" error={errors.byField.dropWeightKg}>
        <input name="dropWeightKg" inputMode="decimal" />
      </Field>
      <Field label="Notes" name="notes" error={errors.byField.notes ?? errors.byField.reason}>
        <input name="notes" />
      </Field>
      {errors.general ? (
        <p class="error" role="alert">
          {errors.general}
        </p>
      ) : null}
      <div class="actions">
        <BusyButton type="submit" busy={action.busy && !aborting} disabled={action.busy} busyLabel="Completing…">
          Complete
        </BusyButton>
        <BusyButton class="danger" busy={action.busy && aborting} disabled={action.busy} busyLabel="Aborting…" onClick={(e) => run(e, true)}>
          Abort
        </BusyButton>
      </div>
    </form>
  );
}

function DoneView({ session, batch }: { session: Session; batch: Batch }) {
  const chartEl = useRef<HTMLDivElement>(null);
  const chartRef = useRef<RoastChart | null>(null);
  const curve = useLoad(() => call(session, 'production.roast.getRoastCurve', { id: batch.id }), [session, batch.id]);
  const [chartReady, setChartReady] = useState(false);
  useEffect(() => {
    if (!curve.data || !chartEl.current) return;
    const buffer = new CurveBuffer();
    for (const s of curve.data.samples) buffer.add(s);
    for (const e of curve.data.events) buffer.addEvent(e);
    const el = chartEl.current;
    let chart: RoastChart | null = null;
    let disposed = false;
    void loadChart().then(({ roastChart }) => {
      if (disposed) return;
      chart = roastChart(el, buffer);
      chartRef.current = chart;
      setChartReady(true);
      el.dataset.samples = String(buffer.t.length);
      el.dataset.events = buffer.events.map((e) => e.type).join(' ');
      referenceFor(session, batch).then((r) => chart?.setReference(r), () => {});
    });
    const observer = new ResizeObserver(() => chart?.resize(el.clientWidth));
    observer.observe(el);
    return () => {
      disposed = true;
      observer.disconnect();
      chart?.destroy();
    };
  }, [curve.data]);
  const m = batch.metrics;
  const c = batch.profileComparison;
  const row = (label: string, value: string) => (
    <tr>
      <td>{label}</td>
      <td class="num">{value}</td>
    </tr>
  );
  const n = (v: number | null | undefined, unit = '') => (v === null || v === undefined ? '—' : `${Math.round(v * 10) / 10}${unit}`);
  return (
    <>
      <LoadState state={curve} what="the curve" />
      {curve.data && !chartReady ? <Progress label="Drawing the curve…" /> : null}
      <div class="chart" ref={chartEl} data-samples="0" />
      {curve.data ? <ReferenceChooser session={session} batch={batch} onChosen={(id) => referenceFor(session, batch, id).then((r) => chartRef.current?.setReference(r), () => {})} /> : null}
      <div class="grid">
        <section class="card">
          <h2>Metrics</h2>
          {m ? (
            <table data-table="metrics">
              <tbody>
                {row('Total time', mmss(m.totalTimeS))}
                {row('Charge temperature', formatTemp(m.chargeTempC))}
                {row('Turning point', `${mmss(m.turningPointS)} · ${formatTemp(m.turningPointTempC)}`)}
                {row('Dry end', `${mmss(m.dryEndS)} · ${formatTemp(m.dryEndTempC)}`)}
                {row('First crack', `${mmss(m.firstCrackStartS)} · ${formatTemp(m.firstCrackStartTempC)}`)}
                {row('Drop', `${mmss(m.dropS)} · ${formatTemp(m.dropTempC)}`)}
                {row('Development ratio', n(m.developmentTimeRatioPct, ' %'))}
                {row('Phases', `${mmss(m.dryingPhaseS)} / ${mmss(m.maillardPhaseS)} / ${mmss(m.developmentPhaseS)}`)}
                {row('Weight loss', n(m.weightLossPct, ' %'))}
              </tbody>
            </table>
          ) : (
            <p class="muted">No metrics{batch.state === 'aborted' ? ` (aborted: ${batch.abortReason ?? ''})` : ''}.</p>
          )}
        </section>
        {c ? (
          <section class="card">
            <h2>Against profile {c.profileCode}</h2>
            <table data-table="comparison">
              <thead>
                <tr>
                  <th></th>
                  <th class="num">Target</th>
                  <th class="num">Actual</th>
                  <th class="num">Δ</th>
                </tr>
              </thead>
              <tbody>
                <tr>
                  <td>Charge</td>
                  <td class="num">{kg(c.chargeWeightKg.target)}</td>
                  <td class="num">{kg(c.chargeWeightKg.actual)}</td>
                  <td class="num">{c.chargeWeightKg.difference ?? '—'}</td>
                </tr>
                <tr>
                  <td>Drop temp</td>
                  <td class="num">{formatTemp(c.dropTempC.target)}</td>
                  <td class="num">{formatTemp(c.dropTempC.actual)}</td>
                  <td class="num">{n(c.dropTempC.difference)}</td>
                </tr>
                <tr>
                  <td>Total time</td>
                  <td class="num">{mmss(c.totalTimeS.target)}</td>
                  <td class="num">{mmss(c.totalTimeS.actual)}</td>
                  <td class="num">{n(c.totalTimeS.difference, ' s')}</td>
                </tr>
                <tr>
                  <td>DTR</td>
                  <td class="num">{n(c.dtrPct.target, ' %')}</td>
                  <td class="num">{n(c.dtrPct.actual, ' %')}</td>
                  <td class="num">{n(c.dtrPct.difference)}</td>
                </tr>
              </tbody>
            </table>
          </section>
        ) : null}
        <section class="card">
          <h2>Output</h2>
          {batch.roastedLot ? (
            <p>
              Roasted lot <strong>{batch.roastedLot.lotCode}</strong>, {kg(batch.roastedLot.onHandKg)} on hand.{' '}
              {can(session, 'traceability.read') ? <Link to={`/trace/roasted_lot/${batch.roastedLot.id}`}>Trace it</Link> : null}
            </p>
          ) : (
            <p class="muted">No roasted lot.</p>
          )}
          <p class="muted">
            Started {when(batch.startedAt)}
            {batch.completedAt ? `, completed ${when(batch.completedAt)}` : ''}.
          </p>
        </section>
      </div>
    </>
  );
}
