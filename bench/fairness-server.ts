// The service under bench/fairness.ts, in a process of its own: nothing else runs on its event loop, so what
// the probe measures is the server. It sets up the fixtures before any measurement, tells the parent (over
// IPC) where it listens and what it made, and answers `rss` with its resident memory.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiKey } from '../src/auth/credentials.js';
import { createOrganization } from '../src/auth/organizations.js';
import { newId } from '../src/lib/ids.js';
import { GENEROUS_WINDOWS } from '../src/testing/harness.js';
import { API_WINDOWS } from '../src/ratelimit/budgets.js';
import { startBenchApp } from './lib.js';

/** What the load processes need: keys and ids, no secrets beyond the bench's own database. */
export interface FairnessFixtures {
  /** The probe's keys, used in turn: the probe reads faster than one credential's budget allows. */
  probe: { keys: string[]; locationId: string };
  heavy: { key: string; lotId: string; customerId: string }[];
  /**
   * One live batch per organization, watched through several keys (within the per-credential and per-organization
   * caps), and the batches its bridge posts to next, each once the one before is full (a session holds 50 of
   * the bench's posts): so posts go on being stored rather than refused.
   */
  streams: { batchId: string; nextBatchIds: string[]; bridgeToken: string; viewerKeys: string[] }[];
}

export type ServerMessage = { type: 'ready'; url: string; kind: string; fixtures: FairnessFixtures } | { type: 'rss'; rss: number };

const HEAVY_KEYS = Number(process.env.FAIRNESS_HEAVY_KEYS ?? 10);
const PROBE_KEYS = 400;
const STREAM_ORGS = Number(process.env.FAIRNESS_STREAM_ORGS ?? 5);
const KEYS_PER_STREAM_ORG = Number(process.env.FAIRNESS_KEYS_PER_STREAM_ORG ?? 5);
// Enough sessions that a bridge posting as fast as its budget allows (30 posts a second at most) never runs out
// in a bench run.
const SESSIONS_PER_BRIDGE = Number(process.env.FAIRNESS_SESSIONS_PER_BRIDGE ?? 16);

// The service's own ingest budget (300 points per 10 s per bridge token, a point per started 8 KiB of post:
// about 3 of the bench's 2,000-sample posts a second), as an attacker's bridges would meet it;
// FAIRNESS_GENEROUS_INGEST=1 lifts it, to see what posting as fast as the server takes costs.
// A scratch data directory: the embedded live sessions' journal of earlier runs (never completed, so never
// discarded) would otherwise be read back into memory at the first stream or post.
// The API budget is the specification's (API_WINDOWS), as an attacker's keys would meet it, except in the
// `unlimited` scenario, which shows what the heavy lane alone holds against load no budget would admit.
const scenario = process.argv[2];
const dataDir = mkdtempSync(join(tmpdir(), 'fc-fairness-'));
const bench = await startBenchApp(
  {
    rateWindows: scenario === 'unlimited' ? GENEROUS_WINDOWS : API_WINDOWS,
    ...(process.env.FAIRNESS_GENEROUS_INGEST ? { ingestRateWindows: GENEROUS_WINDOWS } : {}),
  },
  // Server mode when REDIS_URL is set (live sessions and budgets in Redis, as the issue measured it), except
  // for the flood: its block of the bench's own address would outlive the run in Redis and refuse the next one.
  { dataDir, redisUrl: scenario === 'flood' ? undefined : process.env.REDIS_URL },
);
const owner = bench.app.databases.owner;
const rpc = async (key: string, operation: string, input: unknown) => {
  const response = await fetch(`${bench.url}/rpc/v1/${operation}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify(input),
  });
  if (!response.ok) throw new Error(`${operation}: ${response.status} ${await response.text()}`);
  return (await response.json()) as any;
};

const probeOrg = await createOrganization(owner, 'Probe roastery', 'enterprise');
const location = await rpc(probeOrg.apiKey, 'catalog.location.createLocation', {
  name: 'Probe',
  code: 'PROBE',
  kind: 'warehouse',
});
// Enough keys that the probe, reading back to back (up to ~2,000 reads a second here), stays within each one's budget.
const probeKeys = [probeOrg.apiKey];
for (let k = 1; k < PROBE_KEYS; k++) probeKeys.push((await createApiKey(owner, probeOrg.organizationId, 'viewer')).apiKey);

// Heavy: organizations with 250 locations (200-item pages), a green lot to trace and to order, and a customer.
const heavy: FairnessFixtures['heavy'] = [];
for (let i = 0; i < HEAVY_KEYS; i++) {
  const org = await createOrganization(owner, `Heavy ${i}`, 'enterprise');
  await owner.query(
    `insert into locations (org_id, id, code, name, kind) select $1, 'loc_h' || $2 || '_' || n, 'H' || n, 'Heavy ' || n, 'warehouse' from generate_series(1, 250) n`,
    [org.organizationId, i],
  );
  const lot = await rpc(org.apiKey, 'inventory.green.importGreenLot', {
    name: 'Traced',
    lotCode: `T-${i}`,
    weightKg: '100',
  });
  const customer = await rpc(org.apiKey, 'orders.createCustomer', {
    name: `Café ${i}`,
    code: `C-${i}`,
    currency: 'EUR',
  });
  heavy.push({ key: org.apiKey, lotId: lot.lot.id, customerId: customer.id });
}

// Streams: each organization has one live batch, watched through KEYS_PER_STREAM_ORG viewer keys.
const streams: FairnessFixtures['streams'] = [];
const sessions: [string, string][] = [];
for (let i = 0; i < STREAM_ORGS; i++) {
  const org = await createOrganization(owner, `Stream roastery ${i}`, 'enterprise');
  const machine = await rpc(org.apiKey, 'catalog.machine.registerMachine', {
    name: 'Streamed',
    code: `STREAM-${i}`,
    connectivity: 'bridge',
  });
  const { token } = await rpc(org.apiKey, 'catalog.machine.issueMachineBridgeToken', { machineId: machine.id });
  const batchIds: string[] = [];
  for (let b = 0; b < SESSIONS_PER_BRIDGE; b++) {
    const batchId = newId('rb');
    await bench.app.services.liveSessions.open({
      orgId: org.organizationId,
      batchId,
      machineId: machine.id,
    });
    sessions.push([org.organizationId, batchId]);
    batchIds.push(batchId);
  }
  const viewerKeys: string[] = [];
  for (let k = 0; k < KEYS_PER_STREAM_ORG; k++) viewerKeys.push((await createApiKey(owner, org.organizationId, 'viewer')).apiKey);
  streams.push({ batchId: batchIds[0], nextBatchIds: batchIds.slice(1), bridgeToken: token, viewerKeys });
}

const send = (message: ServerMessage) => process.send!(message);
process.on('message', async (message: { type: string }) => {
  if (message.type === 'rss') send({ type: 'rss', rss: process.memoryUsage().rss });
  if (message.type === 'close') {
    // Never completed, the live sessions would stay (in Redis, across runs) holding every post.
    for (const [orgId, batchId] of sessions) await bench.app.services.liveSessions.discard(orgId, batchId);
    await bench.close();
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  }
});
// The parent gone (killed, crashed): nothing is left listening.
process.on('disconnect', () => process.exit(0));
send({
  type: 'ready',
  url: bench.url,
  kind: bench.kind,
  fixtures: {
    probe: { keys: probeKeys, locationId: location.id },
    heavy,
    streams,
  },
});
