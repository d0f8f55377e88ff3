// Fair under load (each scenario on a fresh server process, with its own baseline): a probe (one client reading catalog.location.getLocation back to back, one keep-alive
// connection) measured alone, then while a load runs, in the same run. Three processes: the server
// (bench/fairness-server.ts, which also answers its RSS), the load (bench/fairness-load.ts) and this one, the
// probe, so neither the load's work nor the probe's shares the server's event loop. They do share the
// machine's cores: the load is made cheap (prebuilt bodies, keep-alive, responses not parsed), and the
// figures are what one machine shows, load generator included.
//  heavy     10 keys of other organizations, one connection per heavy kind each: 840 kB logger imports,
//            200-item pages, traces, 500-line orders, report requests, each key spending all of the
//            specification's budget (60 points in 10 s, 300 a minute; heavy calls cost more) and waiting for
//            Retry-After when refused, as the specification asks of clients; goal p99 ≤ 3× baseline;
//  unlimited the same load with no budget at all: what the heavy lane alone holds (no goal; the budget is
//            what keeps a tenant's load within what the service can serve);
//  watchers  480 stream watchers that never read (5 organizations × 5 keys, within the caps), while each
//            organization's bridge posts 2,000-sample posts back to back within its ingest budget (moving to
//            its next live batch when a session is full, so posts go on being stored): the probe, the posts
//            accepted, and the server's RSS growth over its RSS just before (goal p99 ≤ 3× baseline, within 50 MB);
//  posts     the same posts with no watcher, so the watchers' share of the above can be told from the posts';
//  unauth    a flood of requests with unknown keys from one address (blocked after the failed-auth budget),
//            last: it blocks the bench's address for a minute, so the probe does not run beside it.
// `node --import tsx bench/fairness.ts`, with DATABASE_URL (and REDIS_URL) for server mode; FAIRNESS_SECONDS
// per phase (8).
import { fork, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LoadMessage } from './fairness-load.js';
import type { FairnessFixtures, ServerMessage } from './fairness-server.js';
import { printTable } from './lib.js';

const SECONDS = Number(process.env.FAIRNESS_SECONDS ?? 8);
/** The load runs this long before the probe starts, and as long after it ends. */
const WARMUP_SECONDS = 1;

function start(file: string, args: string[] = []): ChildProcess {
  return fork(new URL(file, import.meta.url).pathname, args, {
    execArgv: ['--import', 'tsx'],
    env: process.env,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

/** The child's next message of `type`; rejects if it exits first. */
function next<M extends { type: string }>(child: ChildProcess, type: M['type']): Promise<M> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: M) => {
      if (message.type !== type) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(message);
    };
    const onExit = (code: number | null) => reject(new Error(`${child.spawnargs.join(' ')} exited ${code} before sending ${type}`));
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

interface ProbeResult {
  p50: number;
  p99: number;
  n: number;
}

/**
 * One scenario against a server of its own, started for it: what one scenario leaves behind (queued report
 * renders, a grown heap, sessions' buffers) does not weigh on the next. Its baseline is that server's, measured
 * just before the load, in the same run.
 */
async function runScenario(scenario: string, rows: Record<string, string | number>[]): Promise<string> {
  const server = start('./fairness-server.ts', [scenario]);
  const { url, kind, fixtures } = await next<Extract<ServerMessage, { type: 'ready' }>>(server, 'ready');
  const rss = async () => {
    const answer = next<Extract<ServerMessage, { type: 'rss' }>>(server, 'rss');
    server.send({ type: 'rss' });
    return (await answer).rss;
  };

  const target = new URL(url);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const probePath = `/rpc/v1/catalog.location.getLocation?input=${encodeURIComponent(JSON.stringify({ id: fixtures.probe.locationId }))}`;
  let probes = 0;
  const probeOnce = () =>
    new Promise<number>((resolve, reject) => {
      const req = request(
        {
          agent,
          host: target.hostname,
          port: target.port,
          path: probePath,
          headers: { authorization: `Bearer ${fixtures.probe.keys[probes++ % fixtures.probe.keys.length]}` },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode!));
        },
      );
      req.on('error', reject);
      req.end();
    });
  /** Reads back to back for `seconds`, answering the latencies' p50 and p99 in ms. */
  async function probe(seconds = SECONDS): Promise<ProbeResult> {
    const latencies: number[] = [];
    const until = performance.now() + seconds * 1000;
    while (performance.now() < until) {
      const t = performance.now();
      const status = await probeOnce();
      if (status !== 200) throw new Error(`probe: ${status}`);
      latencies.push(performance.now() - t);
    }
    latencies.sort((a, b) => a - b);
    return {
      p50: latencies[Math.floor(latencies.length / 2)],
      p99: latencies[Math.floor(latencies.length * 0.99)],
      n: latencies.length,
    };
  }

  /** Runs a scenario's load process: set up, then go; the probe runs meanwhile, and the server's RSS is sampled. */
  async function underLoad(scenario: string, withProbe = true) {
    const load = start('./fairness-load.ts', [scenario, url, String(SECONDS + 2 * WARMUP_SECONDS)]);
    load.send({ fixtures });
    const { detail } = await next<Extract<LoadMessage, { type: 'ready' }>>(load, 'ready');
    const before = await rss();
    let peak = before;
    const done = next<Extract<LoadMessage, { type: 'done' }>>(load, 'done');
    load.send({ type: 'go' });
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peak = Math.max(peak, await rss());
        await sleep(250);
      }
    })();
    await sleep(WARMUP_SECONDS * 1000);
    const during = withProbe ? await probe() : null;
    const { result } = await done;
    sampling = false;
    await sampler;
    const after = await rss();
    load.kill();
    return { during, detail, result, before, peak, after };
  }

  await probe(2); // warms the connection, the plan caches and the JIT
  const baseline = await probe();
  const idle = await rss();
  const figures = (counts: Record<string, number>) =>
    Object.entries(counts)
      .map(([name, n]) => `${name} ${n}`)
      .join(', ');
  const mb = (bytes: number) => (bytes / 1e6).toFixed(0);
  const report = (scenario: string, during: ProbeResult, extra: Record<string, string | number> = {}) =>
    rows.push({
      scenario,
      'probe p50 ms': during.p50.toFixed(1),
      'probe p99 ms': during.p99.toFixed(1),
      'p99 / baseline': `${(during.p99 / baseline.p99).toFixed(2)}x`,
      'probe n': during.n,
      ...extra,
    });
  if (scenario !== 'flood') report(`${scenario}: baseline (probe alone)`, baseline, { 'server RSS MB': mb(idle) });
  if (scenario === 'heavy' || scenario === 'unlimited') {
    const heavy = await underLoad(scenario);
    const title = scenario === 'heavy' ? 'keys × 5 kinds, within the budget' : 'keys × 5 kinds, no budget';
    report(`${scenario}: ${fixtures.heavy.length} ${title}`, heavy.during!, {
      'server RSS MB': `${mb(heavy.before)} → peak ${mb(heavy.peak)}`,
      load: figures(heavy.result),
    });
  }
  if (scenario === 'posts') {
    const posts = await underLoad('posts');
    report('posts only: the same 2,000-sample posts, no watcher', posts.during!, {
      'server RSS MB': `${mb(posts.before)} → peak ${mb(posts.peak)} (+${mb(posts.peak - posts.before)})`,
      load: figures(posts.result),
    });
  }
  if (scenario === 'watchers') {
    const watchers = await underLoad('watchers');
    report('watchers: 480 stalled streams, 2,000-sample posts', watchers.during!, {
      'server RSS MB': `${mb(watchers.before)} → peak ${mb(watchers.peak)} (+${mb(watchers.peak - watchers.before)})`,
      load: figures({ ...watchers.detail, ...watchers.result }),
    });
  }
  if (scenario === 'flood') {
    const flood = await underLoad('flood', false);
    rows.push({
      scenario: 'unauth flood: 32 connections of unknown keys',
      load: figures(flood.result),
    });
  }

  agent.destroy();
  const closed = new Promise((resolve) => server.once('exit', resolve));
  server.send({ type: 'close' });
  await closed;
  return kind;
}

export async function benchFairness() {
  // FAIRNESS_SCENARIOS (e.g. `watchers`) runs some scenarios only.
  const scenarios = process.env.FAIRNESS_SCENARIOS?.split(',') ?? ['heavy', 'unlimited', 'posts', 'watchers', 'flood'];
  const rows: Record<string, string | number>[] = [];
  let kind = '';
  for (const scenario of scenarios) kind = await runScenario(scenario, rows);
  printTable(
    `Fair under load on ${kind}, each scenario on a server process of its own (probe: getLocation back to back, ${SECONDS} s a phase; goal p99 ≤ 3× baseline)`,
    rows,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await benchFairness();
