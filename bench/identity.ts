// Authentication cost: the same authenticated read (catalog.location.getLocation, GET) with an API key, a
// JWT access token and an opaque access token, in alternating rounds in one process and run; and token
// issuance per second at the token endpoint (opaque and JWT). Goal: each token kind ≥ 90% of the API key's
// throughput. An API key is resolved from a 2-second in-process cache; a JWT is verified once and then
// remembered until it expires; an opaque token is looked up on every request (so revocation is immediate).
import { randomBytes } from 'node:crypto';
import { startBenchApp, load, median, printTable, record } from './lib.js';
import { createOrganization } from '../src/auth/organizations.js';
import { createOAuthClient } from '../src/modules/identity/service.js';

export async function benchIdentity(rounds = Number(process.env.BENCH_ROUNDS ?? 5)) {
  // Signing keys are stored encrypted; a bench run brings its own key (nothing is written to the data directory).
  process.env.FIRSTCRACK_SECRET_KEY ??= randomBytes(32).toString('base64');
  const bench = await startBenchApp();
  const owner = bench.app.databases.owner;
  const { organizationId, apiKey } = await createOrganization(owner, 'Bench roastery', 'enterprise');
  const created = await fetch(`${bench.url}/rpc/v1/catalog.location.createLocation`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Bench warehouse', code: 'BENCH', kind: 'warehouse' }),
  });
  const location = (await created.json()) as { id: string };
  const client = await createOAuthClient(owner, organizationId, { role: 'viewer' });
  const basic = `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`;
  const tokenHeaders = { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' };
  const opaqueBody = 'grant_type=client_credentials';
  const jwtBody = `grant_type=client_credentials&resource=${encodeURIComponent(bench.url)}`;
  const issue = async (body: string) =>
    ((await (await fetch(`${bench.url}/api/auth/oauth2/token`, { method: 'POST', headers: tokenHeaders, body })).json()) as { access_token: string }).access_token;
  const jwt = await issue(jwtBody);
  const opaque = await issue(opaqueBody);

  const readUrl = `${bench.url}/rpc/v1/catalog.location.getLocation?input=${encodeURIComponent(JSON.stringify({ id: location.id }))}`;
  const read = (token: string, duration?: number) => load({ url: readUrl, headers: { authorization: `Bearer ${token}` }, ...(duration ? { duration } : {}) });
  for (const token of [apiKey, jwt, opaque]) await read(token, 2); // warm JIT, pools, caches

  const jwtRatios: number[] = [];
  const opaqueRatios: number[] = [];
  const details: Record<string, string | number>[] = [];
  for (let round = 1; round <= rounds; round++) {
    const k = await read(apiKey);
    const j = await read(jwt);
    const o = await read(opaque);
    jwtRatios.push(j.requestsPerSecond / k.requestsPerSecond);
    opaqueRatios.push(o.requestsPerSecond / k.requestsPerSecond);
    details.push({
      round,
      'api key req/s': k.requestsPerSecond,
      'jwt req/s': j.requestsPerSecond,
      'opaque req/s': o.requestsPerSecond,
      'jwt/key': `${((j.requestsPerSecond / k.requestsPerSecond) * 100).toFixed(1)}%`,
      'opaque/key': `${((o.requestsPerSecond / k.requestsPerSecond) * 100).toFixed(1)}%`,
      'non-2xx': k.non2xx + j.non2xx + o.non2xx,
    });
  }
  printTable(`catalog.location.getLocation on ${bench.kind}: API key vs JWT vs opaque token (32 connections, 5 s rounds)`, details);
  const jwtRatio = median(jwtRatios);
  const opaqueRatio = median(opaqueRatios);
  record({ measure: 'getLocation with a JWT / API key', goal: '≥ 90%', figure: jwtRatio, unit: 'ratio', pass: jwtRatio >= 0.9 });
  record({ measure: 'getLocation with an opaque token / API key', goal: '≥ 90%', figure: opaqueRatio, unit: 'ratio', pass: opaqueRatio >= 0.9 });

  const issuance: Record<string, string | number>[] = [];
  for (const [kind, body] of [['opaque', opaqueBody], ['jwt', jwtBody]] as const) {
    const r = await load({ url: `${bench.url}/api/auth/oauth2/token`, method: 'POST', headers: tokenHeaders, body });
    issuance.push({ kind, 'tokens/s': r.requestsPerSecond, 'p99 ms': r.p99Ms, 'non-2xx': r.non2xx });
  }
  printTable(`token issuance on ${bench.kind} (client_credentials, HTTP Basic; 32 connections, 5 s)`, issuance);
  await bench.close();
  return { jwtRatio, opaqueRatio };
}

if (import.meta.url === `file://${process.argv[1]}`) await benchIdentity();
