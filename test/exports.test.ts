import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { startTestServer, type TestOrg, type TestServer } from '../src/testing/harness.js';
import { PostgresDatabase } from '../src/db/client.js';
import { EXPORT_PAGE_LIMIT } from '../src/http/exports.js';
import { makeGreenLot } from '../src/modules/inventory/green/testing.js';

// List exports (src/http/exports.ts, Dispatcher.exportPages) on a small pool: every export holds a connection
// while it streams, so one that is not released shows here as the next request waiting for the pool.
const server: TestServer = await startTestServer({ config: { databasePoolSize: 2 } });
const org: TestOrg = await server.createOrg('enterprise', 'Export Roasters');
const other: TestOrg = await server.createOrg('enterprise', 'Other Roasters');

/** Ledger rows beyond the lot's receive row: several export pages, and many more JSON pages. */
const LEDGER_ROWS = Math.floor(EXPORT_PAGE_LIMIT * 2.5);
/** A file (~10 MB) longer than the socket buffers hold: a client that reads none of it holds the export up. */
const LONG_LEDGER_ROWS = EXPORT_PAGE_LIMIT * 60;

/** Appends `rows` adjust rows to a lot's ledger directly (test data only: the lot's balance is not kept). */
async function appendLedgerRows(orgId: string, lotId: string, rows: number): Promise<void> {
  await server.owner.query(
    `insert into green_lot_ledger (org_id, id, lot_id, seq, kind, delta_kg, credential_id, comment, created_at)
     select $1, format('glt_x%s%s', substr(md5($2), 1, 8), lpad(s::text, 7, '0')), $2, s + 1, 'adjust',
            case when s % 2 = 0 then -0.001 else 0.001 end, 'cred_test',
            case when s % 3 = 0 then '=SUM(A1), "quoted", line' || chr(10) || 'two' else null end,
            now() - make_interval(secs => $3 - s)
     from generate_series(1, $3::int) s`,
    [orgId, lotId, rows],
  );
}

const get = (key: string, path: string) => server.request(path, { headers: { authorization: `Bearer ${key}` } });
const inputOf = (input: unknown) => encodeURIComponent(JSON.stringify(input));

/** Every page of a list through its JSON call, concatenated. */
async function allPages(caller: TestOrg, operation: string, input: Record<string, unknown>): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | null = null;
  do {
    const page: any = await caller.call(operation, { ...input, page: { limit: 200, ...(cursor ? { cursor } : {}) } });
    assert.equal(page.status, 200, JSON.stringify(page.body));
    items.push(...page.body.items);
    cursor = page.body.nextCursor;
  } while (cursor);
  return items;
}

/** What a JSON item becomes in a CSV cell (src/http/exports.ts csvCell): nulls empty, formula-like text prefixed. */
const asCsvCell = (value: unknown) => {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /^[=+\-@\t\r]/.test(text) && !/^[-+]?\d+(\.\d+)?$/.test(text) ? `'${text}` : text;
};

let lotId: string;
let longLotId: string;
let theirLotId: string;

before(async () => {
  lotId = await makeGreenLot(org);
  await appendLedgerRows(org.id, lotId, LEDGER_ROWS);
  longLotId = await makeGreenLot(org);
  await appendLedgerRows(org.id, longLotId, LONG_LEDGER_ROWS);
  theirLotId = await makeGreenLot(other);
  await appendLedgerRows(other.id, theirLotId, 50);
});

after(async () => {
  // Every export either finished or was stopped, and none is left reading.
  assert.equal(server.app.server.exportCounts().streaming, 0);
});

describe('list exports', () => {
  test('a CSV export across several pages equals the JSON pages concatenated, with the same filter', async () => {
    const items = await allPages(org, 'inventory.green.listGreenLotTransactions', { greenLotId: lotId });
    assert.equal(items.length, LEDGER_ROWS + 1);
    const res = await get(org.key, `/rpc/v1/inventory.green.listGreenLotTransactions.csv?input=${inputOf({ greenLotId: lotId })}`);
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal(res.headers.get('content-type'), 'text/csv; charset=utf-8');
    assert.equal(res.headers.get('content-disposition'), 'attachment; filename="inventory.green.listGreenLotTransactions.csv"');
    const records = parse(await res.text(), { columns: true }) as Record<string, string>[];
    const columns = Object.keys(records[0]);
    assert.deepEqual(columns, ['id', 'greenLotId', 'seq', 'kind', 'locationId', 'deltaKg', 'reservedDeltaKg', 'groupId', 'credentialId', 'comment', 'createdAt']);
    assert.deepEqual(
      records,
      items.map((item) => Object.fromEntries(columns.map((c) => [c, asCsvCell(item[c])]))),
    );
    // Text that a spreadsheet would take for a formula, with quotes and a line break, comes back as written (prefixed).
    assert.equal(records[3].comment, `'=SUM(A1), "quoted", line\ntwo`);

    // A filter of another list: the lots of one state only, the same as its pages.
    const lots = await allPages(org, 'inventory.green.listGreenLots', { filter: { q: 'Lot' } });
    const lotsCsv = parse(await (await get(org.key, `/rpc/v1/inventory.green.listGreenLots.csv?input=${inputOf({ filter: { q: 'Lot' } })}`)).text(), { columns: true }) as Record<string, string>[];
    assert.deepEqual(lotsCsv.map((r) => r.id), lots.map((l) => l.id));
    assert.ok(lotsCsv.length >= 2, 'the filtered export has its header and rows');
  });

  test('the XLSX export opens with exceljs and has the same rows', async () => {
    const items = await allPages(org, 'inventory.green.listGreenLotTransactions', { greenLotId: lotId });
    const res = await server.request('/rpc/v1/inventory.green.listGreenLotTransactions.xlsx', {
      method: 'POST',
      headers: { authorization: `Bearer ${org.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ greenLotId: lotId, page: { limit: 5 } }),
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(await res.arrayBuffer());
    const sheet = workbook.worksheets[0];
    assert.equal(sheet.name, 'listGreenLotTransactions');
    const header = (sheet.getRow(1).values as unknown[]).slice(1) as string[];
    const rows: unknown[][] = [];
    sheet.eachRow((row, n) => void (n > 1 && rows.push(header.map((_, i) => row.getCell(i + 1).value ?? null))));
    // The whole list (the input's page is not taken); numbers stay numbers, text stays text, null stays empty.
    assert.equal(rows.length, items.length);
    assert.deepEqual(
      rows,
      items.map((item) => header.map((c) => item[c] ?? null)),
    );
  });

  test("another organization's rows never appear; its lot is a 404 as in the JSON call", async () => {
    const mine = await (await get(org.key, `/rpc/v1/inventory.green.listGreenLots.csv`)).text();
    const theirs = await (await get(other.key, `/rpc/v1/inventory.green.listGreenLots.csv`)).text();
    const mineIds = (parse(mine, { columns: true }) as Record<string, string>[]).map((r) => r.id);
    const theirIds = (parse(theirs, { columns: true }) as Record<string, string>[]).map((r) => r.id);
    assert.deepEqual(theirIds, [theirLotId]);
    assert.ok(mineIds.includes(lotId) && !mineIds.includes(theirLotId), 'the export holds this organization’s lot and not the other’s');

    const refused = await get(org.key, `/rpc/v1/inventory.green.listGreenLotTransactions.csv?input=${inputOf({ greenLotId: theirLotId })}`);
    assert.equal(refused.status, 404);
    assert.equal(refused.headers.get('content-type'), 'application/problem+json; charset=utf-8');
    const json = await org.call('inventory.green.listGreenLotTransactions', { greenLotId: theirLotId });
    assert.equal(json.status, 404);
    assert.equal((await refused.json()).code, json.body.code);
    const theirLedger = await (await get(other.key, `/rpc/v1/inventory.green.listGreenLotTransactions.csv?input=${inputOf({ greenLotId: theirLotId })}`)).text();
    const ledgerLots = new Set((parse(theirLedger, { columns: true }) as Record<string, string>[]).map((r) => r.greenLotId));
    assert.deepEqual([...ledgerLots], [theirLotId]);
    // The JSON call's other refusals hold too: bad input, no credential, a role without the permission.
    assert.equal((await get(org.key, `/rpc/v1/inventory.green.listGreenLotTransactions.csv?input=${inputOf({ greenLotId: 'nope' })}`)).status, 400);
    assert.equal((await server.request('/rpc/v1/inventory.green.listGreenLots.csv')).status, 401);
    assert.equal((await get(await other.createKey('cafe'), '/rpc/v1/inventory.green.listGreenLots.csv')).status, 403);
  });

  test('a client leaving mid-export stops it and releases its connection: the pool serves every request after', async () => {
    const before = server.app.server.exportCounts();
    // More exports left early than the pool has connections (2): one not released would leave the pool empty.
    const LEAVES = 4;
    const until = async (what: string, done: () => boolean) => {
      while (!done()) {
        assert.equal(server.app.server.exportCounts().completed, before.completed, `an export finished before ${what}: the file fit in the socket's buffers`);
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    for (let i = 0; i < LEAVES; i++) {
      // The client takes the answer's head and reads nothing more, until the server waits for it: the export is
      // under way, its connection held. Then the client leaves.
      const req = httpRequest(new URL(`/rpc/v1/inventory.green.listGreenLotTransactions.csv?input=${inputOf({ greenLotId: longLotId })}`, server.url), {
        headers: { authorization: `Bearer ${org.key}` },
      });
      req.on('error', () => {});
      const res = await new Promise<import('node:http').IncomingMessage>((resolve) => req.once('response', resolve).end());
      assert.equal(res.statusCode, 200);
      await until('the client left', () => server.app.server.exportCounts().waitingForClient === 1);
      req.destroy();
      await until('it was stopped', () => server.app.server.exportCounts().streaming === 0);
    }
    const counts = server.app.server.exportCounts();
    assert.equal(counts.stopped - before.stopped, LEAVES, 'every export left early was stopped, not read to its end');
    assert.equal(counts.completed, before.completed);

    if (server.kind === 'postgres') {
      // Every connection is back in the pool, none left idle in a transaction.
      const pool = (server.app.databases.service as PostgresDatabase).scoped;
      assert.equal(pool.waitingCount, 0);
      assert.equal(pool.idleCount, pool.totalCount);
      const [open] = await server.owner.query<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity where datname = current_database() and state like 'idle in transaction%'`,
      );
      assert.equal(open.n, 0);
    }
    // The next requests are served: a JSON call and a whole export.
    assert.equal((await org.call('inventory.green.getGreenLot', { id: lotId })).status, 200);
    const whole = await get(org.key, `/rpc/v1/inventory.green.listGreenLotTransactions.csv?input=${inputOf({ greenLotId: longLotId })}`);
    assert.equal(whole.status, 200);
    assert.equal(parse(await whole.text(), { columns: true }).length, LONG_LEDGER_ROWS + 1);
    assert.equal(server.app.server.exportCounts().completed, counts.completed + 1);
  });
});
