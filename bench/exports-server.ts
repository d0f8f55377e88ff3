// The service under bench/exports.ts, in a process of its own, so the resident memory the parent samples
// (/proc/<pid>/status) is the server's alone, not the client's reading the file. It loads one lot's ledger
// per row count asked (`node bench/exports-server.ts 100000 1000000`), tells the parent over IPC where it
// listens and what it made, and answers `gc` (collect, then report its RSS) and `copy` (PGlite only: the bare
// COPY baseline run inside the process that holds the database).
import { createOrganization } from '../src/auth/organizations.js';
import { newId } from '../src/lib/ids.js';
import type { PgliteDatabase } from '../src/db/client.js';
import { startBenchApp } from './lib.js';

export type ExportServerMessage =
  | { type: 'ready'; url: string; kind: string; databaseUrl?: string; token: string; orgId: string; lots: Record<number, string> }
  | { type: 'rss'; rss: number }
  | { type: 'copied'; ms: number; bytes: number };
export type ExportServerRequest = { type: 'gc' } | { type: 'copy'; sql: string };

const counts = process.argv.slice(2).map(Number);
const bench = await startBenchApp();
const { owner } = bench.app.databases;
const created = await createOrganization(owner, 'Export bench', 'enterprise');
const orgId = created.organizationId;
const lots: Record<number, string> = {};
for (const rows of counts) {
  const lotId = newId('gl');
  lots[rows] = lotId;
  await owner.transaction(async (tx) => {
    await tx.query(
      `insert into green_lots (org_id, id, lot_code, name, state, on_hand_kg, opening_kg, ledger_seq) values ($1, $2, $3, 'Ledger bench lot', 'green', 1000, 1000, $4)`,
      [orgId, lotId, `LEDGER-${rows}`, rows],
    );
    // The ledger rows as the service writes them: a receive, then adjusts of a gram either way, a comment on some.
    await tx.query(
      `insert into green_lot_ledger (org_id, id, lot_id, seq, kind, delta_kg, credential_id, comment, created_at)
       select $1, format('glt_b%s%s', $4::text, lpad(s::text, 9, '0')), $2, s,
              case when s = 1 then 'receive' else 'adjust' end,
              case when s = 1 then 1000 when s % 2 = 0 then -0.001 else 0.001 end,
              'cred_bench', case when s % 10 = 0 then 'recount, shelf ' || (s % 97)::text end,
              now() - make_interval(secs => $3 - s)
       from generate_series(1, $3::int) s`,
      [orgId, lotId, rows, counts.indexOf(rows)],
    );
  });
}
await owner.exec(`analyze green_lot_ledger`);

const send = (message: ExportServerMessage) => process.send!(message);
process.on('message', async (message: ExportServerRequest) => {
  if (message.type === 'gc') {
    global.gc?.();
    send({ type: 'rss', rss: process.memoryUsage().rss });
  } else if (message.type === 'copy') {
    const pglite = (owner as PgliteDatabase).pglite;
    const started = performance.now();
    const result = await pglite.query(message.sql.replace('to stdout', `to '/dev/blob'`));
    send({ type: 'copied', ms: performance.now() - started, bytes: result.blob?.size ?? 0 });
  }
});
process.on('disconnect', async () => {
  await bench.close();
  process.exit(0);
});
send({ type: 'ready', url: bench.url, kind: bench.kind, databaseUrl: bench.databaseUrl, token: created.apiKey, orgId, lots });
