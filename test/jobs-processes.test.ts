import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appRoleUrl } from '../src/config.js';
import { PostgresDatabase } from '../src/db/client.js';
import { createTestDatabase } from '../src/testing/harness.js';
import { createOrganization } from '../src/auth/organizations.js';
import { JobQueue } from '../src/jobs/queue.js';
import { PLATFORM_JOBS } from '../src/jobs/catalog.js';
import { API_ONLY_READY, WORKER_READY, processEnv, startProcess as start, stopProcess as stop, type StartedProcess as Started } from '../src/testing/processes.js';

const N = 40;

/** The job runs a process logged, as pino JSON lines. */
const jobLines = (output: string) =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg: string; jobId?: string; job?: string })
    .filter((line) => line.msg.startsWith('job '));

test('two API-only processes and one worker on one PostgreSQL database: every job sent runs exactly once, in the worker', async (t) => {
  if (!process.env.DATABASE_URL) return t.skip('DATABASE_URL is not set: several processes sharing one queue needs PostgreSQL');
  const database = await createTestDatabase(process.env.DATABASE_URL);
  const owner = PostgresDatabase.open(database.url, 2);
  const service = PostgresDatabase.open(appRoleUrl(database.url), 4);
  const processes: Started[] = [];
  t.after(async () => {
    for (const p of processes) await stop(p);
    await owner.close();
    await service.close();
    await database.drop();
  });

  const org = await createOrganization(owner, 'Queue roastery', 'enterprise');
  const env = processEnv(database.url, { LOG_LEVEL: 'info' });
  const [apiA, apiB, worker] = await Promise.all([
    start(['serve', '--no-workers'], env, API_ONLY_READY),
    start(['serve', '--no-workers'], env, API_ONLY_READY),
    start(['worker'], env, WORKER_READY),
  ]);
  processes.push(apiA, apiB, worker);

  // Both API processes serve requests.
  for (const [i, api] of [apiA, apiB].entries()) {
    const res = await fetch(`${api.url}/rpc/v1/catalog.location.createLocation`, {
      method: 'POST',
      headers: { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `Site ${i}`, code: `S${i}`, kind: 'warehouse' }),
    });
    assert.equal(res.status, 200);
  }

  // N jobs sent the way operations send them: as the service role, each in an organization's transaction,
  // several transactions at once.
  const queue = new JobQueue({ owner, service, close: async () => {} }, PLATFORM_JOBS);
  const sent: string[] = [];
  for (let batch = 0; batch < N; batch += 4) {
    sent.push(
      ...(await Promise.all(
        [0, 1, 2, 3].map(() => service.transaction((tx) => queue.send(tx, 'housekeeping', {}), { orgId: org.organizationId })),
      )),
    );
  }
  assert.equal(new Set(sent).size, N);

  // The service role writes jobs but cannot read or change them.
  await assert.rejects(service.query(`select data from pgboss.job`), /permission denied/);
  await assert.rejects(service.query(`update pgboss.job set state = 'completed'`), /permission denied/);

  const until = Date.now() + 120_000;
  let done: string[] = [];
  while (Date.now() < until) {
    done = jobLines(worker.output())
      .filter((l) => l.msg === 'job done' && l.job === 'housekeeping')
      .map((l) => l.jobId!);
    if (sent.every((id) => done.includes(id))) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const states = await owner.query<{ state: string; count: number }>(
    `select state::text, count(*)::int as count from pgboss.job where id = any($1::uuid[]) group by state`,
    [sent],
  );
  assert.deepEqual(states, [{ state: 'completed', count: N }]);
  for (const id of sent) assert.equal(done.filter((d) => d === id).length, 1, `job ${id} ran ${done.filter((d) => d === id).length} times`);
  assert.deepEqual(jobLines(worker.output()).filter((l) => l.msg !== 'job done'), [], 'no job failed');
  for (const api of [apiA, apiB]) assert.deepEqual(jobLines(api.output()), [], 'an API-only process runs no jobs');

  // SIGTERM: each process stops fetching, finishes, and exits cleanly.
  assert.deepEqual(await Promise.all(processes.splice(0).map(stop)), [0, 0, 0]);
});
