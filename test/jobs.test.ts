import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { startTestServer } from '../src/testing/harness.js';
import { StoredCredentialResolver } from '../src/auth/credentials.js';
import { Dispatcher } from '../src/rpc/dispatch.js';
import type { Operation } from '../src/rpc/define.js';
import { toProblem } from '../src/http/problems.js';
import { locationOperations } from '../src/modules/catalog/location/operations.js';
import { PLATFORM_JOBS } from '../src/jobs/catalog.js';
import { defineJob } from '../src/jobs/define.js';
import { InvalidJobPayloadError, JobQueue, UnknownJobError } from '../src/jobs/queue.js';

const server = await startTestServer();
const org = await server.createOrg();
const principal = (await new StoredCredentialResolver(server.app.databases.service).resolve(org.key))!;
const createLocation = locationOperations.find((op) => op.name === 'catalog.location.createLocation') as Operation;

/** Waits for a condition the workers bring about; fails naming it if it never holds. */
async function eventually<T>(what: string, probe: () => Promise<T | undefined>, limitMs = 60_000): Promise<T> {
  const until = Date.now() + limitMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`Never happened: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const jobState = async (id: string) =>
  (await server.owner.query<{ state: string }>(`select state::text from pgboss.job where id = $1 union all select state::text from pgboss.archive where id = $1`, [id]))[0]?.state;

// An operation of this test only: createLocation that first sends a real job from its context. Creating
// a location whose code is taken fails after the job was sent, as any rule checked later would.
const sentJobs: string[] = [];
const enqueueThenCreateLocation: Operation = {
  ...createLocation,
  name: 'test.enqueueThenCreateLocation',
  async handler(ctx, input) {
    sentJobs.push(await ctx.enqueue(PLATFORM_JOBS.housekeeping, {}));
    return createLocation.handler(ctx, input);
  },
};
const dispatcher = new Dispatcher(server.app.databases.service, server.app.services);
const dispatch = (code: string) =>
  dispatcher.dispatch({ principal, operation: enqueueThenCreateLocation, input: { name: `Site ${code}`, code, kind: 'warehouse' }, requestId: `req_${code}` });

test('a job sent by an operation that fails afterwards does not exist; one sent by a committed operation runs in this process', async () => {
  assert.equal((await org.call('catalog.location.createLocation', { name: 'Taken', code: 'TAKEN', kind: 'warehouse' })).status, 200);
  await assert.rejects(dispatch('TAKEN'), (error: unknown) => {
    const problem = toProblem(error);
    return problem.status === 409 && problem.code === 'duplicate';
  });
  const rolledBack = sentJobs.at(-1)!;
  assert.ok(rolledBack, 'the handler sent the job before failing');
  assert.equal(await jobState(rolledBack), undefined, 'the rolled-back job was never stored');

  // An idempotency record past its 24 hours: housekeeping deletes it when it runs.
  await org.call('catalog.location.createLocation', { name: 'Old', code: 'OLDKEY', kind: 'warehouse' }, { idempotencyKey: 'expired-key' });
  await server.owner.query(`update idempotency_records set created_at = now() - interval '25 hours' where org_id = $1 and key = 'expired-key'`, [org.id]);

  const result = await dispatch('JOBOK');
  assert.equal(result.status, 200);
  const committed = sentJobs.at(-1)!;
  assert.notEqual(committed, rolledBack);
  assert.equal(await eventually('the committed job completes', async () => ((await jobState(committed)) === 'completed' ? 'completed' : undefined)), 'completed');
  const left = await server.owner.query(`select 1 from idempotency_records where org_id = $1 and key = 'expired-key'`, [org.id]);
  assert.equal(left.length, 0, 'the housekeeping job ran its tasks');
});

test('housekeeping is scheduled hourly (UTC) as a job of the catalog', async () => {
  const [schedule] = await server.owner.query<{ cron: string; timezone: string }>(`select cron, timezone from pgboss.schedule where name = 'housekeeping'`);
  assert.deepEqual(schedule, { cron: PLATFORM_JOBS.housekeeping.schedule!.cron, timezone: 'UTC' });
  assert.equal(PLATFORM_JOBS.housekeeping.schedule!.cron, '0 * * * *');
  const [queue] = await server.owner.query(`select retry_limit, retry_delay, retry_backoff, expire_seconds from pgboss.queue where name = 'housekeeping'`);
  assert.deepEqual(queue, { retry_limit: 3, retry_delay: 60, retry_backoff: true, expire_seconds: 600 });
});

test('a job outside the catalog, or with a payload its schema refuses, is refused before anything is written', async () => {
  const jobs = server.app.jobs;
  await assert.rejects(
    server.app.databases.service.transaction((tx) => jobs.send(tx, 'sendNewsletter', {}), { orgId: org.id }),
    (error: unknown) => error instanceof UnknownJobError && /sendNewsletter/.test(error.message),
  );
  const unlisted = defineJob({ summary: 'Sends a newsletter', payload: z.object({}).strict(), retry: { limit: 0, delaySeconds: 1, backoff: false }, timeoutSeconds: 1, handler: async () => {} });
  await assert.rejects(
    server.app.databases.service.transaction((tx) => jobs.sendJob(tx, unlisted, {}), { orgId: org.id }),
    (error: unknown) => error instanceof UnknownJobError && /Sends a newsletter/.test(error.message),
    'a definition no manifest lists is not sent',
  );
  await assert.rejects(
    // @ts-expect-error -- housekeeping takes no fields
    server.app.databases.service.transaction((tx) => jobs.sendJob(tx, PLATFORM_JOBS.housekeeping, { everything: true }), { orgId: org.id }),
    (error: unknown) => error instanceof InvalidJobPayloadError && /housekeeping/.test(error.message),
  );
  const before = await server.owner.query(`select 1 from pgboss.job where name = 'housekeeping' and data ? 'everything'`);
  assert.equal(before.length, 0, 'nothing was written');
});

test('a failing job is retried under its retry policy, and fails for good once its retries are used', async () => {
  const attempts: { job: string; retryCount: number }[] = [];
  const catalog = {
    'test-flaky': defineJob({
      summary: 'fails on its first attempt',
      payload: z.object({ label: z.string() }).strict(),
      retry: { limit: 2, delaySeconds: 0, backoff: false },
      timeoutSeconds: 30,
      handler: async (ctx, payload) => {
        attempts.push({ job: payload.label, retryCount: ctx.retryCount });
        if (ctx.retryCount === 0) throw new Error('first attempt fails');
      },
    }),
    'test-doomed': defineJob({
      summary: 'always fails',
      payload: z.object({ label: z.string() }).strict(),
      retry: { limit: 1, delaySeconds: 0, backoff: false },
      timeoutSeconds: 30,
      handler: async (ctx, payload) => {
        attempts.push({ job: payload.label, retryCount: ctx.retryCount });
        throw new Error('always fails');
      },
    }),
  };
  const queue = new JobQueue(server.app.databases, catalog);
  await queue.prepare();
  const quiet = { info() {}, warn() {}, error() {} };
  await queue.startWorkers(quiet, { pollingIntervalSeconds: 0.5 });
  try {
    const [flaky, doomed] = await server.owner.transaction(async (tx) => [
      await queue.send(tx, 'test-flaky', { label: 'flaky' }),
      await queue.send(tx, 'test-doomed', { label: 'doomed' }),
    ]);
    await eventually('the flaky job completes', async () => ((await jobState(flaky)) === 'completed' ? true : undefined));
    await eventually('the doomed job fails for good', async () => ((await jobState(doomed)) === 'failed' ? true : undefined));
    assert.deepEqual(attempts.filter((a) => a.job === 'flaky').map((a) => a.retryCount), [0, 1]);
    assert.deepEqual(attempts.filter((a) => a.job === 'doomed').map((a) => a.retryCount), [0, 1]);
  } finally {
    await queue.stop({ timeoutMs: 5_000 });
  }
});

test('stopping: no new job is fetched, a running one is waited for, one outliving the bound is failed and retried', async () => {
  const events: string[] = [];
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let unstick!: () => void;
  const unstuck = new Promise<void>((resolve) => (unstick = resolve));
  const catalog = {
    'test-slow': defineJob({
      summary: 'runs until the test releases it',
      payload: z.object({ label: z.string() }).strict(),
      retry: { limit: 1, delaySeconds: 0, backoff: false },
      timeoutSeconds: 300,
      handler: async (_ctx, payload) => {
        events.push(`start ${payload.label}`);
        if (payload.label === 'stuck') return unstuck;
        await released;
        events.push(`end ${payload.label}`);
      },
    }),
  };
  const quiet = { info() {}, warn() {}, error() {} };
  const send = (queue: JobQueue<typeof catalog>, label: string) => server.owner.transaction((tx) => queue.send(tx, 'test-slow', { label }));

  const queue = new JobQueue(server.app.databases, catalog);
  await queue.prepare();
  await queue.startWorkers(quiet, { pollingIntervalSeconds: 0.5 });
  const running = await send(queue, 'running');
  await eventually('the job starts', async () => (events.includes('start running') ? true : undefined));
  const stopping = queue.stop({ timeoutMs: 60_000 }).then(() => events.push('stopped'));
  const later = await send(queue, 'later');
  release();
  await stopping;
  assert.deepEqual(events, ['start running', 'end running', 'stopped']);
  await eventually('the running job completes', async () => ((await jobState(running)) === 'completed' ? true : undefined));
  assert.equal(await jobState(later), 'created', 'a job sent while stopping waits for another worker');

  // Past the bound, stop gives up on a job that never ends and fails it: it is retried later.
  const second = new JobQueue(server.app.databases, catalog);
  await second.startWorkers(quiet, { pollingIntervalSeconds: 0.5 });
  const stuck = await send(second, 'stuck');
  await eventually('the stuck job starts', async () => (events.includes('start stuck') ? true : undefined));
  await second.stop({ timeoutMs: 1_000 });
  assert.equal(await jobState(stuck), 'retry');
  unstick(); // lets the abandoned handler end, so the test process can exit
  assert.ok(events.includes('end later'), 'the second worker ran the job left waiting by the first');
});
