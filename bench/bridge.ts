// The machine bridge (src/bridge): CPU and memory of `firstcrack bridge` reading 8 Modbus TCP channels at
// 10 Hz and posting live, and how fast it drains a 10-minute backlog after an outage, within the production
// ingest budget. BRIDGE_BENCH_SECONDS (default 20) sets how long the live bridge is measured.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOrganization } from '../src/auth/organizations.js';
import { Bridge } from '../src/bridge/bridge.js';
import { parseBridgeConfig, type ModbusChannel } from '../src/bridge/config.js';
import { Journal } from '../src/bridge/journal.js';
import { exampleConfig, modbusServer, SimulatedRoast } from '../src/bridge/testing.js';
import { printTable, startBenchApp } from './lib.js';

const root = new URL('..', import.meta.url).pathname;
const TICKS_PER_S = 100; // Linux USER_HZ: /proc/<pid>/stat counts CPU time in these

function procStats(pid: number): { cpuS: number; rssMb: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const cpuS = (Number(fields[11]) + Number(fields[12])) / TICKS_PER_S;
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
  return { cpuS, rssMb: rssKb / 1024 };
}

export async function benchBridge(): Promise<void> {
  const bench = await startBenchApp();
  const dirs: string[] = [];
  try {
    const { organizationId, apiKey } = await createOrganization(bench.app.databases.owner, 'Bench roastery', 'enterprise');
    void organizationId;
    const rpc = async (operation: string, input: unknown) => {
      const response = await fetch(`${bench.url}/rpc/v1/${operation}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(input),
      });
      if (!response.ok) throw new Error(`${operation}: ${response.status} ${await response.text()}`);
      return (await response.json()) as any;
    };
    const machine = await rpc('catalog.machine.registerMachine', { name: 'Bench bridge roaster', code: 'BENCH-BRIDGE', connectivity: 'bridge' });
    const { token } = await rpc('catalog.machine.issueMachineBridgeToken', { machineId: machine.id });
    const base = exampleConfig('modbus-tcp-plc.toml');
    const roast = new SimulatedRoast(1);
    const map = parseBridgeConfig({ ...base, service: { url: bench.url, machine: machine.id } }).channels.map as Record<string, ModbusChannel>;
    const modbus = await modbusServer(roast, map);
    const config = (journalDir: string) => ({
      ...base,
      service: { url: bench.url, machine: machine.id, bridge_token: token, api_key: apiKey },
      source: { ...base.source, host: '127.0.0.1', port: modbus.port, poll_hz: 10 },
      batch: { mode: 'start', number_pattern: 'BENCH-{n:3}', charge_kg: '12' },
      journal: { dir: journalDir, fsync_interval_ms: 1000 },
    });

    // 1. A live bridge process: 8 channels at 10 Hz, journaled and posted every 500 ms.
    const seconds = Number(process.env.BRIDGE_BENCH_SECONDS ?? 20);
    const liveDir = mkdtempSync(join(tmpdir(), 'fc-bench-bridge-'));
    dirs.push(liveDir);
    writeFileSync(join(liveDir, 'bridge.json'), JSON.stringify(config(liveDir)));
    // The compiled CLI (npm run build), as a roaster runs it; tsx would add its compiler to what is measured.
    const child = spawn(process.execPath, [join(root, 'bin/firstcrack.js'), 'bridge', '--config', join(liveDir, 'bridge.json')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    for (let i = 0; i < 300 && !/Recording batch/.test(output); i++) await new Promise((r) => setTimeout(r, 50));
    if (!/Recording batch/.test(output)) throw new Error(`the bridge did not start: ${output}`);
    await new Promise((r) => setTimeout(r, 2000));
    const before = procStats(child.pid!);
    const requestsBefore = modbus.requests();
    const rss: number[] = [];
    const started = performance.now();
    while (performance.now() - started < seconds * 1000) {
      await new Promise((r) => setTimeout(r, 1000));
      rss.push(procStats(child.pid!).rssMb);
    }
    const after = procStats(child.pid!);
    const elapsedS = (performance.now() - started) / 1000;
    const readsPerS = (modbus.requests() - requestsBefore) / elapsedS;
    child.kill('SIGTERM');
    await new Promise((r) => child.once('close', r));
    printTable(`Bridge, 8 Modbus TCP channels at 10 Hz, live posting (${elapsedS.toFixed(0)} s)`, [
      {
        'CPU (% of one core)': ((100 * (after.cpuS - before.cpuS)) / elapsedS).toFixed(1),
        'RSS MB (median)': [...rss].sort((a, b) => a - b)[Math.floor(rss.length / 2)].toFixed(1),
        'RSS MB (max)': Math.max(...rss).toFixed(1),
        'registers read/s (13 a reading)': readsPerS.toFixed(0),
      },
    ]);

    // 2. A 10-minute outage: 6,000 readings of 8 channels journaled and not posted; how long until the service has them all.
    const drainDir = mkdtempSync(join(tmpdir(), 'fc-bench-bridge-'));
    dirs.push(drainDir);
    const batch = await rpc('production.roast.startRoastBatch', { batchNumber: 'BENCH-DRAIN', machineId: machine.id, chargeWeightKg: '12' });
    const journal = Journal.begin(drainDir, { startedAt: Date.now() - 600_000, speed: 1, idempotencyKey: 'bench' }, 1000);
    journal.append({ k: 'batch', id: batch.id, batchNumber: batch.batchNumber });
    for (let i = 0; i < 6000; i++) {
      const { bt, et, ...ch } = roast.reading(roast.samples[0].t + i * 100);
      journal.append({ k: 's', t: i * 100, bt, et, ch });
    }
    journal.append({ k: 'end', reason: 'bench' });
    journal.close();
    const bytes = readFileSync(join(drainDir, 'current.jsonl')).length;
    const bridge = new Bridge({ config: parseBridgeConfig(config(drainDir)), once: true });
    const drainStarted = performance.now();
    const [result] = await bridge.run();
    const drainS = (performance.now() - drainStarted) / 1000;
    const curve = await rpc('production.roast.getRoastCurve', { id: batch.id });
    if (curve.fullSampleCount !== 6000) throw new Error(`the service holds ${curve.fullSampleCount} of 6000 samples`);
    printTable('Bridge, draining a 10-minute backlog at 10 Hz (6,000 samples × 8 channels) within the production ingest budget', [
      {
        'journal MB': (bytes / 1024 / 1024).toFixed(2),
        posts: result.posts,
        'drain s': drainS.toFixed(2),
        'samples/s': (6000 / drainS).toFixed(0),
        'x real time': (600 / drainS).toFixed(0),
      },
    ]);
    await modbus.close();
  } finally {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    await bench.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchBridge();
