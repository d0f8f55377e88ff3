import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer } from '../testing/harness.js';
import { CLI } from '../testing/processes.js';
import { Bridge } from './bridge.js';
import { parseBridgeConfig, type ModbusChannel } from './config.js';
import { assertRoastArrived, bridgeMachine, modbusServer, SimulatedRoast, testConfig } from './testing.js';

const SPEED = 40;
const root = new URL('../..', import.meta.url).pathname;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function setUp(code: string) {
  const server = await startTestServer();
  const org = await server.createOrg('enterprise');
  const machine = await bridgeMachine(org, code);
  const roast = new SimulatedRoast(SPEED);
  const raw = testConfig('modbus-tcp-plc.toml', server, org, machine, { host: '127.0.0.1' });
  const modbus = await modbusServer(roast, parseBridgeConfig(raw).channels.map as Record<string, ModbusChannel>);
  const config = { ...raw, source: { ...raw.source, port: modbus.port } };
  return { server, org, roast, modbus, config };
}

test('the API stopped in the middle of a 10 Hz roast: the bridge keeps reading and journaling, and afterwards every sample is in the curve once, in order', async () => {
  const { server, org, roast, modbus, config } = await setUp('OFF1');
  const raw = server.app.server.server;
  const port = Number(new URL(server.url).port);
  const logs: string[] = [];
  const backlogs: number[] = [];
  const bridge = new Bridge({ config: parseBridgeConfig(config), once: true, speed: SPEED, log: (l) => logs.push(l), onStatus: (s) => backlogs.push(s.backlog) });
  try {
    roast.restart();
    const running = bridge.run();
    await sleep(roast.durationMs * 0.3);
    // The service goes away (connections cut, nothing listening) for a third of the roast, then returns on the same port and database.
    raw.close();
    raw.closeAllConnections();
    const downFor = roast.durationMs * 0.35;
    await sleep(downFor);
    const backlogWhileDown = Math.max(...backlogs.slice(-3));
    await new Promise<void>((resolve) => raw.listen(port, '127.0.0.1', () => resolve()));
    const [result] = await running;
    assert.ok(logs.some((l) => /Posting paused, readings are journaled: cannot reach/.test(l)), logs.join('\n'));
    assert.ok(logs.some((l) => /answers again/.test(l)), logs.join('\n'));
    assert.ok(backlogWhileDown >= (downFor / 100) * 0.7, `about ${downFor / 100} readings piled up while it was down (${backlogWhileDown})`);
    await assertRoastArrived(server, org, config.journal.dir, result.batchId!, roast);
  } finally {
    await modbus.close();
  }
});

test('kill -9 of the bridge mid-roast, then a restart: it resumes its journal and every sample is in the curve once, in order', async () => {
  const { server, org, roast, modbus, config } = await setUp('OFF2');
  const file = join(config.journal.dir, 'bridge.json');
  writeFileSync(file, JSON.stringify(config));
  const start = () => {
    const child = spawn(process.execPath, [...CLI, 'bridge', '--config', file, '--once', '--speed', String(SPEED), '--json'], { cwd: root, env: process.env });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    return { child, output: () => output };
  };
  try {
    const first = start();
    // The simulated roast starts when the bridge's clock does: its journal's first record (a start takes seconds on a busy machine).
    for (let i = 0; i < 3000 && !existsSync(join(config.journal.dir, 'current.jsonl')); i++) await sleep(5);
    roast.restart();
    // Killed once it has recorded a good part of the roast (past charge and the turning point).
    for (let i = 0; i < 600 && !/turning_point at/.test(first.output()); i++) await sleep(50);
    assert.match(first.output(), /turning_point at/);
    await sleep(1500);
    // The drum waits while no bridge runs: the restart takes seconds of wall time, which at this speed could
    // otherwise carry the roast past its drop before the second bridge reads (it would then wait for a drop forever).
    roast.pause();
    first.child.kill('SIGKILL');
    await once(first.child, 'close');
    const second = start();
    for (let i = 0; i < 1200 && !/Resuming the journal's recording/.test(second.output()) && second.child.exitCode === null; i++) await sleep(25);
    roast.resume();
    const [status] = (await once(second.child, 'close')) as [number];
    assert.equal(status, 0, second.output());
    assert.match(second.output(), /Resuming the journal's recording of batch SIM-01/);
    const result = JSON.parse(second.output().trim().split('\n').pop()!);
    assert.equal(result.batchNumber, 'SIM-01', 'the same batch, not a second one');
    const batches = await org.call('production.roast.listRoastBatches', {});
    assert.equal(batches.body.items.length, 1);
    // Nothing is read while no bridge runs.
    await assertRoastArrived(server, org, config.journal.dir, result.batchId, roast, undefined, 60);
  } finally {
    await modbus.close();
  }
});
