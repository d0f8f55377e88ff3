import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { createApiKey } from '../src/auth/credentials.js';
import { createOrganization } from '../src/auth/organizations.js';
import { PostgresDatabase } from '../src/db/client.js';
import { newId } from '../src/lib/ids.js';
import { createOAuthClient, createUser } from '../src/modules/identity/service.js';
import { STREAM_CREDENTIAL_CHECK_MS } from '../src/streaming/fan-out.js';
import { RedisLiveSessionStore } from '../src/streaming/live-redis.js';
import { dataOf, watchStream } from '../src/modules/production/roast/telemetry/testing.js';
import { createTestDatabase } from '../src/testing/harness.js';
import { API_ONLY_READY, exitOf, processEnv, runCommand, startProcess, stopProcess, type StartedProcess } from '../src/testing/processes.js';

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

test('streams of OAuth opaque tokens and user sessions open on one process end within the bound when the client is revoked, the session logged out on another process or its membership removed', async (t) => {
  if (!process.env.DATABASE_URL || !process.env.REDIS_URL) {
    return t.skip('DATABASE_URL and REDIS_URL are not both set: revocation across API processes needs PostgreSQL and Redis (PGlite is one process’s database)');
  }
  const database = await createTestDatabase(process.env.DATABASE_URL);
  const owner = PostgresDatabase.open(database.url, 2);
  const live = new RedisLiveSessionStore(new Redis(process.env.REDIS_URL), { ownsClient: true });
  const processes: StartedProcess[] = [];
  const org = await createOrganization(owner, 'Revocation roastery', 'enterprise');
  const batchId = newId('rb');
  const streams: Awaited<ReturnType<typeof watchStream>>[] = [];
  after(async () => {
    for (const s of streams) s.close();
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
  await live.open({ orgId: org.organizationId, batchId, machineId: newId('mch') });

  // Credentials made and spent on A; their streams open on B.
  const client = await createOAuthClient(owner, org.organizationId, { role: 'viewer' });
  const tokenRes = await fetch(`${apiA.url}/api/auth/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret }).toString(),
  });
  assert.equal(tokenRes.status, 200);
  const opaque = (await tokenRes.json()).access_token as string;
  const sessionOf = async (email: string) => {
    const { userId } = await createUser(owner, { email, orgId: org.organizationId, role: 'viewer', password: 'correct horse battery staple' });
    const res = await fetch(`${apiA.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'correct horse battery staple' }),
    });
    assert.equal(res.status, 200);
    return { userId, headers: { authorization: `Bearer ${(await res.json()).token}`, 'x-service-org': org.organizationId } };
  };
  const loggedOut = await sessionOf(`out.${batchId}@example.com`);
  const removed = await sessionOf(`removed.${batchId}@example.com`);
  const ticketRes = await fetch(`${apiA.url}/stream/v1/roast/${batchId}/tickets`, { method: 'POST', headers: { authorization: `Bearer ${opaque}` } });
  assert.equal(ticketRes.status, 201, 'a ticket asked for on A');

  const streamUrl = `${apiB.url}/stream/v1/roast/${batchId}`;
  const watch = async (url: string, headers: Record<string, string> = {}) => {
    const stream = await watchStream(url, headers);
    streams.push(stream);
    assert.equal(stream.status, 200, JSON.stringify(stream.problem));
    return stream;
  };
  const kept = await watch(streamUrl, { authorization: `Bearer ${org.apiKey}` });
  let revoking: Promise<void> | undefined;
  const revokeClient = () =>
    (revoking ??= runCommand(['oauth-client', 'revoke', '--org', org.organizationId, client.clientId], env).then((r) => assert.equal(r.status, 0, r.stderr)));
  const cases = [
    {
      name: 'the opaque token’s stream, its client revoked with `oauth-client revoke`',
      stream: await watch(streamUrl, { authorization: `Bearer ${opaque}` }),
      end: revokeClient,
    },
    {
      name: 'the stream opened on B with a ticket the opaque token asked for on A, its client revoked',
      stream: await watch(`${streamUrl}?ticket=${(await ticketRes.json()).ticket}`),
      end: revokeClient,
    },
    {
      name: 'the session’s stream, logged out on A',
      stream: await watch(streamUrl, loggedOut.headers),
      end: async () => assert.equal((await fetch(`${apiA.url}/api/auth/logout`, { method: 'POST', headers: loggedOut.headers })).status, 204),
    },
    {
      name: 'the session’s stream, its membership removed with `user remove-membership`',
      stream: await watch(streamUrl, removed.headers),
      end: async () =>
        assert.equal((await runCommand(['user', 'remove-membership', '--user', removed.userId, '--org', org.organizationId], env)).status, 0),
    },
  ];

  // Each ends in its own way at once; every stream is timed from the moment its end committed.
  await Promise.all(
    cases.map(async ({ name, stream, end }) => {
      await end();
      const endedAt = performance.now();
      await stream.until((s) => s.ended, STREAM_CREDENTIAL_CHECK_MS + SLACK_MS + 5000);
      const took = performance.now() - endedAt;
      t.diagnostic(`${name}: ended ${took.toFixed(0)} ms after`);
      assert.deepEqual(dataOf(stream, 'closed').map((d) => d.reason), ['credential_revoked'], name);
      assert.ok(took <= STREAM_CREDENTIAL_CHECK_MS + SLACK_MS, `${name}: ended ${took.toFixed(0)} ms after (bound ${STREAM_CREDENTIAL_CHECK_MS} + ${SLACK_MS} ms)`);
    }),
  );
  assert.equal(kept.ended, false, 'another credential’s stream on B stays open');
  assert.notEqual((await watchStream(streamUrl, { authorization: `Bearer ${opaque}` })).status, 200, 'B refuses the revoked client’s token');
  assert.notEqual((await watchStream(streamUrl, removed.headers)).status, 200, 'B refuses the session where it is no member');
});
