import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { PostgresDatabase } from '../../db/client.js';
import { createTestDatabase } from '../../testing/harness.js';
import { createOrganization } from '../../auth/organizations.js';
import { SERVE_READY, WORKER_READY, killProcess as kill9, processEnv, startProcess as start, type StartedProcess } from '../../testing/processes.js';
import { startReceiver } from './testing.js';

/**
 * At-least-once across kill -9: separate processes on one PostgreSQL database (PGlite is one process's
 * database, so the scenario needs server mode). The CLI is started the way an operator starts it.
 */
test('a committed event is delivered after the process is killed -9 between commit and send, and during a send', async (t) => {
  if (!process.env.DATABASE_URL) return t.skip('DATABASE_URL is not set: the crash needs several processes on one database');
  const database = await createTestDatabase(process.env.DATABASE_URL);
  const owner = PostgresDatabase.open(database.url, 2);
  const receiver = await startReceiver();
  const children: StartedProcess[] = [];
  t.after(async () => {
    for (const child of children) await kill9(child);
    await receiver.close();
    await owner.close();
    await database.drop();
  });
  const org = await createOrganization(owner, 'Crash roastery', 'enterprise');
  const env = processEnv(database.url, {
    LOG_LEVEL: 'warn',
    FIRSTCRACK_SECRET_KEY: randomBytes(32).toString('base64'),
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    WEBHOOK_RETRY_SCHEDULE: '0,1,1',
  });
  const call = async (base: string, operation: string, input: unknown) => {
    const res = await fetch(`${base}/rpc/v1/${operation}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(input),
    });
    const body = await res.json();
    assert.equal(res.status, 200, JSON.stringify(body));
    return body;
  };

  // 1. Between commit and send: the API process commits the event (and its delivery row) and dies before any worker ran.
  const api = await start(['serve', '--no-workers'], env, SERVE_READY);
  children.push(api);
  await call(api.url!, 'webhooks.createEndpoint', { url: `${receiver.url}/ok/crash`, eventTypes: ['catalog.location.created'] });
  const location = await call(api.url!, 'catalog.location.createLocation', { name: 'Committed', code: 'C1', kind: 'warehouse' });
  await kill9(api);
  assert.equal(receiver.received.length, 0, 'nothing was sent before the kill');
  const worker = await start(['worker'], env, WORKER_READY);
  children.push(worker);
  await receiver.waitFor(() => receiver.on('/ok/crash').length >= 1, 'the restarted worker to deliver the committed event', 120_000);
  const delivered = JSON.parse(receiver.on('/ok/crash')[0].body);
  assert.equal(delivered.data.location.id, location.id);
  await kill9(worker);

  // 2. During a send: the process running the attempt dies while the receiver holds the request open.
  const full = await start(['serve'], env, SERVE_READY);
  children.push(full);
  await call(full.url!, 'webhooks.createEndpoint', { url: `${receiver.url}/hangonce/crash`, eventTypes: ['catalog.location.updated'] });
  await call(full.url!, 'catalog.location.updateLocation', { id: location.id, name: 'Mid-send' });
  await receiver.waitFor(() => receiver.on('/hangonce/crash').length === 1, 'the attempt to reach the receiver', 120_000);
  await kill9(full);
  const restarted = await start(['worker'], env, WORKER_READY);
  children.push(restarted);
  // The killed attempt's lease expires (30 s) and the new worker claims the delivery again.
  await receiver.waitFor(() => receiver.on('/hangonce/crash').length >= 2, 'the attempt to be made again', 300_000);
  const [first, second] = receiver.on('/hangonce/crash');
  assert.equal(second.headers['service-event-id'], first.headers['service-event-id'], 'the same event id, for the receiver to deduplicate');
  const [row] = await owner.query<{ status: string }>(
    `select status from webhook_deliveries where org_id = $1 and event_id = $2`,
    [org.organizationId, first.headers['service-event-id']],
  );
  assert.ok(row, 'the delivery row exists');
});
