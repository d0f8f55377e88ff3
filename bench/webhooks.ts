// Webhook delivery under load, against a local receiver (node:http on 127.0.0.1):
//  (a) throughput: N events committed (through writeEvent, as operations write them),
//      each queued for one endpoint, delivered by the service's workers (lease the due deliveries with
//      their endpoints and events, sign, SSRF check, POST, record the attempts) — against a bare loop in the same
//      process posting the same signed bodies with the same concurrency and nothing else: as many requests
//      outstanding as the service lets one endpoint have (BUSY_ENDPOINT_SLOTS), over a keep-alive agent with
//      as many connections as the service's; its bodies are built before its clock starts.
//      - drain (the goal's figure, deliveries per second): the events are committed in one transaction and
//        the clock runs from its commit to the last arrival: the delivery system alone.
//      - end to end: committed in transactions of 100 while the workers deliver, from the first commit to
//        the last arrival (writing the events and their outbox included), for comparison.
//      Both run warm: WARMUP_EVENTS are delivered and a bare loop run first, untimed (the JIT, the pools'
//      connections, the prepared statements). ROUNDS rounds of drain, bare loop and end to end, in that
//      order; medians over the rounds (this machine is noisy).
//      Goal: drain ≥ 50 % of bare.
//  (b) latency: events committed at 200 per second (each its own transaction, as an operation commits) for
//      LATENCY_SECONDS; from the commit to the receiver's arrival of its webhook. Goal: p99 < 500 ms.
// `node --import tsx -e "const m = await import('./bench/webhooks.ts'); await m.benchWebhooks();"`; set
// DATABASE_URL for the server-mode numbers (the goals are stated for it).
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { createOrganization } from '../src/auth/organizations.js';
import { loadConfig } from '../src/config.js';
import { writeEvent } from '../src/events/emit.js';
import { BUSY_ENDPOINT_SLOTS, DELIVERY_CONCURRENCY } from '../src/modules/webhooks/delivery.js';
import { signatureHeader } from '../src/modules/webhooks/signing.js';
import { announce, median, printTable, record, spread, startBenchApp } from './lib.js';

const EVENTS = Number(process.env.WEBHOOK_BENCH_EVENTS ?? 10_000);
const ROUNDS = Number(process.env.WEBHOOK_BENCH_ROUNDS ?? 3);
const WARMUP_EVENTS = 1000;
const LATENCY_SECONDS = Number(process.env.LATENCY_SECONDS ?? 10);
const RATE = 200;

const now = () => performance.timeOrigin + performance.now();
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))];

export async function benchWebhooks() {
  announce('webhooks');
  // The receiver: counts arrivals, and notes when each event id of the latency part arrived (only those: a
  // map of every delivery would grow the heap the rounds' garbage collections walk).
  const arrivals = new Map<string, number>();
  let received = 0;
  const waiters: (() => void)[] = [];
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      const id = String(req.headers['service-event-id'] ?? '');
      if (req.url === '/latency' && id && !arrivals.has(id)) arrivals.set(id, now());
      res.writeHead(200).end('ok');
      for (const wake of waiters.splice(0)) wake();
    });
  });
  receiver.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const until = async (predicate: () => boolean) => {
    while (!predicate()) await new Promise<void>((resolve) => (waiters.push(resolve), setTimeout(resolve, 50)));
  };

  const base = loadConfig();
  const bench = await startBenchApp({}, { webhooks: { ...base.webhooks, allowPrivateUrls: true }, secretKey: base.secretKey ?? randomBytes(32).toString('base64') });
  try {
    const { organizationId, apiKey } = await createOrganization(bench.app.databases.owner, 'Bench roastery', 'enterprise');
    const rpc = async (operation: string, input: unknown) => {
      const response = await fetch(`${bench.url}/rpc/v1/${operation}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(input),
      });
      if (!response.ok) throw new Error(`${operation}: ${response.status} ${await response.text()}`);
      return (await response.json()) as any;
    };
    const throughputEndpoint = await rpc('webhooks.createEndpoint', { url: `${receiverUrl}/throughput`, eventTypes: ['catalog.location.archived'] });

    // EVENTS events committed, `perTransaction` to a transaction, waking this process's workers after each commit as the dispatcher does.
    const service = bench.app.databases.service;
    let n = 0;
    const commitEvents = async (perTransaction: number, count = EVENTS) => {
      for (let i = 0; i < count; i += perTransaction) {
        await service.transaction(async (tx) => {
          for (let j = i; j < Math.min(count, i + perTransaction); j++) await writeEvent(tx, organizationId, 'catalog.location.archived', { n: n++ });
        }, { orgId: organizationId });
        bench.app.jobs.wake('webhookDelivery');
      }
    };

    let before = received;
    await commitEvents(100, WARMUP_EVENTS);
    await until(() => received - before >= WARMUP_EVENTS);

    // The bare loop: the same signed bodies, the same concurrency, straight to the receiver.
    const secret = throughputEndpoint.secret as string;
    const agent = new http.Agent({ keepAlive: true, maxSockets: DELIVERY_CONCURRENCY });
    const bodies = Array.from({ length: EVENTS }, (_, n) =>
      JSON.stringify({ id: `evt_bare${n}`, type: 'catalog.location.archived', createdAt: new Date().toISOString(), organizationId, data: { n } }),
    );
    const post = (body: string, n: number) =>
      new Promise<void>((resolve, reject) => {
        const timestamp = Math.floor(Date.now() / 1000);
        const request = http.request(`${receiverUrl}/bare`, {
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            'service-event-id': `evt_bare${n}`,
            'service-timestamp': String(timestamp),
            'service-signature': signatureHeader([secret], timestamp, body),
          },
        });
        request.on('response', (response) => {
          response.resume();
          response.on('end', () => resolve());
        });
        request.on('error', reject);
        request.end(body);
      });
    const bareSeconds = async () => {
      const started = now();
      let next = 0;
      await Promise.all(
        Array.from({ length: BUSY_ENDPOINT_SLOTS }, async () => {
          while (next < EVENTS) {
            const n = next++;
            await post(bodies[n], n);
          }
        }),
      );
      return (now() - started) / 1000;
    };
    await bareSeconds(); // warm

    // ROUNDS rounds, each: a drain, then the bare loop right after it (the machine's state shared); the
    // table gives each figure's median over the rounds, and the median of the rounds' ratios.
    const rounds: { drain: number; bare: number; backlogCommit: number; endToEnd: number; commit: number; arrivedByCommitEnd: number }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // (a) Drain: the whole backlog committed in one transaction; the clock starts once it has committed.
      let started = now();
      before = received;
      await commitEvents(EVENTS);
      const backlogCommit = (now() - started) / 1000;
      started = now();
      await until(() => received - before >= EVENTS);
      const drain = (now() - started) / 1000;
      const bare = await bareSeconds();

      // (a) End to end: committed in transactions of 100 while the workers deliver.
      started = now();
      before = received;
      await commitEvents(100);
      // The commits alone bound the end-to-end rate: how long they took and how many had arrived by then.
      const commit = (now() - started) / 1000;
      const arrivedByCommitEnd = received - before;
      await until(() => received - before >= EVENTS);
      rounds.push({ drain, bare, backlogCommit, endToEnd: (now() - started) / 1000, commit, arrivedByCommitEnd });
    }
    const mid = (pick: (r: (typeof rounds)[number]) => number) => median(rounds.map(pick));

    agent.destroy();

    // (b) Commit-to-receiver latency at RATE events a second, each event committed in its own transaction the
    // way an operation commits it (writeEvent, then waking this process's workers as the dispatcher does).
    await rpc('webhooks.createEndpoint', { url: `${receiverUrl}/latency`, eventTypes: ['catalog.location.created'] });
    const committed = new Map<string, number>();
    const commits: Promise<void>[] = [];
    const latencyStarted = now();
    for (let i = 0; i < RATE * LATENCY_SECONDS; i++) {
      const due = latencyStarted + (i * 1000) / RATE;
      const wait = due - now();
      if (wait > 0) await sleep(wait);
      commits.push(
        service
          .transaction((tx) => writeEvent(tx, organizationId, 'catalog.location.created', { n: i }), { orgId: organizationId })
          .then(({ id }) => {
            committed.set(id, now());
            bench.app.jobs.wake('webhookDelivery');
          }),
      );
    }
    await Promise.all(commits);
    const sent = now() - latencyStarted;
    await until(() => [...committed.keys()].every((id) => arrivals.has(id)));
    const latencies = [...committed].map(([id, at]) => arrivals.get(id)! - at);

    printTable(`Webhooks on ${bench.kind} (${EVENTS} deliveries, median of ${ROUNDS} rounds; latency over ${LATENCY_SECONDS} s at ${RATE}/s, achieved ${((RATE * LATENCY_SECONDS) / (sent / 1000)).toFixed(0)}/s)`, [
      { measure: 'posts/s (bare loop)', value: (EVENTS / mid((r) => r.bare)).toFixed(0) },
      { measure: 'deliveries/s, draining a committed backlog', value: (EVENTS / mid((r) => r.drain)).toFixed(0) },
      { measure: 'drain / bare (goal ≥ 50%)', value: `${(100 * mid((r) => r.bare / r.drain)).toFixed(1)}% (rounds: ${rounds.map((r) => ((100 * r.bare) / r.drain).toFixed(0)).join(', ')})` },
      { measure: 'committing the backlog, s (not in the drain)', value: mid((r) => r.backlogCommit).toFixed(2) },
      { measure: 'deliveries/s, end to end (commits included)', value: (EVENTS / mid((r) => r.endToEnd)).toFixed(0) },
      { measure: 'end to end / bare', value: `${(100 * mid((r) => r.bare / r.endToEnd)).toFixed(1)}%` },
      { measure: 'end to end: committing, s', value: mid((r) => r.commit).toFixed(2) },
      { measure: 'end to end: delivered when the commits ended', value: String(mid((r) => r.arrivedByCommitEnd)) },
      { measure: 'commit→receiver p50 ms', value: median(latencies).toFixed(1) },
      { measure: 'commit→receiver p99 ms (goal < 500)', value: percentile(latencies, 0.99).toFixed(1) },
      { measure: 'commit→receiver max ms', value: Math.max(...latencies).toFixed(1) },
    ]);
    const drainRatio = mid((r) => r.bare / r.drain);
    const drainRatios = rounds.map((r) => r.bare / r.drain);
    record({ measure: 'webhook drain / bare', goal: '≥ 50% every round', figure: drainRatio, unit: 'ratio', pass: drainRatios.every((r) => r >= 0.5), note: `rounds ${drainRatios.map((r) => `${(r * 100).toFixed(0)}%`).join(', ')}, spread ${(spread(drainRatios) * 100).toFixed(0)}%` });
    const p99 = percentile(latencies, 0.99);
    record({ measure: 'webhook commit → receiver p99', goal: '< 500 ms', figure: p99, unit: 'ms', pass: p99 < 500 });
  } finally {
    await bench.close();
    receiver.closeAllConnections();
    receiver.close();
  }
}
