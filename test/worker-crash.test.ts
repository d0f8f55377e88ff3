import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PostgresDatabase } from '../src/db/client.js';
import { createTestDatabase } from '../src/testing/harness.js';
import { createOrganization } from '../src/auth/organizations.js';
import { API_ONLY_READY, WORKER_READY, killProcess as kill9, processEnv, startProcess as start, stopProcess as stop, type StartedProcess } from '../src/testing/processes.js';

/**
 * A worker process killed -9 while it renders a report (server mode: embedded runs its jobs in the one
 * process that serves, so a kill there takes the whole service down, and the restarted process's sweeper
 * takes the report up the same way; the sweeper's rules themselves are tested on both databases in
 * src/modules/reporting/reporting.test.ts). The report's lease runs out, the sweeper (every minute) queues it
 * again, another worker renders it, and it ends ready exactly once: never left `rendering`.
 *
 * The organization holds LOTS green lots so the render takes long enough to be caught in the act.
 */
const LOTS = 20_000;

test('a worker killed -9 mid-render: the report is taken up again by another worker and ends ready, rendered once to the end', async (t) => {
  if (!process.env.DATABASE_URL) return t.skip('DATABASE_URL is not set: a worker separate from the API needs PostgreSQL (embedded has one process)');
  const database = await createTestDatabase(process.env.DATABASE_URL);
  const owner = PostgresDatabase.open(database.url, 2);
  const processes: StartedProcess[] = [];
  t.after(async () => {
    for (const p of processes) await kill9(p);
    await owner.close();
    await database.drop();
  });
  const org = await createOrganization(owner, 'Crash render roastery', 'enterprise');
  await owner.query(
    `insert into green_lots (org_id, id, lot_code, name, on_hand_kg, reserved_kg, opening_kg, ledger_seq)
     select $1, format('gl_crash%s', lpad(i::text, 9, '0')), format('C-%s', i), format('Crash lot %s', i), 10, 0, 10, 0 from generate_series(1, $2::int) i`,
    [org.organizationId, LOTS],
  );
  const env = processEnv(database.url, { LOG_LEVEL: 'info' });
  const api = await start(['serve', '--no-workers'], env, API_ONLY_READY);
  processes.push(api);
  const call = async (operation: string, input: unknown) => {
    const res = await fetch(`${api.url}/rpc/v1/${operation}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(input),
    });
    const body = await res.json();
    assert.equal(res.status, 200, JSON.stringify(body));
    return body;
  };
  const stateOf = async (id: string) =>
    (await owner.query<{ status: string; attempts: number; pdf_key: string | null; lease_token: string | null }>(`select status, attempts, pdf_key, lease_token from reports where id = $1`, [id]))[0];

  const report = await call('reporting.generateReport', { kind: 'inventory_valuation' });
  const worker = await start(['worker'], env, WORKER_READY);
  processes.push(worker);
  // Caught rendering (its lease taken), then killed at once.
  const deadline = Date.now() + 120_000;
  let seen = await stateOf(report.id);
  while (seen.status === 'queued' && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    seen = await stateOf(report.id);
  }
  await kill9(worker);
  assert.equal(seen.status, 'rendering', `the render was caught in the act (saw ${seen.status}; make the organization larger if it rendered first)`);
  const left = await stateOf(report.id);
  assert.deepEqual([left.status, left.attempts, left.pdf_key], ['rendering', 1, null], 'the killed render left the report rendering, under its lease');

  // Another worker: once the lease runs out (2 minutes) its sweeper queues the report again and renders it.
  const second = await start(['worker'], env, WORKER_READY);
  processes.push(second);
  let now = await stateOf(report.id);
  const until = Date.now() + 300_000;
  while (now.status !== 'ready' && now.status !== 'failed' && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    now = await stateOf(report.id);
  }
  assert.equal(now.status, 'ready', JSON.stringify(now));
  assert.equal(now.attempts, 2, 'rendered by the second attempt, after the killed one');
  assert.equal(now.lease_token, null);
  assert.ok(now.pdf_key, 'its files are stored');
  const got = await call('reporting.getReport', { id: report.id });
  assert.equal(got.status, 'ready');
  // Rendered to the end once: the second worker logged one finished render of it.
  const rendered = second
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg: string; job?: string })
    .filter((line) => line.msg === 'job done' && line.job === 'render-report');
  assert.equal(rendered.length, 1, 'one render job finished');
  await stop(second);
});
