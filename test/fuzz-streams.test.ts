import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { hashSecret, revokeCredential } from '../src/auth/credentials.js';
import { newId } from '../src/lib/ids.js';
import { ACCESS_TOKEN_SECONDS, SESSION_SECONDS } from '../src/modules/identity/authority.js';
import { addMembership, createUser, removeMembership } from '../src/modules/identity/service.js';
import { makeOAuthClient } from '../src/modules/identity/tenancy.cases.js';
import { STREAM_CREDENTIAL_CHECK_MS } from '../src/streaming/fan-out.js';
import { dataOf, machineWithToken, watchStream, type Watch } from '../src/modules/production/roast/telemetry/testing.js';
import { startTestServer } from '../src/testing/harness.js';

/**
 * Streams of every credential kind that can open one, under every way that credential ends: each stream,
 * opened with the credential itself or with a ticket it asked for, ends with `event: closed`
 * (`credential_revoked`) within one credential check (STREAM_CREDENTIAL_CHECK_MS) and its queries, while a
 * stream of another credential stays open. A ticket whose credential ended before it is redeemed opens
 * nothing. Revocation across API processes is test/revocation-processes.test.ts.
 */

/** What a check's queries may take on a loaded machine, beyond the check interval. */
const SLACK_MS = 1000;
/** How long a resolved credential is remembered (the resolvers' cache, src/auth/credentials.ts). */
const CREDENTIAL_CACHE_MS = 2000;

let offsetMs = 0;
const clock = () => new Date(Date.now() + offsetMs);
const streams: Watch[] = [];
const opened: [string, string][] = [];
// Registered before the server starts, so it runs before the server's own teardown closes the session store.
after(async () => {
  for (const s of streams) s.close();
  for (const [orgId, batchId] of opened) await live.discard(orgId, batchId);
});
const server = await startTestServer({ clock });
const live = server.app.services.liveSessions;
const org = await server.createOrg('enterprise', 'Streamed roastery');
const batchId = newId('rb');
const { token: bridgeToken, machineId } = await machineWithToken(org, 'STREAM-1');
await live.open({ orgId: org.id, batchId, machineId });
opened.push([org.id, batchId]);

const streamUrl = `${server.url}/stream/v1/roast/${batchId}`;
const PASSWORD = 'correct horse battery staple';
let users = 0;

/** How a stream is opened: with the credential's headers, or with a ticket the credential asked for. */
type Opening = 'direct' | 'ticket';

interface Credential {
  headers: Record<string, string>;
  /** Ends the credential: revocation, logout, expiry, membership removed or changed. */
  end(): Promise<void>;
  /** Undoes what `end` did to the service clock. */
  restore?(): void;
}

interface Kind {
  name: string;
  openings: Opening[];
  /** Moves the service clock (run alone, after the others). */
  movesClock?: boolean;
  make(): Promise<Credential>;
}

async function token(client: { clientId: string; clientSecret: string }, resource?: string): Promise<string> {
  const res = await server.request('/api/auth/oauth2/token', {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', ...(resource ? { resource } : {}) }).toString(),
  });
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  return body.access_token;
}

async function session(role: 'viewer' | 'roaster' = 'viewer'): Promise<{ userId: string; token: string }> {
  const email = `watcher${++users}.${Date.now()}@example.com`;
  const { userId } = await createUser(server.owner, { email, orgId: org.id, role, password: PASSWORD });
  const res = await server.request('/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) });
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  return { userId, token: body.token };
}

const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
const moveClock = (ms: number) => () => {
  offsetMs -= ms;
};

const KINDS: Kind[] = [
  {
    name: 'an API key, revoked',
    openings: ['direct', 'ticket'],
    async make() {
      const key = await org.createKey('viewer');
      return {
        headers: bearer(key),
        async end() {
          const [{ id }] = await server.owner.query<{ id: string }>(`select id from credentials where secret_hash = $1`, [hashSecret(key)]);
          assert.ok(await revokeCredential(server.owner, id), 'the key was live and is now revoked');
        },
      };
    },
  },
  {
    name: 'an OAuth opaque token, its client revoked',
    openings: ['direct', 'ticket'],
    async make() {
      const client = await makeOAuthClient(org, 'viewer');
      const opaque = await token(client);
      return {
        headers: bearer(opaque),
        async end() {
          assert.equal((await org.call('webhooks.revokeOAuthClient', { id: client.clientId })).status, 200);
        },
      };
    },
  },
  {
    name: 'a user session, logged out',
    openings: ['direct'],
    async make() {
      const { token: t } = await session();
      return {
        headers: { ...bearer(t), 'x-service-org': org.id },
        async end() {
          assert.equal((await server.request('/api/auth/logout', { method: 'POST', headers: bearer(t) })).status, 204);
        },
      };
    },
  },
  {
    name: 'a user session, its membership removed',
    openings: ['direct'],
    async make() {
      const { userId, token: t } = await session();
      return { headers: { ...bearer(t), 'x-service-org': org.id }, end: () => removeMembership(server.owner, { userId, orgId: org.id }) };
    },
  },
  {
    name: 'a user session, its membership changed to a role that may not watch',
    openings: ['direct'],
    async make() {
      const { userId, token: t } = await session('roaster');
      return { headers: { ...bearer(t), 'x-service-org': org.id }, end: () => addMembership(server.owner, { userId, orgId: org.id, role: 'sales' }) };
    },
  },
  {
    name: 'an OAuth opaque token, expired',
    openings: ['direct', 'ticket'],
    movesClock: true,
    async make() {
      const opaque = await token(await makeOAuthClient(org, 'viewer'));
      const ms = ACCESS_TOKEN_SECONDS * 1000 + 1000;
      return { headers: bearer(opaque), end: async () => void (offsetMs += ms), restore: moveClock(ms) };
    },
  },
  {
    name: 'a JWT access token, expired (its client revoked before, which a stateless token outlives)',
    openings: ['direct', 'ticket'],
    movesClock: true,
    async make() {
      const client = await makeOAuthClient(org, 'viewer');
      const jwt = await token(client, server.url);
      const ms = ACCESS_TOKEN_SECONDS * 1000 + 1000;
      return {
        headers: bearer(jwt),
        async end() {
          assert.equal((await org.call('webhooks.revokeOAuthClient', { id: client.clientId })).status, 200);
          offsetMs += ms;
        },
        restore: moveClock(ms),
      };
    },
  },
  {
    name: 'a user session, expired',
    openings: ['direct'],
    movesClock: true,
    async make() {
      const { token: t } = await session();
      const ms = SESSION_SECONDS * 1000 + 1000;
      return { headers: { ...bearer(t), 'x-service-org': org.id }, end: async () => void (offsetMs += ms), restore: moveClock(ms) };
    },
  },
];

async function open(credential: Credential, opening: Opening): Promise<Watch> {
  let stream: Watch;
  if (opening === 'direct') stream = await watchStream(streamUrl, credential.headers);
  else stream = await watchStream(`${streamUrl}?ticket=${await ticket(credential.headers)}`);
  streams.push(stream);
  assert.equal(stream.status, 200, JSON.stringify(stream.problem));
  return stream;
}

async function ticket(headers: Record<string, string>): Promise<string> {
  const res = await server.request(`/stream/v1/roast/${batchId}/tickets`, { method: 'POST', headers });
  const body = await res.json();
  assert.equal(res.status, 201, JSON.stringify(body));
  return body.ticket;
}

/**
 * Opens a stream of the kind each way it can be opened, and a ticket to redeem after the end, ends the
 * credential and checks that every such stream closes within the bound while the owner key's stays open.
 */
async function endsItsStreams(kind: Kind, report: (line: string) => void): Promise<void> {
  const credential = await kind.make();
  const kept = await open({ headers: bearer(org.key), end: async () => {} }, 'direct');
  const watched = await Promise.all(kind.openings.map((opening) => open(credential, opening)));
  const unspent = kind.openings.includes('ticket') ? await ticket(credential.headers) : undefined;
  try {
    await credential.end();
    const endedAt = performance.now();
    await Promise.all(watched.map((s) => s.until((w) => w.ended, STREAM_CREDENTIAL_CHECK_MS + SLACK_MS + 5000)));
    const took = performance.now() - endedAt;
    report(`${kind.name}: ${kind.openings.join(' and ')} streams ended ${took.toFixed(0)} ms after`);
    for (const [i, stream] of watched.entries()) {
      assert.deepEqual(dataOf(stream, 'closed').map((d) => d.reason), ['credential_revoked'], `${kind.name} (${kind.openings[i]}): the last event says why`);
    }
    assert.ok(took <= STREAM_CREDENTIAL_CHECK_MS + SLACK_MS, `${kind.name}: its streams ended ${took.toFixed(0)} ms after (bound ${STREAM_CREDENTIAL_CHECK_MS} + ${SLACK_MS} ms)`);
    assert.equal(kept.ended, false, `${kind.name}: another credential’s stream stays open`);
    // A credential resolved just before it ended may be remembered for up to 2 s (src/auth/credentials.ts):
    // once that has passed, it opens nothing.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, endedAt + CREDENTIAL_CACHE_MS + 100 - performance.now())));
    assert.notEqual((await watchStream(streamUrl, credential.headers)).status, 200, `${kind.name}: opens no stream any more`);
    if (unspent) {
      const late = await watchStream(`${streamUrl}?ticket=${unspent}`);
      assert.equal(late.status, 401, `${kind.name}: a ticket it asked for before is not redeemed`);
    }
  } finally {
    credential.restore?.();
    kept.close();
  }
}

test('streams of every credential kind end when it is revoked, logged out, removed or changed', async (t) => {
  await Promise.all(KINDS.filter((k) => !k.movesClock).map((kind) => endsItsStreams(kind, (line) => t.diagnostic(line))));
});

test('streams of every credential kind end when it expires by the service clock', async (t) => {
  for (const kind of KINDS.filter((k) => k.movesClock)) await endsItsStreams(kind, (line) => t.diagnostic(line));
});

test('a stateless JWT’s stream outlives its client’s revocation until the token expires, as its calls do', async () => {
  const client = await makeOAuthClient(org, 'viewer');
  const jwt = await token(client, server.url);
  const stream = await open({ headers: bearer(jwt), end: async () => {} }, 'direct');
  assert.equal((await org.call('webhooks.revokeOAuthClient', { id: client.clientId })).status, 200);
  await new Promise((resolve) => setTimeout(resolve, STREAM_CREDENTIAL_CHECK_MS + SLACK_MS));
  assert.equal(stream.ended, false, 'a check has run since, and the token is still valid');
  assert.equal((await server.call(jwt, 'catalog.location.listLocations')).status, 200);
  stream.close();
});

test('a user session is refused a stream ticket (403 user_session_not_allowed) and watches with its own session', async () => {
  const { token: t } = await session();
  const headers = { ...bearer(t), 'x-service-org': org.id };
  const res = await server.request(`/stream/v1/roast/${batchId}/tickets`, { method: 'POST', headers });
  assert.equal(res.status, 403);
  const problem = await res.json();
  assert.equal(problem.code, 'user_session_not_allowed');
  assert.match(problem.detail, /Authorization/);
  const doc = await (await server.request('/openapi.json')).json();
  assert.match(doc.paths['/stream/v1/roast/{batchId}/tickets'].post.responses['403'].description, /user_session_not_allowed/, 'the code is declared');
  const count = await server.owner.query<{ n: number }>(`select count(*)::int as n from stream_tickets where credential_id like 'usr_%'`);
  assert.equal(count[0].n, 0, 'no ticket was stored for a user');
  const stream = await open({ headers, end: async () => {} }, 'direct');
  assert.equal(stream.status, 200);
  stream.close();
});

test('a machine bridge token opens no stream and gets no ticket', async () => {
  assert.equal((await watchStream(streamUrl, bearer(bridgeToken))).problem?.code, 'bridge_token_not_allowed');
  const res = await server.request(`/stream/v1/roast/${batchId}/tickets`, { method: 'POST', headers: bearer(bridgeToken) });
  assert.equal((await res.json()).code, 'bridge_token_not_allowed');
});
