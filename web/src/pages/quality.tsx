import { useState } from 'preact/hooks';
import type { AreaProps } from '../areas.tsx';
import { SubNav } from '../areas.tsx';
import { SpecForm } from '../crud.tsx';
import { F, FormProblem, Submit, useForm } from '../form.tsx';
import { compact, DataList } from '../list.tsx';
import { call, can, type Session } from '../session.ts';
import { Badge, BusyButton, ErrorBox, Link, LoadState, navigate, useAction, useLoad, when } from '../ui.tsx';

/** The SCA form's attributes scored 6.00–10.00 in quarter points, and the three scored per cup (2 points per passing cup of 5). */
const ATTRIBUTES: [string, string][] = [
  ['fragranceAroma', 'Fragrance / aroma'],
  ['flavor', 'Flavor'],
  ['aftertaste', 'Aftertaste'],
  ['acidity', 'Acidity'],
  ['body', 'Body'],
  ['balance', 'Balance'],
  ['overall', 'Overall'],
];
const CUP_ATTRIBUTES: [string, string][] = [
  ['uniformity', 'Uniformity'],
  ['cleanCup', 'Clean cup'],
  ['sweetness', 'Sweetness'],
];
const CUPS = 5;
const page = (cursor: string | undefined, limit: number) => ({ limit, ...(cursor ? { cursor } : {}) });
const two = (n: number) => n.toFixed(2);

/**
 * A quarter-point stepper: only 6.00, 6.25, … 10.00 can be chosen (buttons, or the arrow keys on the value), so the
 * form cannot produce a score the service would refuse.
 */
export function Stepper({ label, value, onChange, min = 6, max = 10, step = 0.25, name }: { label: string; value: number; onChange: (v: number) => void; min?: number; max?: number; step?: number; name: string }) {
  const set = (v: number) => onChange(Math.min(max, Math.max(min, Math.round(v / step) * step)));
  const show = (v: number) => (step >= 1 ? String(v) : two(v));
  return (
    <div class="stepper" data-stepper={name}>
      <span class="stepper-label" id={`lbl-${name}`}>
        {label}
      </span>
      <button type="button" class="secondary" aria-label={`${label}: less`} disabled={value <= min} onClick={() => set(value - step)}>
        −
      </button>
      <span
        class="stepper-value"
        role="spinbutton"
        tabIndex={0}
        aria-labelledby={`lbl-${name}`}
        aria-valuemin={min}
        aria-valuemax={max}
        aria-valuenow={value}
        aria-valuetext={show(value)}
        onKeyDown={(e) => {
          if (e.key === 'ArrowUp' || e.key === 'ArrowRight') (e.preventDefault(), set(value + step));
          else if (e.key === 'ArrowDown' || e.key === 'ArrowLeft') (e.preventDefault(), set(value - step));
          else if (e.key === 'Home') (e.preventDefault(), set(min));
          else if (e.key === 'End') (e.preventDefault(), set(max));
        }}
      >
        {show(value)}
      </span>
      <button type="button" class="secondary" aria-label={`${label}: more`} disabled={value >= max} onClick={() => set(value + step)}>
        +
      </button>
    </div>
  );
}

/** One coffee's score sheet: steppers, cups, defects; the total as the service will compute it. */
function ScoreSheet({ session, coffee, onDone }: { session: Session; coffee: { sessionSampleId: string; blindCode: string }; onDone: () => void }) {
  const [scores, setScores] = useState<Record<string, number>>(Object.fromEntries(ATTRIBUTES.map(([a]) => [a, 7.5])));
  const [cups, setCups] = useState<Record<string, boolean[]>>(Object.fromEntries(CUP_ATTRIBUTES.map(([a]) => [a, Array(CUPS).fill(true)])));
  const [defectCups, setDefectCups] = useState(0);
  const [intensity, setIntensity] = useState<2 | 4>(2);
  const form = useForm();
  const cupScore = (a: string) => cups[a]!.filter(Boolean).length * 2;
  const total = ATTRIBUTES.reduce((s, [a]) => s + scores[a]!, 0) + CUP_ATTRIBUTES.reduce((s, [a]) => s + cupScore(a), 0);
  const penalty = defectCups * intensity;
  return (
    <form
      class="card score-sheet"
      data-form={`score-${coffee.blindCode}`}
      noValidate
      onSubmit={form.submit(
        `Saving the score for ${coffee.blindCode}…`,
        (v) =>
          call(session, 'quality.cupping.submitCuppingScore', {
            sessionSampleId: coffee.sessionSampleId,
            ...(v.str('cupperName') ? { cupperName: v.str('cupperName') } : {}),
            scores: { ...scores, ...Object.fromEntries(CUP_ATTRIBUTES.map(([a]) => [a, cupScore(a)])) } as never,
            defects: { cups: defectCups, intensity },
            descriptors: v.str('descriptors')?.split(',').map((d) => d.trim()).filter(Boolean) ?? [],
            ...(v.str('notes') ? { notes: v.str('notes') } : {}),
          }),
        onDone,
      )}
    >
      <h2>
        Score coffee <span class="code">{coffee.blindCode}</span>
      </h2>
      <div class="steppers">
        {ATTRIBUTES.map(([a, label]) => (
          <Stepper name={`${coffee.blindCode}-${a}`} label={label} value={scores[a]!} onChange={(v) => setScores({ ...scores, [a]: v })} />
        ))}
      </div>
      {CUP_ATTRIBUTES.map(([a, label]) => (
        <fieldset class="cups" data-cups={a}>
          <legend>
            {label}: {cupScore(a)}
          </legend>
          {cups[a]!.map((ok, i) => (
            <label class="check">
              <input type="checkbox" checked={ok} onChange={(e) => setCups({ ...cups, [a]: cups[a]!.map((c, j) => (j === i ? (e.target as HTMLInputElement).checked : c)) })} /> cup {i + 1}
            </label>
          ))}
        </fieldset>
      ))}
      <fieldset>
        <legend>Defects</legend>
        <div class="pair">
          <Stepper name={`${coffee.blindCode}-defect-cups`} label="Defective cups" value={defectCups} min={0} max={CUPS} step={1} onChange={setDefectCups} />
          <label class="check">
            Intensity{' '}
            <select value={String(intensity)} onChange={(e) => setIntensity(Number((e.target as HTMLSelectElement).value) as 2 | 4)}>
              <option value="2">taint (2)</option>
              <option value="4">fault (4)</option>
            </select>
          </label>
        </div>
      </fieldset>
      <div class="pair">
        <F form={form} name="cupperName" label="Cupper">
          <input name="cupperName" autocomplete="name" />
        </F>
        <F form={form} name="descriptors" label="Descriptors (comma-separated)">
          <input name="descriptors" />
        </F>
      </div>
      <F form={form} name="notes" label="Notes">
        <textarea name="notes" />
      </F>
      <p class="total" data-total={two(total - penalty)}>
        Total {two(total)} − defects {penalty} = <strong>{two(total - penalty)}</strong>
      </p>
      <FormProblem form={form} />
      <Submit form={form}>Save score</Submit>
    </form>
  );
}

function CuppingSessionPage({ session, id }: { session: Session; id: string }) {
  const table = useLoad(() => call(session, 'quality.cupping.getCuppingTable', { sessionId: id }), [session, id]);
  const [scoring, setScoring] = useState<string | null>(null);
  const finalize = useAction();
  const t = table.data;
  const writable = can(session, 'quality.cupping.write');
  return (
    <>
      <p class="crumbs">
        <Link to="/quality/cupping">Cupping</Link> /
      </p>
      <LoadState state={table} what="the cupping table" />
      {t ? (
        <>
          <h1>
            {t.session.name} <Badge tone={t.session.status === 'finalized' ? 'ok' : 'warn'}>{t.session.status}</Badge>
          </h1>
          <p class="muted">
            {t.session.sessionNumber} · {t.session.mode.replace('_', ' ')} · {t.coffees.length} coffees · {t.session.scoreCount} scores
            {t.identitiesHidden ? ' · identities hidden until finalized' : ''}
          </p>
          {t.session.status === 'open' && writable ? (
            <div class="actions">
              <BusyButton
                busy={finalize.busy}
                busyLabel="Finalizing…"
                onClick={() => void finalize.run('Finalizing…', () => call(session, 'quality.cupping.finalizeCuppingSession', { sessionId: id })).then((r) => r && table.reload())}
              >
                Finalize
              </BusyButton>
            </div>
          ) : null}
          <ErrorBox error={finalize.error} />
          <div class="cupping-table" data-table="cupping">
            {t.coffees.map((c) => (
              <section class="card coffee" data-coffee={c.blindCode}>
                <h2>
                  <span class="code">{c.blindCode}</span> {c.identity ? <span data-identity>{c.identity.code ?? c.identity.name}</span> : <span class="muted">blind</span>}
                </h2>
                <p class="muted">{c.scoreCount} scores</p>
                {c.result ? (
                  <dl class="facts" data-result>
                    <div>
                      <dt>Mean</dt>
                      <dd data-value="mean">{c.result.meanScore ?? '—'}</dd>
                    </div>
                    <div>
                      <dt>Spread (σ)</dt>
                      <dd data-value="spread">{c.result.stddevScore ?? '—'}</dd>
                    </div>
                    <div>
                      <dt>Range</dt>
                      <dd>{c.result.minScore !== null ? `${c.result.minScore}–${c.result.maxScore}` : '—'}</dd>
                    </div>
                    <div>
                      <dt>Cuppers</dt>
                      <dd>{c.result.cupperCount}</dd>
                    </div>
                  </dl>
                ) : null}
                {c.result?.topDescriptors.length ? <p>{c.result.topDescriptors.map((d) => `${d.descriptor} (${d.count})`).join(', ')}</p> : null}
                {t.session.status === 'open' && writable ? (
                  <button type="button" class={scoring === c.sessionSampleId ? '' : 'secondary'} aria-expanded={scoring === c.sessionSampleId} onClick={() => setScoring(scoring === c.sessionSampleId ? null : c.sessionSampleId)}>
                    Score {c.blindCode}
                  </button>
                ) : null}
              </section>
            ))}
          </div>
          {scoring ? (
            <ScoreSheet
              key={scoring}
              session={session}
              coffee={t.coffees.find((c) => c.sessionSampleId === scoring)!}
              onDone={() => {
                setScoring(null);
                table.reload();
              }}
            />
          ) : null}
        </>
      ) : null}
    </>
  );
}

function NewCuppingSession({ session }: { session: Session }) {
  const lots = useLoad(() => call(session, 'inventory.green.listGreenLots', { page: { limit: 100 } }), [session]);
  const form = useForm();
  return (
    <>
      <p class="crumbs">
        <Link to="/quality/cupping">Cupping</Link> /
      </p>
      <h1>New cupping session</h1>
      <LoadState state={lots} what="lots" />
      {lots.data ? (
        <form
          class="card"
          data-form="new-cupping"
          noValidate
          onSubmit={form.submit(
            'Setting the table…',
            (v) =>
              call(session, 'quality.cupping.createCuppingSession', {
                sessionNumber: v.text('sessionNumber'),
                name: v.text('name'),
                mode: v.text('mode') as never,
                samples: [...v.all('lots').map((id) => ({ kind: 'green_lot' as const, id })), ...(v.str('outside')?.split(',').map((n) => ({ kind: 'outside' as const, name: n.trim() })) ?? [])] as never,
              }),
            (created) => navigate(`/quality/cupping/${created.session.id}`),
          )}
        >
          <F form={form} name="name" label="Name">
            <input name="name" required />
          </F>
          <F form={form} name="sessionNumber" label="Session number">
            <input name="sessionNumber" required />
          </F>
          <F form={form} name="mode" label="Mode">
            <select name="mode">
              <option value="blind">blind</option>
              <option value="double_blind">double blind</option>
              <option value="open">open</option>
            </select>
          </F>
          <F form={form} name="samples" label="Green lots on the table">
            <select name="lots" multiple>
              {lots.data.items.map((l) => (
                <option value={l.id}>
                  {l.lotCode} {l.name}
                </option>
              ))}
            </select>
          </F>
          <F form={form} name="outside" label="Outside coffees (names, comma-separated)">
            <input name="outside" />
          </F>
          <FormProblem form={form} />
          <Submit form={form}>Create session</Submit>
        </form>
      ) : null}
    </>
  );
}

function Cupping({ session }: { session: Session }) {
  return (
    <>
      {can(session, 'quality.cupping.write') ? (
        <div class="actions">
          <a class="button" href="#/quality/cupping/new">
            New cupping session
          </a>
        </div>
      ) : null}
      <DataList
        name="cupping-sessions"
        what="cupping sessions"
        filters={[
          { name: 'q', label: 'Search sessions', type: 'search', placeholder: 'Name or number' },
          { name: 'status', label: 'Status', type: 'select', options: [['', 'any status'], ['open', 'open'], ['finalized', 'finalized']] },
        ]}
        deps={[session]}
        load={(f, cursor, limit) => call(session, 'quality.cupping.listCuppingSessions', { filter: compact(f) as never, page: page(cursor, limit) })}
        columns={[
          { label: 'Session', key: 'sessionNumber', render: (r) => <Link to={`/quality/cupping/${r.id}`}>{r.sessionNumber}</Link> },
          { label: 'Name', key: 'name' },
          { label: 'Mode', key: 'mode', wide: true },
          { label: 'Coffees', key: 'sampleCount', num: true },
          { label: 'Scores', key: 'scoreCount', num: true, wide: true },
          { label: 'Status', key: 'status', render: (r) => <Badge tone={r.status === 'finalized' ? 'ok' : 'warn'}>{r.status}</Badge> },
        ]}
      />
    </>
  );
}

const STANDARDS = ['sca', 'coe', 'brazil_ny', 'indonesian', 'vietnamese', 'custom'];

function Grading({ session }: { session: Session }) {
  const [recorded, setRecorded] = useState<any>(null);
  const [version, setVersion] = useState(0);
  const lots = useLoad(() => call(session, 'inventory.green.listGreenLots', { page: { limit: 100 } }), [session]);
  return (
    <>
      {can(session, 'quality.grading.write') && lots.data ? (
        <SpecForm
          key={version}
          name="grading"
          title="Record a grading"
          submit="Record"
          busyLabel="Grading…"
          fields={[
            { name: 'greenLotId', label: 'Green lot', type: 'select', options: lots.data.items.map((l) => [l.id, `${l.lotCode} ${l.name}`]) },
            { name: 'standard', label: 'Standard', type: 'select', required: true, options: STANDARDS.map((s) => [s, s.replace('_', ' ')]) },
            { name: 'moisturePct', label: 'Moisture (%)', type: 'number' },
            { name: 'waterActivity', label: 'Water activity (aw)', type: 'number' },
            { name: 'defectsPrimary', label: 'Primary defects', type: 'int' },
            { name: 'defectsSecondary', label: 'Secondary defects', type: 'int' },
            { name: 'screenSizeAvg', label: 'Average screen size', type: 'number' },
            { name: 'densityGPerL', label: 'Density (g/L)', type: 'number' },
            { name: 'notes', label: 'Notes', type: 'textarea' },
          ]}
          run={(input) => call(session, 'quality.grading.recordGrading', input as never)}
          done={(r) => {
            setRecorded(r);
            setVersion((n) => n + 1);
          }}
        />
      ) : null}
      {recorded ? (
        <section class="card" data-grading-result={recorded.grading.result} role="status">
          <h2>
            Result: <Badge tone={recorded.grading.result === 'pass' ? 'ok' : recorded.grading.result === 'fail' ? 'bad' : undefined}>{recorded.grading.result.replace('_', ' ')}</Badge>{' '}
            {recorded.grading.grade ? <span>grade {recorded.grading.grade}</span> : null}
          </h2>
          <ul class="plain">
            {recorded.grading.checks.map((c: any) => (
              <li data-check={c.rule} data-passed={String(c.passed)}>
                <Badge tone={c.passed ? 'ok' : 'bad'}>{c.passed ? 'pass' : 'fail'}</Badge> {c.message}
              </li>
            ))}
          </ul>
          {recorded.grading.quarantinedLot ? (
            <p class="error">
              The lot <Link to={`/lots/${recorded.grading.greenLotId}`}>{recorded.lot?.lotCode}</Link> is now quarantined.
            </p>
          ) : null}
        </section>
      ) : null}
      <DataList
        name="gradings"
        what="gradings"
        deps={[session, version]}
        filters={[{ name: 'result', label: 'Result', type: 'select', options: [['', 'any result'], ['pass', 'pass'], ['fail', 'fail'], ['not_judged', 'not judged']] }]}
        load={(f, cursor, limit) => call(session, 'quality.grading.listGradings', { filter: compact(f) as never, page: page(cursor, limit) })}
        columns={[
          { label: 'Graded', csv: (r) => r.createdAt, render: (r) => when(r.createdAt) },
          { label: 'Lot', csv: (r) => r.greenLotId, render: (r) => (r.greenLotId ? <Link to={`/lots/${r.greenLotId}`}>lot</Link> : '—') },
          { label: 'Standard', key: 'standard', wide: true },
          { label: 'Result', key: 'result', render: (r) => <Badge tone={r.result === 'pass' ? 'ok' : r.result === 'fail' ? 'bad' : undefined}>{r.result.replace('_', ' ')}</Badge> },
          { label: 'Reasons', csv: (r) => r.reasons.join('; '), render: (r) => r.reasons.join('; ') || '—' },
        ]}
      />
    </>
  );
}

function Quarantined({ session }: { session: Session }) {
  return (
    <DataList
      name="quarantined-lots"
      what="quarantined lots"
      deps={[session]}
      load={(_, cursor, limit) => call(session, 'inventory.green.listGreenLots', { filter: { quarantined: true }, page: page(cursor, limit) })}
      columns={[
        { label: 'Lot', key: 'lotCode', render: (r) => <Link to={`/lots/${r.id}`}>{r.lotCode}</Link> },
        { label: 'Name', key: 'name', wide: true },
        { label: 'Reason', key: 'quarantineReason' },
        { label: 'Since', csv: (r) => r.quarantine?.quarantinedAt, render: (r) => when(r.quarantine?.quarantinedAt) },
      ]}
    />
  );
}

export function view({ session, parts: [, tab, id] }: AreaProps) {
  if (tab === 'cupping' && id === 'new') return <NewCuppingSession session={session} />;
  if (tab === 'cupping' && id) return <CuppingSessionPage key={id} session={session} id={id} />;
  const tabs: [string, string, boolean][] = [
    ['cupping', 'Cupping', can(session, 'quality.cupping.read')],
    ['grading', 'Grading', can(session, 'quality.grading.read')],
    ['quarantine', 'Quarantine', can(session, 'inventory.green.read')],
  ];
  const current = tabs.find(([t, , ok]) => t === tab && ok) ?? tabs.find(([, , ok]) => ok);
  if (!current) return <h1>Quality</h1>;
  return (
    <>
      <h1>{current[1]}</h1>
      <SubNav current={`/quality/${current[0]}`} items={tabs.map(([t, l, ok]) => [`/quality/${t}`, l, ok])} />
      {current[0] === 'cupping' ? <Cupping session={session} /> : current[0] === 'grading' ? <Grading session={session} /> : <Quarantined session={session} />}
    </>
  );
}

