// A load generator for bench/fairness.ts, in a process of its own (neither the server's nor the probe's). It
// still shares the machine's cores with the server, so it does as little as it can per request: bodies are
// built before the load starts (a request only splices a counter into a prebuilt text), connections are kept
// alive, and responses are not parsed. Started with the scenario in argv and the fixtures over IPC; it sends
// back `ready` once set up, starts on `go`, and answers `done` with its figures.
import { request as httpRequest, Agent } from 'node:http';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import type { FairnessFixtures } from './fairness-server.js';

export type LoadMessage = { type: 'ready'; detail: Record<string, number> } | { type: 'done'; result: Record<string, number> };

const [scenario, url, secondsText] = process.argv.slice(2);
const seconds = Number(secondsText);
const fixtures = await new Promise<FairnessFixtures>((resolve) => process.once('message', (m: { fixtures: FairnessFixtures }) => resolve(m.fixtures)));
const send = (message: LoadMessage) => process.send!(message);
const go = () => new Promise<void>((resolve) => process.once('message', () => resolve()));
process.on('disconnect', () => process.exit(0));

/** An Artisan JSON log of `bytes` or a little more: a long 10 Hz roast, charge at 0, drop at the end. */
function artisanLog(bytes: number): string {
  const samples = Math.ceil(bytes / 21);
  const timex = Array.from({ length: samples }, (_, i) => Math.round(i) / 10);
  const log = JSON.stringify({
    mode: 'C',
    roastepoch: Math.floor(Date.now() / 1000),
    timex,
    temp1: timex.map((s) => Math.round((230 + (s % 100) / 10) * 100) / 100),
    temp2: timex.map((s) => Math.round((s < 30 ? 200 - s * 2 : 140 + (s % 300) * 0.2) * 100) / 100),
    timeindex: [0, 0, 0, 0, 0, 0, samples - 1, 0],
  });
  return log;
}

/**
 * A prebuilt body with a unique number spliced in per request (batch and order numbers must be unique):
 * `head + n + tail`, the heavy part built once.
 */
function spliced(head: string, tail: string): () => string {
  let n = 0;
  return () => `${head}${process.pid}-${n++}${tail}`;
}

interface Plan {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: () => string;
}

/**
 * One client sending `plan` back to back on one keep-alive connection for `seconds`, as the specification
 * asks of clients: refused (429), it waits for Retry-After before sending again. Answers its statuses' counts.
 */
async function client(plan: Plan, seconds: number): Promise<{ ok: number; refused: number; other: number }> {
  const target = new URL(url);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const counts = { ok: 0, refused: 0, other: 0 };
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until) {
    const body = plan.body?.();
    const { status, retryAfter } = await new Promise<{ status: number; retryAfter: number }>((resolve) => {
      const req = httpRequest(
        {
          agent,
          host: target.hostname,
          port: target.port,
          method: plan.method,
          path: plan.path,
          headers: body === undefined ? plan.headers : { ...plan.headers, 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode!, retryAfter: Number(res.headers['retry-after'] ?? 1) }));
        },
      );
      req.on('error', () => resolve({ status: 0, retryAfter: 1 }));
      req.end(body);
    });
    if (status >= 200 && status < 300) counts.ok++;
    else if (status === 429) {
      counts.refused++;
      await sleep(Math.min(retryAfter * 1000, until - performance.now()));
    } else counts.other++;
  }
  agent.destroy();
  return counts;
}

async function heavy(): Promise<void> {
  const log = artisanLog(840 * 1024);
  const kinds = (key: string, lotId: string, customerId: string): Record<string, Plan> => {
    const get = (operation: string, input: unknown): Plan => ({
      method: 'GET',
      path: `/rpc/v1/${operation}?input=${encodeURIComponent(JSON.stringify(input))}`,
      headers: { authorization: `Bearer ${key}` },
    });
    const post = (operation: string, head: string, tail: string): Plan => ({
      method: 'POST',
      path: `/rpc/v1/${operation}`,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: spliced(head, tail),
    });
    const lines = JSON.stringify(
      Array.from({ length: 500 }, (_, i) => ({
        greenLotId: lotId,
        quantityKg: `${1 + (i % 9)}.5`,
        unitPrice: '21.40',
      })),
    );
    return {
      import: post('production.roast.importLoggerRoast', `{"batchNumber":"IMP-`, `","content":${JSON.stringify(log)}}`),
      page: get('catalog.location.listLocations', { page: { limit: 200 } }),
      trace: get('traceability.traceForward', { kind: 'green_lot', id: lotId }),
      order: post('orders.createOrder', `{"orderNumber":"SO-`, `","customerId":"${customerId}","lines":${lines}}`),
      report: post('reporting.generateReport', `{"title":"Valuation `, `","kind":"inventory_valuation"}`),
    };
  };
  // FAIRNESS_HEAVY_KINDS (e.g. `import,report`) runs some kinds only, to see what each costs.
  const only = process.env.FAIRNESS_HEAVY_KINDS?.split(',');
  const plans = fixtures.heavy
    .flatMap(({ key, lotId, customerId }) => Object.entries(kinds(key, lotId, customerId)))
    .filter(([kind]) => !only || only.includes(kind));
  send({
    type: 'ready',
    detail: {
      connections: plans.length,
      'import bytes': Buffer.byteLength(log),
    },
  });
  await go();
  const results = await Promise.all(plans.map(async ([kind, plan]) => ({ kind, counts: await client(plan, seconds) })));
  const figures: Record<string, number> = {};
  for (const { kind, counts } of results) {
    for (const [outcome, n] of Object.entries({ '2xx': counts.ok, '429': counts.refused, other: counts.other })) {
      figures[`${kind} ${outcome}`] = (figures[`${kind} ${outcome}`] ?? 0) + n;
    }
  }
  send({ type: 'done', result: figures });
}

async function watchers(): Promise<void> {
  const target = new URL(url);
  // `posts` is the same posting with no watcher: what the posts alone cost, to tell the watchers' share.
  const count = scenario === 'posts' ? 0 : Number(process.env.FAIRNESS_WATCHERS ?? 480);
  // Spread over the organizations' batches and their keys as evenly as the caps allow.
  const sockets: Socket[] = [];
  const statuses = new Map<string, number>();
  const opened: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const stream = fixtures.streams[i % fixtures.streams.length];
    const key = stream.viewerKeys[Math.floor(i / fixtures.streams.length) % stream.viewerKeys.length];
    const socket = connect(Number(target.port), target.hostname);
    socket.on('error', () => {});
    socket.write(`GET /stream/v1/roast/${stream.batchId} HTTP/1.1\r\nHost: ${target.host}\r\nAuthorization: Bearer ${key}\r\n\r\n`);
    // Reads the status line only, then never reads again.
    opened.push(
      new Promise((resolve) =>
        socket.once('data', (chunk) => {
          socket.pause();
          const status = /^HTTP\/1\.1 (\d{3})/.exec(chunk.toString('latin1'))?.[1] ?? 'none';
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          resolve();
        }),
      ),
    );
    sockets.push(socket);
  }
  await Promise.race([Promise.all(opened), sleep(10_000)]);

  // One bridge per batch, posting 2,000-sample posts back to back. The samples' text is built once; a post
  // is `{"seq":n,"samples":…}` (the same times again: the store takes them, and the bench never completes).
  const samples = JSON.stringify(
    Array.from({ length: 2000 }, (_, i) => ({
      t: i * 100,
      bt: Math.round((150 + i / 100) * 100) / 100,
      et: 220,
    })),
  );
  const agent = new Agent({
    keepAlive: true,
    maxSockets: fixtures.streams.length,
  });
  let accepted = 0;
  let refused = 0;
  let posting = true;
  const postOnce = (batchId: string, token: string, seq: number) =>
    new Promise<number>((resolve, reject) => {
      const body = `{"seq":${seq},"samples":${samples}}`;
      const req = httpRequest(
        {
          agent,
          host: target.hostname,
          port: target.port,
          method: 'POST',
          path: `/ingest/v1/roast/${batchId}/samples`,
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode!));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  send({
    type: 'ready',
    detail: Object.fromEntries([...statuses].map(([status, n]) => [`streams ${status}`, n])),
  });
  await go();
  const posters = fixtures.streams.map(async ({ batchId: watched, nextBatchIds, bridgeToken }) => {
    const batchIds = [watched, ...nextBatchIds];
    for (let seq = 1; posting; seq++) {
      const status = await postOnce(batchIds[0], bridgeToken, seq).catch(() => 0);
      if (status === 202) accepted++;
      else if (status === 409 && batchIds.length > 1) {
        // The session is full (live_session_full): on to the next batch, as a roaster starts the next roast.
        batchIds.shift();
      } else {
        refused++;
        // Over the bridge's budget (429): a bridge waits before posting again.
        await sleep(100);
      }
    }
  });
  await sleep(seconds * 1000);
  posting = false;
  await Promise.all(posters);
  send({
    type: 'done',
    result: { 'posts accepted': accepted, 'posts refused': refused },
  });
  for (const socket of sockets) socket.destroy();
}

/** Requests with an unknown key from one address: how much of it is answered 429 (no credential lookup) rather than 401. */
async function flood(): Promise<void> {
  const path = `/rpc/v1/catalog.location.getLocation?input=${encodeURIComponent(JSON.stringify({ id: fixtures.probe.locationId }))}`;
  send({ type: 'ready', detail: {} });
  await go();
  const result = await autocannon({
    url,
    connections: 32,
    duration: seconds,
    requests: [
      {
        method: 'GET',
        path,
        headers: { authorization: 'Bearer fck_unknown_key_for_the_flood' },
      },
    ],
  });
  const statuses = result.statusCodeStats as Record<string, { count: number }>;
  send({
    type: 'done',
    result: {
      'load req/s': Math.round(result.requests.average),
      '401': statuses['401']?.count ?? 0,
      '429': statuses['429']?.count ?? 0,
    },
  });
}

if (scenario === 'heavy' || scenario === 'unlimited') await heavy();
else if (scenario === 'flood') await flood();
else if (scenario === 'watchers' || scenario === 'posts') await watchers();
else throw new Error(`unknown scenario ${scenario}`);
process.disconnect();
