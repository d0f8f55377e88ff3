import { useState } from 'preact/hooks';
import type { OperationOutput } from '../../../clients/typescript/src/index.ts';
import type { Permission } from '../../../src/auth/permissions.ts';
import { call, can, type Session } from '../session.ts';
import { Badge, BusyButton, ErrorBox, poll, Progress, useAction } from '../ui.tsx';

/**
 * Spreadsheet imports: pick what to import and a CSV or XLSX file, see the dry run (the column mapping and every row's verdict),
 * then apply it and follow the job's progress until it is applied or refused. Self-contained: it reads the
 * import operations only.
 */
type Check = OperationOutput<'inventory.green.checkGreenLotImport'>;
type Import = OperationOutput<'inventory.green.getGreenLotImport'>;

/**
 * What can be imported, each with its three operations (dry run, apply, status: all kinds answer alike, so the
 * green-lot types serve every kind) and a template: the columns and an example row a new file can start from.
 */
interface Kind {
  kind: string;
  label: string;
  /** What a created record is called, plural (`Applying creates 2 customers`). */
  records: string;
  check: string;
  apply: string;
  get: string;
  permission: Permission;
  help: string;
  template: string[][];
}

const KINDS: Kind[] = [
  {
    kind: 'green_lots', label: 'Green lots', records: 'green lots', permission: 'inventory.green.write',
    check: 'inventory.green.checkGreenLotImport', apply: 'inventory.green.applyGreenLotImport', get: 'inventory.green.getGreenLotImport',
    help: 'Lot code, name, weight (kg), and optionally state, varieties, harvest year, unit cost, currency, location id and notes.',
    template: [['Lot code', 'Name', 'Weight (kg)', 'State', 'Varieties', 'Harvest year', 'Unit cost', 'Currency', 'Location', 'Notes'], ['ETH-GUJI-24', 'Ethiopia Guji natural', '1200.000', 'green', 'Heirloom', '2024', '7.25', 'EUR', '', '']],
  },
  {
    kind: 'contracts', label: 'Contracts with lines', records: 'contracts', permission: 'sourcing.contract.write',
    check: 'sourcing.contract.checkContractImport', apply: 'sourcing.contract.applyContractImport', get: 'sourcing.contract.getContractImport',
    help: 'One row per contract line: the contract’s columns (contract number, partner id, currency, price type, incoterm, date) repeated on each of its rows or on its first row only, then the line’s (producer id or origin, quality, weight kg, price per kg or differential and market, bags). Rows with the same contract number are one contract.',
    template: [['Contract number', 'Partner', 'Currency', 'Incoterm', 'Origin', 'Quality', 'Weight (kg)', 'Price per kg'], ['GC-2026-014', 'pa_…', 'USD', 'FOB', 'Ethiopia, Guji', 'G1 washed', '600', '5.50'], ['GC-2026-014', 'pa_…', 'USD', 'FOB', 'Colombia, Huila', 'Excelso EP', '400', '6.25']],
  },
  {
    kind: 'customers', label: 'Customers', records: 'customers', permission: 'orders.write',
    check: 'orders.checkCustomerImport', apply: 'orders.applyCustomerImport', get: 'orders.getCustomerImport',
    help: 'Code, name, and optionally customer type, currency, payment terms (days), email and the shipping address (recipient, street, line 2, city, region, postal code, country).',
    template: [['Code', 'Name', 'Customer type', 'Currency', 'Payment terms', 'Email', 'Street', 'City', 'Postal code', 'Country'], ['CUS-HAFEN', 'Café am Hafen', 'cafe', 'EUR', '30', 'orders@hafen.example', 'Hafenstraße 1', 'Hamburg', '20457', 'DE']],
  },
  {
    kind: 'products', label: 'Products', records: 'products', permission: 'catalog.product.write',
    check: 'catalog.product.checkProductImport', apply: 'catalog.product.applyProductImport', get: 'catalog.product.getProductImport',
    help: 'SKU, name, format, and optionally net weight (kg), list price, currency, barcode, and what it is made of: a roast profile id or a blend id, and the roast level.',
    template: [['SKU', 'Name', 'Format', 'Net weight', 'List price', 'Currency', 'Barcode', 'Roast profile', 'Blend', 'Roast level'], ['ESP-1K', 'Espresso 1 kg', 'whole_bean', '1.000', '24.00', 'EUR', '', 'rp_…', '', 'dark']],
  },
  {
    kind: 'materials', label: 'Packaging materials', records: 'materials', permission: 'inventory.material.write',
    check: 'inventory.material.checkMaterialImport', apply: 'inventory.material.applyMaterialImport', get: 'inventory.material.getMaterialImport',
    help: 'SKU, name, kind (bag, label, valve, box, …), and optionally unit cost, currency, reorder point, reorder quantity, lead time (days) and the supplier’s partner id.',
    template: [['SKU', 'Name', 'Kind', 'Unit cost', 'Currency', 'Reorder point', 'Lead time', 'Supplier'], ['BAG-250', 'Valve bag 250 g', 'bag', '0.18', 'EUR', '500', '21', '']],
  },
  {
    kind: 'partners', label: 'Partners', records: 'partners', permission: 'catalog.party.write',
    check: 'catalog.party.checkPartnerImport', apply: 'catalog.party.applyPartnerImport', get: 'catalog.party.getPartnerImport',
    help: 'Code, name, types (supplier, importer, customer, … separated by ;), and optionally country, default currency, payment terms, email, phone, website and notes.',
    template: [['Code', 'Name', 'Types', 'Country', 'Currency', 'Email'], ['IMP-NORD', 'Nordic Green Importers', 'importer', 'DK', 'EUR', 'orders@nordicgreen.example']],
  },
];

const csvCell = (c: string) => (/[",\r\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c);
const templateHref = (k: Kind) => `data:text/csv;charset=utf-8,${encodeURIComponent(k.template.map((r) => r.map(csvCell).join(',')).join('\r\n') + '\r\n')}`;

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
  const kinds = KINDS.filter((k) => can(session, k.permission));
  const [kind, setKind] = useState<Kind>(kinds[0] ?? KINDS[0]);
  const [file, setFile] = useState<{ name: string; format: 'csv' | 'xlsx'; content: string } | null>(null);
  const [check, setCheck] = useState<Check | null>(null);
  const [result, setResult] = useState<Import | null>(null);
  const checking = useAction();
  const applying = useAction();

  const pick = (e: Event) => {
    setKind(KINDS.find((k) => k.kind === (e.target as HTMLSelectElement).value) ?? KINDS[0]);
    setFile(null);
    setCheck(null);
    setResult(null);
  };

  const choose = async (e: Event) => {
    const chosen = (e.target as HTMLInputElement).files?.[0];
    setCheck(null);
    setResult(null);
    if (!chosen) return setFile(null);
    const read = { name: chosen.name, ...(await readFile(chosen)) };
    setFile(read);
    const answer = await checking.run('Checking every row…', () =>
      call(session, kind.check as 'inventory.green.checkGreenLotImport', { format: read.format, content: read.content, fileName: read.name }),
    );
    if (answer) setCheck(answer);
  };

  const apply = async () => {
    if (!file) return;
    const done = await applying.run('Sending the file…', async (progress, signal) => {
      const asked = await call(session, kind.apply as 'inventory.green.applyGreenLotImport', { format: file.format, content: file.content, fileName: file.name });
      return poll(
        () => call(session, kind.get as 'inventory.green.getGreenLotImport', { id: asked.id }),
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
      <h1>Import {kind.label.toLowerCase()}</h1>
      <div class="card action-form" data-form="import">
        <label>
          What to import{' '}
          <select name="kind" value={kind.kind} onChange={pick}>
            {kinds.map((k) => (
              <option key={k.kind} value={k.kind}>
                {k.label}
              </option>
            ))}
          </select>
        </label>
        <p data-import-help={kind.kind}>
          A CSV or XLSX file with a header row. {kind.help} Column names are matched leniently (the mapping is shown). Nothing is
          written until you apply it, and then every row is written or none.{' '}
          <a href={templateHref(kind)} download={`${kind.kind}-template.csv`} data-import-template={kind.kind}>
            Download a template
          </a>
        </p>
        <div class="table-wrap">
          <table class="list" data-list="import-template">
            <thead>
              <tr>
                {kind.template[0].map((c) => (
                  <th key={c}>{c}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {kind.template.slice(1).map((r, i) => (
                <tr key={i}>
                  {r.map((c, j) => (
                    <td key={j}>{c}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <label>
          File <input key={kind.kind} type="file" name="file" accept=".csv,.xlsx,text/csv" onChange={choose} />
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
            {check.rowsInvalid === 0 ? `Applying creates ${check.wouldCreate.toLocaleString('en')} ${kind.records}.` : 'Correct the rows with problems: a file is applied whole or not at all.'}
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
                Applied: {result.created.toLocaleString('en')} {kind.records} created.
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
