// Fair under load: a probe (one client reading catalog.location.getLocation back to back) measured alone,
// then while another load runs, in the same process and run. Each scenario prints the probe's p50/p99 and
// its p99 against the baseline (goal ≤ 3×):
//  heavy     10 keys of other organizations, 4 connections each, asking for 200-item pages and traces
//            (they run in the heavy lane, so the probe still finds a connection);
//  watchers  480 stream watchers that never read, while a bridge posts 2,000-sample posts: the probe, the
//            posts accepted, and the process's memory growth (goal within 50 MB of before);
//  unauth    a flood of requests with unknown keys from one address (blocked after the failed-auth budget).
// `node --import tsx bench/fairness.ts` with DATABASE_URL (and REDIS_URL) set; FAIRNESS_SECONDS per phase (8).
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { createApiKey } from '../src/auth/credentials.js';
import { createOrganization } from '../src/auth/organizations.js';
import { newId } from '../src/lib/ids.js';
import { GENEROUS_WINDOWS } from '../src/testing/harness.js';
import { printTable, startBenchApp } from './lib.js';

const SECONDS = Number(process.env.FAIRNESS_SECONDS ?? 8);

export async function benchFairness() {
  const bench = await startBenchApp({ ingestRateWindows: GENEROUS_WINDOWS });
  const owner = bench.app.databases.owner;
  const rpc = async (key: string, operation: string, input: unknown) => {
    const response = await fetch(`${bench.url}/rpc/v1/${operation}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(input),
    });
    if (!response.ok) throw new Error(`${operation}: ${response.status} ${await response.text()}`);
    return (await response.json()) as any;
  };

  const probeOrg = await createOrganization(owner, 'Probe roastery', 'enterprise');
  const location = await rpc(probeOrg.apiKey, 'catalog.location.createLocation', { name: 'Probe', code: 'PROBE', kind: 'warehouse' });
  const probePath = `/rpc/v1/catalog.location.getLocation?input=${encodeURIComponent(JSON.stringify({ id: location.id }))}`;

  /** Reads back to back for `seconds`, answering the latencies' p50 and p99 in ms. */
  async function probe(seconds = SECONDS) {
    const latencies: number[] = [];
    const until = performance.now() + seconds * 1000;
    while (performance.now() < until) {
      const t = performance.now();
      const response = await fetch(bench.url + probePath, { headers: { authorization: `Bearer ${probeOrg.apiKey}` } });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`probe: ${response.status}`);
      latencies.push(performance.now() - t);
    }
    latencies.sort((a, b) => a - b);
    return { p50: latencies[Math.floor(latencies.length / 2)], p99: latencies[Math.floor(latencies.length * 0.99)], n: latencies.length };
  }

  const rows: Record<string, string | number>[] = [];
  const baseline = await probe();
  const report = (scenario: string, during: Awaited<ReturnType<typeof probe>>, extra: Record<string, string | number> = {}) =>
    rows.push({
      scenario,
      'probe p50 ms': during.p50.toFixed(1),
      'probe p99 ms': during.p99.toFixed(1),
      'p99 / baseline': `${(during.p99 / baseline.p99).toFixed(2)}x`,
      ...extra,
    });
  report('baseline (probe alone)', baseline);

  // Heavy: 10 keys, each of its own organization with 250 locations and a lot to trace.
  const heavyKeys: { key: string; lotId: string }[] = [];
  for (let i = 0; i < 10; i++) {
    const org = await createOrganization(owner, `Heavy ${i}`, 'enterprise');
    await owner.query(
      `insert into locations (org_id, id, code, name, kind) select $1, 'loc_h' || $2 || '_' || n, 'H' || n, 'Heavy ' || n, 'warehouse' from generate_series(1, 250) n`,
      [org.organizationId, i],
    );
    const lot = await rpc(org.apiKey, 'inventory.green.importGreenLot', { name: 'Traced', lotCode: `T-${i}`, weightKg: '100' });
    heavyKeys.push({ key: org.apiKey, lotId: lot.lot.id });
  }
  const heavy = heavyKeys.flatMap(({ key, lotId }) =>
    [0, 1, 2, 3].map((n) =>
      autocannon({
        url: bench.url,
        connections: 1,
        duration: SECONDS,
        requests: [
          {
            method: 'GET',
            path:
              n % 2
                ? `/rpc/v1/catalog.location.listLocations?input=${encodeURIComponent(JSON.stringify({ page: { limit: 200 } }))}`
                : `/rpc/v1/traceability.traceForward?input=${encodeURIComponent(JSON.stringify({ kind: 'green_lot', id: lotId }))}`,
            headers: { authorization: `Bearer ${key}` },
          },
        ],
      }),
    ),
  );
  const duringHeavy = await probe();
  const heavyResults = await Promise.all(heavy);
  report('heavy: 10 keys × 4 connections of 200-item pages and traces', duringHeavy, {
    'load req/s': Math.round(heavyResults.reduce((sum, r) => sum + r.requests.average, 0)),
  });

  // Stalled watchers: 480 streams (24 organizations' keys, within the caps) that never read, while a
  // bridge posts 2,000-sample posts.
  const streamOrg = await createOrganization(owner, 'Stream roastery', 'enterprise');
  const machine = await rpc(streamOrg.apiKey, 'catalog.machine.registerMachine', { name: 'Streamed', code: 'STREAM', connectivity: 'bridge' });
  const { token } = await rpc(streamOrg.apiKey, 'catalog.machine.issueMachineBridgeToken', { machineId: machine.id });
  const batchId = newId('rb');
  await bench.app.services.liveSessions.open({ orgId: streamOrg.organizationId, batchId, machineId: machine.id });
  const url = new URL(bench.url);
  const keys: string[] = [];
  for (let i = 0; i < 24; i++) keys.push((await createApiKey(owner, streamOrg.organizationId, 'viewer')).apiKey);
  const sockets: Socket[] = [];
  const memoryBefore = process.memoryUsage().rss;
  for (let i = 0; i < 480; i++) {
    const socket = connect(Number(url.port), url.hostname);
    socket.on('error', () => {});
    socket.write(`GET /stream/v1/roast/${batchId} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${keys[i % keys.length]}\r\n\r\n`);
    socket.pause(); // never reads
    sockets.push(socket);
  }
  let seq = 0;
  let accepted = 0;
  let posting = true;
  const post = (seq: number) =>
    JSON.stringify({ seq, samples: Array.from({ length: 2000 }, (_, i) => ({ t: (seq * 2000 + i) * 100, bt: 150 + i / 100, et: 220 })) });
  const poster = (async () => {
    while (posting) {
      const response = await fetch(`${bench.url}/ingest/v1/roast/${batchId}/samples`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: post(seq++),
      });
      await response.arrayBuffer();
      if (response.status === 202) accepted++;
    }
  })();
  await sleep(500);
  const duringWatchers = await probe();
  posting = false;
  await poster;
  const memoryDuring = process.memoryUsage().rss;
  report('watchers: 480 stalled streams, 2,000-sample posts', duringWatchers, {
    'posts accepted': accepted,
    'memory growth MB': ((memoryDuring - memoryBefore) / 1e6).toFixed(0),
  });
  for (const socket of sockets) socket.destroy();

  // Unauthenticated flood, last: it comes from the probe's own address, which the failed-auth budget then
  // blocks as a whole (for a minute), so the probe is not run beside it: the figures are how much of the flood is answered 429
  // (without a credential lookup) rather than 401.
  const flood = autocannon({
    url: bench.url,
    connections: 32,
    duration: SECONDS,
    requests: [{ method: 'GET', path: probePath, headers: { authorization: 'Bearer fck_unknown_key_for_the_flood' } }],
  });
  const floodResult = await flood;
  const statuses = floodResult.statusCodeStats as Record<string, { count: number }>;
  rows.push({
    scenario: 'unauth flood: 32 connections of unknown keys',
    'load req/s': Math.round(floodResult.requests.average),
    '401': statuses['401']?.count ?? 0,
    '429': statuses['429']?.count ?? 0,
  });

  printTable(`Fair under load on ${bench.kind} (probe: getLocation back to back, ${SECONDS} s a phase; goal p99 ≤ 3× baseline)`, rows);
  await bench.close();
}

if (import.meta.url === `file://${process.argv[1]}`) await benchFairness();
