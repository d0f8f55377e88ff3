// Spreadsheets in and out, on PostgreSQL (run: DATABASE_URL=… node --import tsx bench/imports.ts):
//
// (a) Import of 100,000 green-lot rows from CSV through the import job's own code (src/modules/imports/apply.ts:
//     read the file with csv-parse, validate every row with importGreenLot's schema, check it through the green
//     module's service in chunks with progress, write every row through receiveGreenLots in one transaction)
//     against bare `COPY` of the same rows into green_lots and their `receive` rows into green_lot_ledger. The
//     file goes in through the blob store as applyGreenLotImport leaves it (a JSON body holds at most 1 MiB).
//     Prints both times and the ratio. IMPORT_BENCH_ROWS changes the row count.
// (b) CSV export of 1,000,000 ledger rows (one lot's listGreenLotTransactions, bulk-loaded with generate_series)
//     over HTTP at /rpc/v1/inventory.green.listGreenLotTransactions.csv: the process's resident memory is
//     sampled every 50 ms while the file streams; prints the peak RSS above the RSS before, rows and bytes.
//     EXPORT_BENCH_ROWS changes the row count.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBenchApp, printTable } from './lib.js';
import { createOrganization } from '../src/auth/organizations.js';
import { newId } from '../src/lib/ids.js';
import * as imports from '../src/modules/imports/repository.js';
import { applyImport } from '../src/modules/imports/apply.js';
import { GREEN_HEADER, greenRows, toCsv } from '../src/modules/imports/testing.js';

const IMPORT_ROWS = Number(process.env.IMPORT_BENCH_ROWS ?? 100_000);
const EXPORT_ROWS = Number(process.env.EXPORT_BENCH_ROWS ?? 1_000_000);

if (!process.env.DATABASE_URL) {
  console.error('bench/imports.ts measures PostgreSQL: set DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/postgres).');
  process.exit(1);
}

const bench = await startBenchApp();
const { owner, service } = bench.app.databases;
const blobs = bench.app.services.blobs;
const seconds = (ms: number) => (ms / 1000).toFixed(2);

// (a) ------------------------------------------------------------------------------------------------
const importOrg = { id: (await createOrganization(owner, 'Import bench', 'enterprise')).organizationId };
const copyOrg = { id: (await createOrganization(owner, 'COPY bench', 'enterprise')).organizationId };
const rows = greenRows(IMPORT_ROWS, { prefix: 'BN' }).map((r) => r.map((c, i) => (GREEN_HEADER[i] === 'Location' ? '' : c)));
const csv = Buffer.from(toCsv(GREEN_HEADER, rows));

const importId = imports.newImportId();
const fileKey = `imports/${importOrg.id}/${importId}.csv`;
await blobs.put(fileKey, csv, 'text/csv');
await service.transaction(
  (tx) => imports.insertImport(tx, importOrg.id, { id: importId, kind: 'green_lots', format: 'csv', fileName: 'bench.csv', fileKey, fileHash: newId('h'), callerKey: null, credentialId: 'bench' }),
  { orgId: importOrg.id },
);
let started = performance.now();
await applyImport(service, blobs, importOrg.id, importId);
const importMs = performance.now() - started;
const [applied] = await owner.query<{ status: string; created_count: number }>(`select status, created_count from imports where org_id = $1 and id = $2`, [importOrg.id, importId]);
if (applied.status !== 'applied' || applied.created_count !== IMPORT_ROWS) throw new Error(`import ended ${applied.status} with ${applied.created_count} lots`);

// The same rows as the tables hold them, COPY'd from files the server reads.
const dir = mkdtempSync(join(tmpdir(), 'fc-copy-'));
chmodSync(dir, 0o755);
const lotsFile = join(dir, 'lots.csv');
const ledgerFile = join(dir, 'ledger.csv');
const lotIds = rows.map(() => newId('gl'));
const q = (s: string) => (/[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
const pgArray = (list: string) => (list ? `{${list.split(';').map((v) => `"${v}"`).join(',')}}` : '{}');
writeFileSync(
  lotsFile,
  rows.map((r, i) => [copyOrg.id, lotIds[i], r[0], r[1], r[3], q(pgArray(r[4])), r[5], r[6], r[7], q(r[9]), r[2], r[2]].join(',')).join('\n') + '\n',
);
writeFileSync(ledgerFile, rows.map((r, i) => [copyOrg.id, newId('glt'), lotIds[i], 1, 'receive', r[2], 'bench'].join(',')).join('\n') + '\n');
chmodSync(lotsFile, 0o644);
chmodSync(ledgerFile, 0o644);
started = performance.now();
await owner.transaction(async (tx) => {
  await tx.query(
    `copy green_lots (org_id, id, lot_code, name, state, varieties, harvest_year, unit_cost, currency, notes, on_hand_kg, opening_kg) from '${lotsFile}' with (format csv)`,
  );
  await tx.query(`copy green_lot_ledger (org_id, id, lot_id, seq, kind, delta_kg, credential_id) from '${ledgerFile}' with (format csv)`);
});
const copyMs = performance.now() - started;
rmSync(dir, { recursive: true, force: true });

printTable(`Import of ${IMPORT_ROWS.toLocaleString('en')} green-lot rows from CSV (${bench.kind})`, [
  { path: 'import job (parse, validate, check, write in one transaction)', seconds: seconds(importMs), 'rows/s': Math.round(IMPORT_ROWS / (importMs / 1000)) },
  { path: 'bare COPY (lots + receive rows)', seconds: seconds(copyMs), 'rows/s': Math.round(IMPORT_ROWS / (copyMs / 1000)) },
  { path: 'ratio import / COPY', seconds: (importMs / copyMs).toFixed(1), 'rows/s': '' },
]);

// (b) ------------------------------------------------------------------------------------------------
const created = await createOrganization(owner, 'Export bench', 'enterprise');
const exportOrg = { id: created.organizationId };
const token = created.apiKey;
const lotId = newId('gl');
await owner.transaction(async (tx) => {
  await tx.query(
    `insert into green_lots (org_id, id, lot_code, name, state, on_hand_kg, opening_kg, ledger_seq) values ($1, $2, 'LEDGER-1', 'Ledger bench lot', 'green', 1000, 1000, $3)`,
    [exportOrg.id, lotId, EXPORT_ROWS],
  );
  await tx.query(
    `insert into green_lot_ledger (org_id, id, lot_id, seq, kind, delta_kg, credential_id, created_at)
     select $1, format('glt_bench%s', lpad(s::text, 9, '0')), $2, s,
            case when s = 1 then 'receive' else 'adjust' end,
            case when s = 1 then 1000 when s % 2 = 0 then -0.001 else 0.001 end,
            'bench', now() - make_interval(secs => $3 - s)
     from generate_series(1, $3::int) s`,
    [exportOrg.id, lotId, EXPORT_ROWS],
  );
});
await owner.exec(`analyze green_lot_ledger`);

global.gc?.();
const rssBefore = process.memoryUsage().rss;
let peak = rssBefore;
const sampler = setInterval(() => void (peak = Math.max(peak, process.memoryUsage().rss)), 50);
started = performance.now();
const input = encodeURIComponent(JSON.stringify({ greenLotId: lotId }));
const res = await fetch(`${bench.url}/rpc/v1/inventory.green.listGreenLotTransactions.csv?input=${input}`, { headers: { authorization: `Bearer ${token}` } });
if (res.status !== 200) throw new Error(`export: ${res.status} ${await res.text()}`);
let bytes = 0;
let lines = 0;
for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
  bytes += chunk.length;
  for (const b of chunk) if (b === 10) lines++;
}
const exportMs = performance.now() - started;
clearInterval(sampler);
if (lines !== EXPORT_ROWS + 1) throw new Error(`export: ${lines} lines for ${EXPORT_ROWS} rows`);
const mb = (n: number) => (n / 1024 / 1024).toFixed(0);
printTable(`CSV export of ${EXPORT_ROWS.toLocaleString('en')} ledger rows over HTTP (${bench.kind}; server and client in this process)`, [
  { rows: EXPORT_ROWS, 'MB sent': mb(bytes), seconds: seconds(exportMs), 'RSS before MB': mb(rssBefore), 'peak RSS MB': mb(peak), 'growth MB': mb(peak - rssBefore) },
]);

await bench.close();
