// The soak (`npm run bench:soak`; DATABASE_URL and REDIS_URL set, SOAK_MINUTES long, 30 by default): two API
// processes (`serve --no-workers`) and a worker (`worker`) started as an operator starts them, on a fresh
// database, under mixed traffic from a generator in its own process for the whole run: tenants (SOAK_TENANTS
// organizations, each its own API key and connection) reading locations and green lots and writing
// adjustments and transfers, spread over both API processes, each at SOAK_TENANT_RATE requests a second. Every
// SOAK_SAMPLE_SECONDS it samples each process's RSS and CPU, the traffic's p99 and rate, and the database's
// connections, and it ends with the curve as a PNG (bench/.results/soak-<timestamp>.png, drawn by Debian's
// Chromium from an SVG; the SVG and JSON beside it) and a verdict: RSS, p99 and connections flat (the last
// third's median within SOAK_FLAT_BOUND of the second third's).
import { fork, execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type autocannon from 'autocannon';
import { createOrganization } from '../src/auth/organizations.js';
import { PostgresDatabase } from '../src/db/client.js';
import { API_ONLY_READY, WORKER_READY, startProcess, type StartedProcess } from '../src/testing/processes.js';
import { preparePostgresTemplate, withDatabase } from '../src/testing/template.js';
import { announce, median } from './lib.js';
import type { LoadAnswer } from './load-child.js';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 30);
const SAMPLE_SECONDS = Number(process.env.SOAK_SAMPLE_SECONDS ?? 10);
const TENANTS = Number(process.env.SOAK_TENANTS ?? 30);
/**
 * Requests a second per tenant: within the API budget a credential has (300 a minute, src/ratelimit/budgets.ts),
 * so the soak measures service, not refusals. The traffic is tenants × this.
 */
const TENANT_RATE = Number(process.env.SOAK_TENANT_RATE ?? 4);
const FLAT_BOUND = Number(process.env.SOAK_FLAT_BOUND ?? 0.2);
const LOTS_PER_TENANT = 5;

interface Tenant {
  apiKey: string;
  locationIds: [string, string];
  lotIds: string[];
}

interface Sample {
  t: number;
  rss: Record<string, number>;
  cpu: Record<string, number>;
  p50Ms: number;
  p99Ms: number;
  rps: number;
  non2xx: number;
  statusCodes: Record<string, number>;
  connections: number;
}

export async function soak() {
  announce(`soak, ${MINUTES} min`);
  const base = process.env.DATABASE_URL;
  if (!base) throw new Error('the soak runs on PostgreSQL: set DATABASE_URL (and REDIS_URL)');
  const template = await preparePostgresTemplate(base);
  const name = `fc_soak_${Date.now().toString(36)}`;
  const admin = PostgresDatabase.open(base, 1);
  await admin.query(`create database ${name} template ${template}`);
  const databaseUrl = withDatabase(base, name);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    DATABASE_APP_URL: undefined,
    FIRSTCRACK_SECRET_KEY: process.env.FIRSTCRACK_SECRET_KEY ?? randomBytes(32).toString('base64'),
    PORT: '0',
    LOG_LEVEL: 'warn',
  };
  const processes: Record<string, StartedProcess> = {};
  let generator: ChildProcess | undefined;
  try {
    processes['api 1'] = await startProcess(['serve', '--no-workers'], env, API_ONLY_READY);
    processes['api 2'] = await startProcess(['serve', '--no-workers'], env, API_ONLY_READY);
    processes.worker = await startProcess(['worker'], env, WORKER_READY);
    const urls = [processes['api 1'].url!, processes['api 2'].url!];

    const owner = PostgresDatabase.open(databaseUrl, 2);
    const tenants: Tenant[] = [];
    for (let i = 0; i < TENANTS; i++) {
      const { apiKey } = await createOrganization(owner, `Soak roastery ${i}`, 'enterprise');
      const rpc = async (operation: string, input: unknown) => {
        const res = await fetch(`${urls[i % 2]}/rpc/v1/${operation}`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(input) });
        const body = (await res.json()) as any;
        if (!res.ok) throw new Error(`${operation}: ${res.status} ${JSON.stringify(body)}`);
        return body;
      };
      const a = (await rpc('catalog.location.createLocation', { name: 'Roastery', code: 'A', kind: 'roastery' })).id;
      const b = (await rpc('catalog.location.createLocation', { name: 'Warehouse', code: 'B', kind: 'warehouse' })).id;
      const lotIds: string[] = [];
      for (let l = 0; l < LOTS_PER_TENANT; l++) lotIds.push((await rpc('inventory.green.importGreenLot', { name: `Soak ${l}`, lotCode: `S-${l}`, weightKg: '1000000', locationId: a })).lot.id);
      tenants.push({ apiKey, locationIds: [a, b], lotIds });
    }
    const pids = Object.fromEntries(Object.entries(processes).map(([k, p]) => [k, p.child.pid!]));
    const connections = async () => (await owner.query<{ n: number }>(`select count(*)::int as n from pg_stat_activity where datname = $1`, [name]))[0].n;

    generator = fork(fileURLToPath(new URL('./load-child.ts', import.meta.url)), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const samples: Sample[] = [];
    const started = Date.now();
    let cpuBefore = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuSeconds(pid)]));
    const end = started + MINUTES * 60_000;
    while (Date.now() < end) {
      const slice: Promise<LoadAnswer> = new Promise((resolve) => {
        const onMessage = (m: LoadAnswer) => {
          if (m.type !== 'result') return;
          generator!.off('message', onMessage);
          resolve(m);
        };
        generator!.on('message', onMessage);
      });
      generator.send({ type: 'load', scenario: { module: import.meta.url, name: 'soakLoad', data: { urls, tenants, seconds: SAMPLE_SECONDS } } });
      const r = await slice;
      const cpuNow = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, cpuSeconds(pid)]));
      samples.push({
        t: (Date.now() - started) / 1000,
        rss: Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, rssMb(pid)])),
        cpu: Object.fromEntries(Object.keys(pids).map((k) => [k, (100 * (cpuNow[k] - cpuBefore[k])) / SAMPLE_SECONDS])),
        p50Ms: r.p50Ms,
        p99Ms: r.p99Ms,
        rps: r.requestsPerSecond,
        non2xx: r.non2xx,
        statusCodes: r.statusCodes,
        connections: await connections(),
      });
      cpuBefore = cpuNow;
      const s = samples.at(-1)!;
      console.log(
        `${s.t.toFixed(0).padStart(5)} s  ${s.rps.toFixed(0)} req/s  p50 ${s.p50Ms} p99 ${s.p99Ms} ms  non-2xx ${s.non2xx} ${JSON.stringify(s.statusCodes)}  db conns ${s.connections}  ` +
          Object.keys(pids).map((k) => `${k}: ${s.rss[k].toFixed(0)} MB ${s.cpu[k].toFixed(0)}% CPU`).join(', '),
      );
    }
    await owner.close();
    return report(samples, Object.keys(pids));
  } finally {
    generator?.kill();
    await Promise.all(Object.values(processes).map((p) => stop(p.child)));
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.close();
  }
}

/** The mixed traffic, built in the generator's process: each connection one tenant on one API process; 3 reads to 1 write. */
export function soakLoad({ urls, tenants, seconds }: { urls: string[]; tenants: Tenant[]; seconds: number }): autocannon.Options {
  let next = 0;
  const connections = tenants.length;
  return {
    // autocannon spreads the connections over the URLs: half on each API process.
    url: urls as unknown as string,
    connections,
    duration: seconds,
    connectionRate: TENANT_RATE,
    setupClient(client) {
      const n = next++;
      const tenant = tenants[n % tenants.length];
      const headers = { authorization: `Bearer ${tenant.apiKey}`, 'content-type': 'application/json' };
      const pick = <T>(xs: T[]) => xs[Math.floor(Math.random() * xs.length)];
      client.setRequests([
        {
          method: 'POST',
          headers,
          setupRequest(request) {
            const r = Math.random();
            const [a, b] = tenant.locationIds;
            const call =
              r < 0.4
                ? { op: 'catalog.location.getLocation', input: { id: pick([a, b]) } }
                : r < 0.75
                  ? { op: 'inventory.green.listGreenLots', input: {} }
                  : r < 0.875
                    ? { op: 'inventory.green.adjustGreenLotQuantity', input: { id: pick(tenant.lotIds), deltaKg: pick(['0.250', '-0.250']), reason: 'adjust', locationId: a } }
                    : { op: 'inventory.green.transferGreenLotToLocation', input: { id: pick(tenant.lotIds), fromLocationId: a, toLocationId: b, weightKg: '0.010' } };
            // Reads as a client makes them (GET with the input in the query), writes as POST.
            const read = r < 0.75;
            request.method = read ? 'GET' : 'POST';
            request.path = read ? `/rpc/v1/${call.op}?input=${encodeURIComponent(JSON.stringify(call.input))}` : `/rpc/v1/${call.op}`;
            request.body = read ? undefined : JSON.stringify(call.input);
            // A GET with a JSON content type and no body is refused (400), as any server would.
            request.headers = read ? { authorization: headers.authorization } : headers;
            return request;
          },
        },
      ]);
    },
  };
}

const rssMb = (pid: number) => {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
};
const TICKS = 100;
/** A process's user + system CPU seconds, from /proc (the Node.js children of a `tsx` start included: the process is node itself). */
const cpuSeconds = (pid: number) => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS;
  } catch {
    return NaN;
  }
};

async function stop(child: ChildProcess) {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 35_000))]);
  if (child.exitCode === null) child.kill('SIGKILL');
}

/** The flatness verdict and the plot. */
function report(samples: Sample[], names: string[]) {
  const third = Math.max(1, Math.floor(samples.length / 3));
  const mid = samples.slice(third, 2 * third);
  const last = samples.slice(samples.length - third);
  const series: [string, (s: Sample) => number][] = [
    ...names.map((k) => [`RSS ${k} (MB)`, (s: Sample) => s.rss[k]] as [string, (s: Sample) => number]),
    ['p99 (ms)', (s) => s.p99Ms],
    ['database connections', (s) => s.connections],
  ];
  const verdict = series.map(([label, f]) => {
    const [m, l] = [median(mid.map(f)), median(last.map(f))];
    const change = m === 0 ? 0 : (l - m) / m;
    return { series: label, 'middle third (median)': Number(m.toFixed(1)), 'last third (median)': Number(l.toFixed(1)), change: `${(change * 100).toFixed(1)}%`, flat: Math.abs(change) <= FLAT_BOUND ? 'yes' : 'NO' };
  });
  console.log(`\nSoak: ${samples.length} samples of ${SAMPLE_SECONDS} s; flat = the last third's median within ${FLAT_BOUND * 100}% of the middle third's`);
  console.table(verdict);
  console.log(`requests: ${median(samples.map((s) => s.rps)).toFixed(0)}/s median, non-2xx ${samples.reduce((a, s) => a + s.non2xx, 0)}; CPU % (median) ${names.map((k) => `${k} ${median(samples.map((s) => s.cpu[k])).toFixed(0)}`).join(', ')}`);

  const dir = fileURLToPath(new URL('./.results/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  const stem = `${dir}soak-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  writeFileSync(`${stem}.json`, JSON.stringify({ minutes: MINUTES, tenantRate: TENANT_RATE, tenants: TENANTS, samples, verdict }, null, 2) + '\n');
  writeFileSync(`${stem}.svg`, plot(samples, names));
  const png = `${stem}.png`;
  const chromium = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
  if (chromium) {
    execFileSync(chromium, ['--headless', '--no-sandbox', '--disable-gpu', `--screenshot=${png}`, '--window-size=1000,900', `file://${stem}.svg`], { stdio: 'ignore' });
    console.log(`plot: ${png}`);
  } else console.log(`plot: ${stem}.svg (no Chromium to draw the PNG)`);
  return { samples, verdict, png };
}

/** Three panels over time: RSS per process, p50/p99, database connections. */
function plot(samples: Sample[], names: string[]): string {
  const W = 1000;
  const H = 280;
  const pad = { l: 60, r: 160, t: 30, b: 30 };
  const colors = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd'];
  const tMax = Math.max(1, ...samples.map((s) => s.t));
  const panel = (y0: number, title: string, lines: [string, (s: Sample) => number][]) => {
    const yMax = Math.max(1, ...lines.flatMap(([, f]) => samples.map(f).filter(Number.isFinite))) * 1.1;
    const x = (t: number) => pad.l + ((W - pad.l - pad.r) * t) / tMax;
    const y = (v: number) => y0 + pad.t + (H - pad.t - pad.b) * (1 - v / yMax);
    const axis = `<line x1="${pad.l}" y1="${y(0)}" x2="${W - pad.r}" y2="${y(0)}" stroke="#999"/><line x1="${pad.l}" y1="${y(0)}" x2="${pad.l}" y2="${y(yMax)}" stroke="#999"/>`;
    const ticks = [0, 0.5, 1].map((f) => `<text x="${pad.l - 6}" y="${y(yMax * f) + 4}" text-anchor="end" font-size="11">${(yMax * f).toFixed(0)}</text>`).join('');
    const tTicks = [0, 0.25, 0.5, 0.75, 1].map((f) => `<text x="${x(tMax * f)}" y="${y(0) + 16}" text-anchor="middle" font-size="11">${((tMax * f) / 60).toFixed(1)} min</text>`).join('');
    const paths = lines
      .map(([label, f], i) => {
        const d = samples.map((s, j) => `${j ? 'L' : 'M'}${x(s.t).toFixed(1)},${y(f(s)).toFixed(1)}`).join(' ');
        return `<path d="${d}" fill="none" stroke="${colors[i % colors.length]}" stroke-width="2"/><text x="${W - pad.r + 8}" y="${y0 + pad.t + 14 * (i + 1)}" font-size="12" fill="${colors[i % colors.length]}">${label}</text>`;
      })
      .join('');
    return `<text x="${pad.l}" y="${y0 + 18}" font-size="14" font-weight="bold">${title}</text>${axis}${ticks}${tTicks}${paths}`;
  };
  const body = [
    panel(0, 'RSS (MB)', names.map((k) => [k, (s: Sample) => s.rss[k]] as [string, (s: Sample) => number])),
    panel(H, 'Latency (ms)', [['p99', (s) => s.p99Ms], ['p50', (s) => s.p50Ms]]),
    panel(2 * H, 'Database connections / requests per second ÷ 10', [['connections', (s) => s.connections], ['req/s ÷ 10', (s) => s.rps / 10]]),
  ].join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${3 * H}" font-family="sans-serif"><rect width="100%" height="100%" fill="white"/>${body}</svg>\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await soak();
