import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { createApiKey } from '../src/auth/credentials.js';
import { createOrganization } from '../src/auth/organizations.js';
import { PostgresDatabase } from '../src/db/client.js';
import { newId } from '../src/lib/ids.js';
import { STREAM_CREDENTIAL_CHECK_MS } from '../src/modules/production/roast/telemetry/http.js';
import { RedisLiveSessionStore } from '../src/streaming/live-redis.js';
import { dataOf, watchStream } from '../src/modules/production/roast/telemetry/testing.js';
import { createTestDatabase } from '../src/testing/harness.js';
import { API_ONLY_READY, exitOf, processEnv, startProcess, stopProcess, type StartedProcess } from '../src/testing/processes.js';

/**
 * The documented bound (README, "Streams are bounded"): an API process caches a resolved credential for 2 s
 * (StoredCredentialResolver), and checks its open streams' credentials every STREAM_CREDENTIAL_CHECK_MS. A
 * check is one query, so a stream ends at most one interval plus one query after the revocation; SLACK_MS is
 * that query's allowance on a loaded machine.
 */
const CREDENTIAL_CACHE_MS = 2000;
const SLACK_MS = 1000;

test('a key revoked with `apikey revoke` is refused by every API process, and its stream open on another process ends, within the documented bound', async (t) => {
  if (!process.env.DATABASE_URL || !process.env.REDIS_URL) {
    return t.skip('DATABASE_URL and REDIS_URL are not both set: revocation across API processes needs PostgreSQL and Redis (PGlite is one process’s database)');
  }
  const database = await createTestDatabase(process.env.DATABASE_URL);
  const owner = PostgresDatabase.open(database.url, 2);
  const live = new RedisLiveSessionStore(new Redis(process.env.REDIS_URL), { ownsClient: true });
  const processes: StartedProcess[] = [];
  const org = await createOrganization(owner, 'Revocation roastery', 'enterprise');
  const batchId = newId('rb');
  t.after(async () => {
    for (const p of processes) await stopProcess(p);
    await live.discard(org.organizationId, batchId);
    await live.close();
    await owner.close();
    await database.drop();
  });

  const env = processEnv(database.url, { LOG_LEVEL: 'warn' });
  const [apiA, apiB] = await Promise.all([
    startProcess(['serve', '--no-workers'], env, API_ONLY_READY),
    startProcess(['serve', '--no-workers'], env, API_ONLY_READY),
  ]);
  processes.push(apiA, apiB);
  const call = (api: StartedProcess, key: string) =>
    fetch(`${api.url}/rpc/v1/catalog.location.listLocations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{}',
    });

  // A live batch (its session in Redis, shared by both processes), watched on B with the key and with the owner's.
  await live.open({ orgId: org.organizationId, batchId, machineId: newId('mch') });
  const key = await createApiKey(owner, org.organizationId, 'viewer');
  const streamUrl = `${apiB.url}/stream/v1/roast/${batchId}`;
  const revokedStream = await watchStream(streamUrl, { authorization: `Bearer ${key.apiKey}` });
  const keptStream = await watchStream(streamUrl, { authorization: `Bearer ${org.apiKey}` });
  t.after(() => {
    revokedStream.close();
    keptStream.close();
  });
  assert.equal(revokedStream.status, 200, 'the key opens a stream on B');
  assert.equal(keptStream.status, 200, 'the owner key opens a stream on B');
  // Both processes have just resolved the key, so each holds it in its cache: the bound is what is tested.
  assert.equal((await call(apiA, key.apiKey)).status, 200, 'A takes the key before the revocation');
  assert.equal((await call(apiB, key.apiKey)).status, 200, 'B takes the key before the revocation');

  // Revoked the way an operator does it: the CLI, a process of its own.
  const revoke = await startProcess(['apikey', 'revoke', key.id], env, /Revoked key_/);
  const revokedAt = performance.now();
  assert.equal(await exitOf(revoke), 0, `apikey revoke succeeded:\n${revoke.output()}`);

  // The stream on B ends with a closed event saying why, within one check interval (and its query).
  await revokedStream.until((s) => s.ended, STREAM_CREDENTIAL_CHECK_MS + SLACK_MS + 5000);
  const streamEndedAfter = performance.now() - revokedAt;
  assert.deepEqual(
    dataOf(revokedStream, 'closed').map((d) => d.reason),
    ['credential_revoked'],
    'the last event says why the stream ended',
  );
  assert.ok(
    streamEndedAfter <= STREAM_CREDENTIAL_CHECK_MS + SLACK_MS,
    `the stream on B ended ${streamEndedAfter.toFixed(0)} ms after the revocation (bound ${STREAM_CREDENTIAL_CHECK_MS} ms + ${SLACK_MS} ms for the check's query)`,
  );

  // Requests: each process refuses the key once its cached copy (at most CREDENTIAL_CACHE_MS old) has expired.
  const refusedAfter: Record<string, number> = {};
  for (const [name, api] of [
    ['A', apiA],
    ['B', apiB],
  ] as const) {
    while ((await call(api, key.apiKey)).status === 200 && performance.now() - revokedAt < CREDENTIAL_CACHE_MS + SLACK_MS + 5000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    refusedAfter[name] = performance.now() - revokedAt;
    assert.equal((await call(api, key.apiKey)).status, 401, `${name} refuses the revoked key`);
  }
  for (const [name, after] of Object.entries(refusedAfter)) {
    assert.ok(after <= CREDENTIAL_CACHE_MS + SLACK_MS, `${name} refused the key ${after.toFixed(0)} ms after the revocation (bound ${CREDENTIAL_CACHE_MS} ms)`);
  }
  assert.equal(keptStream.ended, false, 'another credential’s stream on B stays open');
  assert.equal((await call(apiB, org.apiKey)).status, 200, 'another credential is still taken');
});
