import { useState } from 'preact/hooks';
import type { OperationOutput } from '../../../clients/typescript/src/index.ts';
import { call, type Session } from '../session.ts';
import { Badge, BusyButton, ErrorBox, poll, Progress, useAction } from '../ui.tsx';

/**
 * Spreadsheet imports: pick a CSV or XLSX file, see the dry run (the column mapping and every row's verdict),
 * then apply it and follow the job's progress until it is applied or refused. Self-contained: it reads the
 * import operations only.
 */
type Check = OperationOutput<'inventory.green.checkGreenLotImport'>;
type Import = OperationOutput<'inventory.green.getGreenLotImport'>;

const finished = (i: Import) => i.status === 'applied' || i.status === 'refused' || i.status === 'failed';
/** Rows shown in the verdict table at once (problem rows first): a large file's table stays readable. */
const SHOWN_ROWS = 200;

async function readFile(file: File): Promise<{ format: 'csv' | 'xlsx'; content: string }> {
  if (/\.xlsx$/i.test(file.name)) {
    const bytes = new Uint8Array(await file.arrayBuffer());
    let binary = '';
    for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return { format: 'xlsx', content: btoa(binary) };
  }
  return { format: 'csv', content: await file.text() };
}

function progressOf(i: Import): [string, number] {
  switch (i.status) {
    case 'queued':
      return ['Import queued…', 0.05];
    case 'checking':
      return [`Checking rows: ${i.rowsChecked.toLocaleString('en')} of ${(i.rowsTotal ?? 0).toLocaleString('en')}…`, 0.1 + 0.6 * (i.rowsTotal ? i.rowsChecked / i.rowsTotal : 0)];
    case 'writing':
      return ['Writing every row in one transaction…', 0.8];
    default:
      return ['Done', 1];
  }
}

export function Imports({ session }: { session: Session }) {
  const [file, setFile] = useState<{ name: string; format: 'csv' | 'xlsx'; content: string } | null>(null);
  const [check, setCheck] = useState<Check | null>(null);
  const [result, setResult] = useState<Import | null>(null);
  const checking = useAction();
  const applying = useAction();

  const choose = async (e: Event) => {
    const chosen = (e.target as HTMLInputElement).files?.[0];
    setCheck(null);
    setResult(null);
    if (!chosen) return setFile(null);
    const read = { name: chosen.name, ...(await readFile(chosen)) };
    setFile(read);
    const answer = await checking.run('Checking every row…', () =>
      call(session, 'inventory.green.checkGreenLotImport', { format: read.format, content: read.content, fileName: read.name }),
    );
    if (answer) setCheck(answer);
  };

  const apply = async () => {
    if (!file) return;
    const done = await applying.run('Sending the file…', async (progress, signal) => {
      const asked = await call(session, 'inventory.green.applyGreenLotImport', { format: file.format, content: file.content, fileName: file.name });
      return poll(
        () => call(session, 'inventory.green.getGreenLotImport', { id: asked.id }),
        finished,
        (i) => progress(...progressOf(i)),
        { signal },
      );
    });
    if (done) setResult(done);
  };

  const rows = check ? [...check.rows.filter((r) => !r.valid), ...check.rows.filter((r) => r.valid)].slice(0, SHOWN_ROWS) : [];
  return (
    <>
      <h1>Import green lots</h1>
      <div class="card action-form" data-form="import">
        <p>
          A CSV or XLSX file with a header row: lot code, name, weight (kg), and optionally state, varieties, harvest year, unit cost,
          currency, location id and notes. Nothing is written until you apply it, and then every row is written or none.
        </p>
        <label>
          File <input type="file" name="file" accept=".csv,.xlsx,text/csv" onChange={choose} />
        </label>
        {checking.pending ? <Progress label={checking.pending.label} value={checking.pending.value} /> : null}
        <ErrorBox error={checking.error} />
      </div>
      {check ? (
        <>
          <h2>Columns</h2>
          <div class="table-wrap">
            <table class="list" data-list="import-mapping">
              <thead>
                <tr>
                  <th>Column</th>
                  <th>Field</th>
                </tr>
              </thead>
              <tbody>
                {check.mapping.map((m) => (
                  <tr key={m.letter}>
                    <td>
                      {m.letter} · {m.column}
                    </td>
                    <td>{m.field ?? <Badge tone="warn">not read</Badge>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <h2>Rows</h2>
          <p data-import-summary>
            {check.rowsTotal.toLocaleString('en')} rows: {check.rowsValid.toLocaleString('en')} valid, {check.rowsInvalid.toLocaleString('en')} with problems.{' '}
            {check.rowsInvalid === 0 ? `Applying creates ${check.wouldCreate.toLocaleString('en')} green lots.` : 'Correct the rows with problems: a file is applied whole or not at all.'}
          </p>
          <div class="table-wrap">
            <table class="list" data-list="import-rows">
              <thead>
                <tr>
                  <th>Row</th>
                  <th>Verdict</th>
                  <th>Creates / problems</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((r) => (
                  <tr key={r.row} data-row={r.row}>
                    <td>{r.row}</td>
                    <td>{r.valid ? <Badge tone="ok">ok</Badge> : <Badge tone="bad">problem</Badge>}</td>
                    <td>{r.valid ? r.creates : r.problems.map((p) => `${p.cell ?? p.field}${p.column ? ` (${p.column})` : ''}: ${p.message}`).join('; ')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {check.rows.length > SHOWN_ROWS ? <p>The first {SHOWN_ROWS} rows are shown, rows with problems first.</p> : null}
          {applying.pending ? <Progress label={applying.pending.label} value={applying.pending.value} /> : null}
          <ErrorBox error={applying.error} />
          {result ? (
            result.status === 'applied' ? (
              <div class="notice" data-import-done={result.id}>
                Applied: {result.created.toLocaleString('en')} green lots created.
              </div>
            ) : (
              <p class="error" role="alert" data-import-refused={result.id}>
                Not applied ({result.status}): {result.failureReason ?? result.problems.slice(0, 5).map((p) => `row ${p.row} ${p.column ?? p.field}: ${p.message}`).join('; ')}
              </p>
            )
          ) : null}
          <div class="actions">
            <BusyButton busy={applying.busy} busyLabel={applying.pending?.label ?? 'Applying…'} disabled={check.rowsInvalid > 0 || check.rowsTotal === 0 || result?.status === 'applied'} onClick={apply}>
              Apply {check.rowsTotal.toLocaleString('en')} rows
            </BusyButton>
          </div>
        </>
      ) : null}
    </>
  );
}
