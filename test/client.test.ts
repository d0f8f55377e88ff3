import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { FirstcrackClient, FirstcrackError, isFirstcrackError } from '../clients/typescript/src/index.js';
import { GENERATED_PATH, generateClientSource } from '../scripts/generate-client.js';
import { startTestServer } from '../src/testing/harness.js';

test('the checked-in client is generated from the current registry (npm run generate:client)', async () => {
  assert.equal(readFileSync(GENERATED_PATH, 'utf8'), await generateClientSource(), 'clients/typescript/src/operations.ts is stale: run npm run generate:client');
});

test('the typed client calls operations, answers typed results and throws problems as FirstcrackError', async () => {
  const server = await startTestServer();
  const org = await server.createOrg();

  const created = await org.client.call('catalog.location.createLocation', { name: 'Main roastery', code: 'MAIN', kind: 'roastery' });
  assert.match(created.id, /^loc_/, 'an id comes back');
  const read = await org.client.call('catalog.location.getLocation', { id: created.id }, { method: 'GET' });
  assert.equal(read.code, 'MAIN', 'GET answers the same record');
  const page = await org.client.call('catalog.location.listLocations', { filter: { q: 'main' } });
  assert.deepEqual(page.items.map((l) => l.id), [created.id], 'the list holds the location');

  await assert.rejects(
    org.client.call('catalog.location.getLocation', { id: 'loc_0000000000000000000000' }),
    (error: unknown) => {
      assert.ok(isFirstcrackError(error, 'catalog.location.getLocation', 'not_found'), `a typed not_found problem, got ${error}`);
      assert.equal(error.status, 404, 'status');
      assert.deepEqual(error.errors.map((e) => e.path), ['id'], 'the problem names the field');
      return true;
    },
  );
  await assert.rejects(
    org.client.call('catalog.location.createLocation', { name: 'Again', code: 'MAIN', kind: 'lab' }),
    (error: unknown) => error instanceof FirstcrackError && error.code === 'duplicate' && error.status === 409,
    'a duplicate code is a 409 duplicate',
  );
});

test('mutations carry an Idempotency-Key kept across retries; a 429 is retried after Retry-After', async () => {
  // A window long enough that three calls fall in it on a busy machine too.
  const server = await startTestServer({ rateWindows: [{ name: 'burst', points: 2, seconds: 4 }] });
  const org = await server.createOrg();
  const sent: { key: string | null; status: number }[] = [];
  const waits: number[] = [];
  const client = new FirstcrackClient({
    baseUrl: server.url,
    token: org.key,
    fetch: async (url, init) => {
      const response = await fetch(url, init);
      sent.push({ key: new Headers(init?.headers).get('idempotency-key'), status: response.status });
      return response;
    },
    sleep: (ms) => {
      waits.push(ms);
      return new Promise((resolve) => setTimeout(resolve, ms));
    },
  });

  const first = await client.call('catalog.location.createLocation', { name: 'A', code: 'A', kind: 'lab' });
  const second = await client.call('catalog.location.createLocation', { name: 'B', code: 'B', kind: 'lab' });
  // The budget of two is spent: the third call meets a 429, waits for Retry-After and goes through.
  const third = await client.call('catalog.location.createLocation', { name: 'C', code: 'C', kind: 'lab' });
  assert.equal(new Set([first.id, second.id, third.id]).size, 3, 'three locations');
  assert.ok(sent.some((s) => s.status === 429), `a 429 was met: ${JSON.stringify(sent)}`);
  assert.ok(waits.length >= 1 && waits.every((ms) => ms >= 1000), `waited Retry-After seconds: ${waits}`);
  const keys = sent.map((s) => s.key);
  assert.ok(keys.every((k) => k && k.length > 0), 'every mutation sent an Idempotency-Key');
  assert.equal(new Set(keys).size, 3, 'one key per call, the same across a call’s retries');

  // The same key twice is one change: the second answer is the first's replay.
  await new Promise((resolve) => setTimeout(resolve, 4100));
  const once = await client.call('catalog.location.createLocation', { name: 'D', code: 'D', kind: 'lab' }, { idempotencyKey: 'create-d' });
  const again = await client.call('catalog.location.createLocation', { name: 'D', code: 'D', kind: 'lab' }, { idempotencyKey: 'create-d' });
  assert.equal(again.id, once.id, 'a replay answers the first result');

  const limited = new FirstcrackClient({ baseUrl: server.url, token: org.key, maxRetries: 0 });
  const results = await Promise.allSettled([1, 2, 3].map(() => limited.call('catalog.location.listLocations', {})));
  const refused = results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason);
  assert.ok(refused.length >= 1, 'without retries a 429 is thrown');
  assert.ok(refused.every((e) => e instanceof FirstcrackError && e.code === 'rate_limited' && e.status === 429), 'as a rate_limited problem');
});
