import { useEffect, useState } from 'preact/hooks';
import type { OperationInput, OperationOutput } from '../../../clients/typescript/src/index.ts';
import { call, problemFields, type Session } from '../session.ts';
import { Badge, BusyButton, ErrorBox, Field, ListFooter, poll, Progress, useAction, usePaged, when } from '../ui.tsx';

type Report = OperationOutput<'reporting.getReport'>;
type Kind = Report['kind'];

/** The kinds asked for from this page (a certificate's report is asked for with its certificate). */
const KINDS: [Kind, string][] = [
  ['inventory_valuation', 'Inventory valuation'],
  ['production_summary', 'Production summary'],
  ['quality_summary', 'Quality summary'],
  ['cafe_performance', 'Café performance'],
];
const KIND_NAME = new Map<string, string>([...KINDS, ['traceability_certificate', 'Traceability certificate']]);

const finished = (r: Report) => r.status === 'ready' || r.status === 'failed';
/** A job's status as words and as the share of its way done (queued → rendering → ready). */
const STEP: Record<Report['status'], [string, number]> = {
  queued: ['Report queued…', 1 / 3],
  rendering: ['Rendering the report…', 2 / 3],
  ready: ['Report ready', 1],
  failed: ['Report failed', 1],
};

/** Follows a report's job with getReport until it is ready or failed, reporting each status it sees. */
function follow(session: Session, id: string, seen: (r: Report) => void, signal: AbortSignal): Promise<Report> {
  return poll(() => call(session, 'reporting.getReport', { id }), finished, seen, { signal });
}

const today = () => new Date().toISOString().slice(0, 10);
const monthAgo = () => new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);

export function Reports({ session }: { session: Session }) {
  const [version, setVersion] = useState(0);
  const list = usePaged(
    (cursor) => call(session, 'reporting.listReports', { page: { limit: 20, ...(cursor ? { cursor } : {}) } }),
    [session, version],
  );
  return (
    <>
      <h1>Reports</h1>
      <Generate session={session} onFinished={() => setVersion((v) => v + 1)} />
      <ErrorBox error={list.error} />
      <div class="table-wrap">
        <table class="list" data-list="reports">
          <thead>
            <tr>
              <th>Report</th>
              <th>Status</th>
              <th class="hide-narrow">Asked for</th>
              <th>Files</th>
            </tr>
          </thead>
          <tbody>
            {list.items.map((r) => (
              <ReportRow key={r.id} session={session} report={r} />
            ))}
          </tbody>
        </table>
      </div>
      <ListFooter list={list} what="reports" />
    </>
  );
}

function Generate({ session, onFinished }: { session: Session; onFinished: () => void }) {
  const [kind, setKind] = useState<Kind>('inventory_valuation');
  const [done, setDone] = useState<Report | null>(null);
  const action = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    const f = new FormData(e.target as HTMLFormElement);
    const value = (k: string) => String(f.get(k) ?? '').trim();
    const title = value('title') ? { title: value('title') } : {};
    // This form asks for the kinds over a range of days, and the valuation; a certificate is asked for from its page.
    const input: OperationInput<'reporting.generateReport'> =
      kind === 'inventory_valuation'
        ? { kind, parameters: value('asOf') ? { asOf: value('asOf') } : {}, ...title }
        : { kind: kind as 'production_summary' | 'quality_summary' | 'cafe_performance', parameters: { from: value('from'), to: value('to') }, ...title };
    setDone(null);
    const report = await action.run('Asking for the report…', async (progress, signal) => {
      const asked = await call(session, 'reporting.generateReport', input);
      return follow(session, asked.id, (r) => progress(STEP[r.status][0], STEP[r.status][1]), signal);
    });
    if (report) {
      setDone(report);
      onFinished();
    }
  };
  const found = action.error ? problemFields(action.error, 'parameters.') : { byField: {} as Record<string, string>, general: null };
  const err = (k: string) => found.byField[k];
  return (
    <form class="card action-form" data-form="report" onSubmit={submit} noValidate>
      <h2>Generate a report</h2>
      <Field label="Kind" name="kind" error={err('kind')}>
        <select name="kind" value={kind} onChange={(e) => setKind((e.target as HTMLSelectElement).value as Kind)}>
          {KINDS.map(([k, label]) => (
            <option value={k}>{label}</option>
          ))}
        </select>
      </Field>
      {kind === 'inventory_valuation' ? (
        <Field label="Stock as of (end of day, UTC; empty for now)" name="asOf" error={err('asOf')}>
          <input name="asOf" type="date" />
        </Field>
      ) : (
        <div class="pair">
          <Field label="From" name="from" error={err('from')}>
            <input name="from" type="date" defaultValue={monthAgo()} />
          </Field>
          <Field label="To" name="to" error={err('to')}>
            <input name="to" type="date" defaultValue={today()} />
          </Field>
        </div>
      )}
      <Field label="Title (optional)" name="title" error={err('title')}>
        <input name="title" />
      </Field>
      {found.general ? (
        <p class="error" role="alert">
          {found.general}
        </p>
      ) : null}
      {action.pending ? <Progress label={action.pending.label} value={action.pending.value} /> : null}
      {done ? (
        done.status === 'ready' ? (
          <div class="notice" data-report-done={done.id}>
            {done.title} is ready. <Downloads session={session} report={done} />
          </div>
        ) : (
          <p class="error" role="alert" data-report-failed={done.id}>
            {done.title} failed: {done.failureReason}
          </p>
        )
      ) : null}
      <div class="actions">
        <BusyButton type="submit" busy={action.busy} busyLabel={action.pending?.label ?? 'Generating…'}>
          Generate
        </BusyButton>
      </div>
    </form>
  );
}

/** A row of the list; a report still queued or rendering is followed until it finishes. */
function ReportRow({ session, report: initial }: { session: Session; report: Report }) {
  const [report, setReport] = useState(initial);
  const action = useAction();
  useEffect(() => {
    if (finished(initial)) return;
    void action.run(STEP[initial.status][0], (progress, signal) =>
      follow(
        session,
        initial.id,
        (r) => {
          setReport(r);
          progress(STEP[r.status][0], STEP[r.status][1]);
        },
        signal,
      ),
    );
  }, [initial.id]);
  return (
    <tr data-report={report.id} data-status={report.status}>
      <td>
        {report.title}
        {report.title.startsWith(KIND_NAME.get(report.kind) ?? report.kind) ? null : <div class="muted">{KIND_NAME.get(report.kind) ?? report.kind}</div>}
      </td>
      <td>
        {action.pending ? (
          <Progress label={action.pending.label} value={action.pending.value} inline />
        ) : (
          <Badge tone={report.status === 'ready' ? 'ok' : report.status === 'failed' ? 'bad' : 'warn'}>{report.status}</Badge>
        )}
        {report.status === 'failed' ? <div class="muted">{report.failureReason}</div> : null}
        <ErrorBox error={action.error} />
      </td>
      <td class="hide-narrow">{when(report.createdAt)}</td>
      <td>{report.status === 'ready' ? <Downloads session={session} report={report} /> : '—'}</td>
    </tr>
  );
}

/** A ready report's files: signed links asked for on demand (they expire), then offered as links. */
function Downloads({ session, report }: { session: Session; report: Report }) {
  const [links, setLinks] = useState<OperationOutput<'reporting.getDownloadUrl'> | null>(null);
  const action = useAction();
  if (links) {
    return (
      <span class="downloads">
        <a href={links.pdfUrl} target="_blank" rel="noopener" download>
          PDF
        </a>{' '}
        ·{' '}
        <a href={links.csvUrl} target="_blank" rel="noopener" download>
          CSV
        </a>
      </span>
    );
  }
  return (
    <>
      <BusyButton
        class="secondary small"
        busy={action.busy}
        busyLabel="Signing links…"
        onClick={async () => {
          const answer = await action.run('Signing links…', () => call(session, 'reporting.getDownloadUrl', { id: report.id }));
          if (answer) setLinks(answer);
        }}
      >
        Download
      </BusyButton>
      <ErrorBox error={action.error} />
    </>
  );
}
