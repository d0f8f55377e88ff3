import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../src/testing/harness.js';
import { surfacesOf } from '../src/http/surfaces.js';
import { REGISTRY } from '../src/modules/index.js';
import { PROBLEM_CODES } from '../src/rpc/problem-codes.js';
import { surfaceProblemCodes, type Surface, type SurfaceCredential } from '../src/http/surface.js';
import { machineWithToken } from '../src/modules/production/roast/telemetry/testing.js';
import { createUser } from '../src/modules/identity/service.js';

const SURFACES = surfacesOf(REGISTRY);

// Every declared surface is walked, as test/tenancy.test.ts walks every operation: called with each valid
// credential of a kind it does not list (refused, 401 or 403 — or 400 for a user token without the organization
// it would act in — before any work), and with its documented example
// request under each credential it takes (an answer it declares; the suite's contract check turns an undeclared
// status, an undeclared problem code or an answer off its schema into a 500, which fails here).
const server = await startTestServer();
const org = await server.createOrg('enterprise', 'Blue Hill Roastery');
const { token: bridge } = await machineWithToken(org, `WALK-${Date.now()}`);
const client = (await org.call('webhooks.createOAuthClient', { role: 'owner', label: 'ERP' })).body as { clientId: string; clientSecret: string };
const basic = `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`;
const issued = await server.request('/api/auth/oauth2/token', {
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic },
  body: 'grant_type=client_credentials',
});
const oauthToken = ((await issued.json()) as { access_token: string }).access_token;
const PASSWORD = 'first crack at 9:40 sharp';
const userSession = async () => {
  const email = `walker.${Date.now()}.${Math.random().toString(36).slice(2)}@bluehill.example`;
  await createUser(server.owner, { email, orgId: org.id, role: 'owner', password: PASSWORD });
  const res = await server.request('/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) });
  return ((await res.json()) as { token: string }).token;
};
const session = await userSession();

/** The headers presenting a valid credential of each kind (a stream ticket is one batch's, and only the stream reads it). */
const PRESENTED: Record<Exclude<SurfaceCredential, 'none' | 'stream_ticket'>, () => Promise<Record<string, string>>> = {
  api_key: async () => ({ authorization: `Bearer ${org.key}` }),
  oauth_token: async () => ({ authorization: `Bearer ${oauthToken}` }),
  user_session: async () => ({ authorization: `Bearer ${session}`, 'x-service-org': org.id }),
  machine_bridge: async () => ({ authorization: `Bearer ${bridge}` }),
  oauth_client: async () => ({ authorization: basic }),
  // Ending a session is the surface's work: each call gets a session of its own.
  session_token: async () => ({ authorization: `Bearer ${await userSession()}` }),
};

/** The surface's documented example request, with `headers`. */
function exampleRequest(s: Surface, headers: Record<string, string>): [string, RequestInit] {
  let path = s.path.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => encodeURIComponent(s.examples.params?.[name] ?? name));
  if (path.endsWith('*')) path = path.slice(0, -1) + (s.examples.params?.['*'] ?? '');
  const query = s.examples.query ? `?${new URLSearchParams(s.examples.query)}` : '';
  const init: RequestInit = { method: s.method, headers: { ...headers } };
  if (s.body) {
    (init.headers as Record<string, string>)['content-type'] = s.body.contentType;
    const example = s.examples.request ?? {};
    init.body = s.body.contentType === 'application/json' ? JSON.stringify(example) : new URLSearchParams(example as Record<string, string>).toString();
  }
  return [path + query, init];
}

async function answer(s: Surface, headers: Record<string, string>) {
  const [path, init] = exampleRequest(s, headers);
  const res = await server.request(path, { ...init, redirect: 'manual' });
  const text = await res.text();
  const problem = /problem\+json/.test(res.headers.get('content-type') ?? '') ? (JSON.parse(text) as { code: string }) : undefined;
  return { status: res.status, problem, text };
}

const declaredStatuses = (s: Surface) => new Set([...Object.keys(s.answers).map(Number), ...surfaceProblemCodes(s).map((code) => PROBLEM_CODES[code].status)]);

test('every declared surface refuses the credentials it does not list, and answers its example as declared', async (t) => {
  assert.ok(SURFACES.length >= 21, `${SURFACES.length} surfaces`);
  for (const s of SURFACES) {
    await t.test(`${s.method} ${s.path}`, async () => {
      const accepts = new Set<SurfaceCredential>(s.credentials);
      // A user session token is both credentials: the one without an organization is the logout's.
      if (accepts.has('session_token')) accepts.add('user_session');
      if (!accepts.has('none')) {
        for (const [kind, present] of Object.entries(PRESENTED) as [keyof typeof PRESENTED, () => Promise<Record<string, string>>][]) {
          if (accepts.has(kind)) continue;
          const refused = await answer(s, await present());
          const refusal = refused.status === 401 || refused.status === 403 || (refused.status === 400 && refused.problem?.code === 'organization_required');
          assert.ok(refusal, `${s.name} with ${kind}: answered ${refused.status} ${refused.text.slice(0, 200)}`);
          if (refused.problem) assert.ok(surfaceProblemCodes(s).includes(refused.problem.code as never), `${s.name} with ${kind}: ${refused.problem.code} is declared`);
        }
      }
      const presentations = [...accepts].flatMap((kind) => (kind === 'none' ? [async () => ({})] : kind in PRESENTED ? [PRESENTED[kind as keyof typeof PRESENTED]] : []));
      for (const present of presentations) {
        const got = await answer(s, await present());
        assert.ok(got.status < 500, `${s.name}: answered ${got.status} ${got.text.slice(0, 300)}`);
        assert.ok(declaredStatuses(s).has(got.status), `${s.name}: status ${got.status} is declared`);
        if (got.problem) assert.ok(surfaceProblemCodes(s).includes(got.problem.code as never), `${s.name}: ${got.problem.code} is declared`);
      }
    });
  }
});

test('a surface answering a problem it does not declare is a contract violation while the suite runs', async () => {
  // The stream refuses a malformed Last-Event-ID before its guards (invalid_last_event_id, declared); the same
  // refusal from the ticket endpoint, which does not declare it, would be a 500 naming the surface.
  const { mountSurfaces } = await import('../src/http/surface.js');
  const { ProblemError } = await import('../src/rpc/errors.js');
  const Fastify = (await import('fastify')).default;
  const app = Fastify();
  const surface: Surface = {
    ...SURFACES.find((s) => s.name === 'health.live')!,
    handler: async () => {
      throw new ProblemError(409, 'batch_not_live', 'not declared here');
    },
  };
  await mountSurfaces(app, [surface], { deps: {} as never, resolvers: [], authenticators: {}, limiter: () => assert.fail('not counted') });
  const res = await app.inject('/healthz');
  assert.equal(res.statusCode, 500);
  assert.match(res.json().detail, /health\.live: answered batch_not_live, which it does not declare/);
  await app.close();
});
