// A closing server lets go of connections that have no request in flight, also those Node still counts as
// receiving after an event stream or a refused stream: the receive bounds here are an hour, longer than the
// test's own timeout, so a close held by such a connection fails the test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newId } from '../src/lib/ids.js';
import { startTestServer } from '../src/testing/harness.js';
import { machineWithToken, watchStream } from '../src/modules/production/roast/telemetry/testing.js';
import { MAX_STREAMS_PER_CREDENTIAL } from '../src/streaming/fan-out.js';
import { hashSecret, revokeCredential } from '../src/auth/credentials.js';

const hour = 3_600_000;
const server = await startTestServer({ receiveTimeouts: { headersMs: hour, requestMs: hour } });

test('close() does not wait for the receive bounds after streams, refused streams and calls', { timeout: 60_000 }, async () => {
  const org = await server.createOrg();
  const { machineId } = await machineWithToken(org, 'CLOSE-1');
  const batchId = newId('rb');
  await server.app.services.liveSessions.open({ orgId: org.id, batchId, machineId });
  const key = await org.createKey('viewer');
  const url = `${server.url}/stream/v1/roast/${batchId}`;
  const open = await watchStream(url, { authorization: `Bearer ${key}` });
  assert.equal(open.status, 200, 'the stream opens');
  const refused = await watchStream(`${server.url}/stream/v1/roast/${newId('rb')}`, { authorization: `Bearer ${key}` });
  assert.notEqual(refused.status, 200, 'a stream of an unknown batch is refused');
  const aborted = await watchStream(url, { authorization: `Bearer ${key}` });
  aborted.close();
  const many = await org.createKey('viewer');
  const full = [];
  for (let i = 0; i <= MAX_STREAMS_PER_CREDENTIAL; i++) full.push(await watchStream(url, { authorization: `Bearer ${many}` }));
  assert.equal(full.at(-1)!.status, 429, 'one stream too many is refused');
  const revoked = await org.createKey('viewer');
  const ending = await watchStream(url, { authorization: `Bearer ${revoked}` });
  const [{ id }] = await server.owner.query<{ id: string }>(`select id from credentials where secret_hash = $1`, [hashSecret(revoked)]);
  await revokeCredential(server.owner, id);
  await ending.until((w) => w.ended, 10_000);
  for (const w of full) w.close();
  await server.app.services.liveSessions.discard(org.id, batchId);
  await server.app.close();
  assert.equal(server.app.server.server.listening, false, 'the server has closed');
  await open.until((w) => w.ended);
  open.close();
});
