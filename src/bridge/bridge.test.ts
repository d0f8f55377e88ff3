import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer } from '../testing/harness.js';
import { runCommand } from '../testing/processes.js';
import { Bridge, counterOf, expandPattern } from './bridge.js';
import { parseBridgeConfig, type ModbusChannel } from './config.js';
import { Detector } from './detector.js';
import { assertRoastArrived, bridgeMachine, missingPeer, modbusServer, mqttPublisher, MQTT_URL, ptyPair, SimulatedRoast, tc4Board, testConfig } from './testing.js';

const SPEED = 40;

async function runBridge(configJson: object) {
  const logs: string[] = [];
  const bridge = new Bridge({ config: parseBridgeConfig(configJson), once: true, speed: SPEED, log: (line) => logs.push(line) });
  const [result] = await bridge.run();
  return { result, logs };
}

test('bridge --help explains every option, and a bad configuration is one line naming the key', async () => {
  const help = await runCommand(['bridge', '--help'], process.env);
  assert.equal(help.status, 0, help.stderr);
  for (const option of ['--config', '--check', '--batch', '--once', '--speed', '--json']) assert.match(help.stdout, new RegExp(`${option}\\b`));
  const dir = mkdtempSync(join(tmpdir(), 'fc-bridge-'));
  const bad = join(dir, 'bad.toml');
  writeFileSync(bad, '[service]\nurl = "http://127.0.0.1:1"\nmachine = "mch_x"\nbridge_token = "fcb_x"\n[source]\nkind = "modbus-tcp"\nhost = "h"\npoll_hz = 20\n[channels.bt]\naddress = "zero"\nunit = "C"\n');
  const res = await runCommand(['bridge', '--config', bad], process.env);
  assert.equal(res.status, 2, res.stderr);
  assert.match(res.stderr, /source\.poll_hz: at most 10 readings a second/);
  writeFileSync(bad, '[service]\nurl = "http://127.0.0.1:1"\nmachine = "mch_x"\nbridge_token = "fcb_x"\n[source]\nkind = "modbus-tcp"\nhost = "h"\n[channels.bt]\naddress = "zero"\nunit = "K"\n');
  const channel = await runCommand(['bridge', '--config', bad], process.env);
  assert.equal(channel.status, 2, channel.stderr);
  assert.match(channel.stderr, /channels\.bt\.address: .*number/);
  assert.match(channel.stderr, /channels\.bt\.unit/);
});

test('batch numbers follow the pattern; the detector marks charge, turning point and drop once, and a hand-marked charge counts', () => {
  const day = new Date(2026, 10, 28);
  assert.equal(expandPattern('R{yyyy}{mm}{dd}-{n:2}', 7, day), 'R20261128-07');
  assert.equal(counterOf('R{yyyy}{mm}{dd}-{n:2}', 'R20261128-12', day), 12);
  assert.equal(counterOf('R{yyyy}{mm}{dd}-{n:2}', 'R20261127-12', day), undefined);
  const config = parseBridgeConfig({ service: { url: 'http://x.test', machine: 'm' }, source: { kind: 'mqtt', url: MQTT_URL }, channels: { bt: { topic: 'a', unit: 'C' } } }).detect;
  const roast = new SimulatedRoast(1);
  const run = (detector: Detector) => {
    const found: { type: string; t: number }[] = [];
    for (let t = roast.samples[0].t; t <= roast.samples.at(-1)!.t; t += 1000) found.push(...detector.add(t, roast.reading(t).bt));
    return found;
  };
  const auto = run(new Detector(config));
  assert.deepEqual(auto.map((e) => e.type), ['charge', 'turning_point', 'drop']);
  assert.ok(Math.abs(auto[0].t - 0) <= 1000 && Math.abs(auto[2].t - 740_000) <= 1000, JSON.stringify(auto));
  const byHand = new Detector(config);
  byHand.mark('charge', -3000);
  const after = run(byHand);
  assert.deepEqual(after.map((e) => e.type), ['turning_point', 'drop'], 'no second charge; the rest counts from the hand-marked one');
});

test('Modbus TCP (the PLC layout: float32 CDAB, uint16, int16, 8 channels): a whole roast arrives with every sample and the auto-marked events', async () => {
  const server = await startTestServer();
  const org = await server.createOrg('enterprise');
  const machine = await bridgeMachine(org, 'MB1');
  const roast = new SimulatedRoast(SPEED);
  const raw = testConfig('modbus-tcp-plc.toml', server, org, machine, {});
  const map = parseBridgeConfig({ ...raw, source: { ...raw.source, host: '127.0.0.1' } }).channels.map as Record<string, ModbusChannel>;
  const modbus = await modbusServer(roast, map);
  try {
    const config = { ...raw, source: { ...raw.source, host: '127.0.0.1', port: modbus.port } };
    roast.restart();
    const { result } = await runBridge(config);
    assert.equal(result.batchNumber, 'SIM-01');
    const { full } = await assertRoastArrived(server, org, config.journal.dir, result.batchId!, roast);
    const sample = full.samples[Math.floor(full.samples.length / 2)];
    assert.deepEqual(Object.keys(sample.channels).sort(), ['airflow', 'burner', 'drum', 'exhaust', 'inlet', 'pressure']);
    assert.equal(sample.channels.pressure, 12.5);
    assert.equal(sample.channels.inlet - sample.et, 40);
  } finally {
    await modbus.close();
  }
});

test('bridge --check reads the Delta DTA layout (two unit ids, int16 tenths of °F) once and prints °C', async () => {
  const server = await startTestServer();
  const org = await server.createOrg('enterprise');
  const machine = await bridgeMachine(org, 'MB2');
  const roast = new SimulatedRoast(1);
  const raw = testConfig('modbus-rtu-delta-dta.toml', server, org, machine, {});
  const map = parseBridgeConfig(raw).channels.map as Record<string, ModbusChannel>;
  const modbus = await modbusServer(roast, map);
  try {
    const { path: _p, baud_rate: _b, data_bits: _d, parity: _y, stop_bits: _s, ...rest } = raw.source;
    const file = join(raw.journal.dir, 'dta.json');
    writeFileSync(file, JSON.stringify({ ...raw, source: { ...rest, kind: 'modbus-tcp', host: '127.0.0.1', port: modbus.port } }));
    const res = await runCommand(['bridge', '--check', '--json', '--config', file], process.env);
    assert.equal(res.status, 0, res.stderr);
    const readings = JSON.parse(res.stdout.trim().split('\n').pop()!);
    const now = roast.reading();
    assert.ok(Math.abs(readings.bt - now.bt) < 0.2 && Math.abs(readings.et - now.et) < 0.2, `${res.stdout} vs ${JSON.stringify(now)}`);
    const human = await runCommand(['bridge', '--check', '--config', file], process.env);
    assert.match(human.stdout, /modbus-tcp 127\.0\.0\.1:\d+\n {2}et {2}[\d.]+ °C \(read in °F\)\n {2}bt/);
  } finally {
    await modbus.close();
  }
});

test('MQTT through the Mosquitto broker (JSON fields and plain numbers): a whole roast arrives with every sample and the auto-marked events', async (t) => {
  const missing = await missingPeer.broker();
  if (missing) return t.skip(missing);
  const server = await startTestServer();
  const org = await server.createOrg('enterprise');
  const machine = await bridgeMachine(org, 'MQ1');
  const roast = new SimulatedRoast(SPEED);
  const prefix = `fc-test/${Math.random().toString(36).slice(2)}`;
  const raw: Record<string, any> = testConfig('mqtt.toml', server, org, machine, { url: MQTT_URL });
  for (const channel of Object.values(raw.channels as Record<string, { topic: string }>)) channel.topic = channel.topic.replace('roaster/1', prefix);
  // Attached to the batch started in the console; first crack marked by hand (a key beside the roaster).
  raw.batch = { mode: 'attach', after_drop_s: 20 };
  const started = await org.call('production.roast.startRoastBatch', { batchNumber: 'CONSOLE-1', machineId: machine.machineId, chargeWeightKg: '12' });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  const publisher = await mqttPublisher(roast, prefix, 40);
  try {
    roast.restart();
    const bridge = new Bridge({ config: parseBridgeConfig(raw), once: true, speed: SPEED });
    const running = bridge.run();
    await new Promise((resolve) => setTimeout(resolve, roast.durationMs * 0.7));
    bridge.markByHand('first_crack_start');
    bridge.markByHand('first_crack_start');
    const [result] = await running;
    assert.equal(result.batchId, started.body.id);
    assert.deepEqual(result.events.map((e) => `${e.type} ${e.by}`), ['charge auto', 'turning_point auto', 'first_crack_start hand', 'drop auto']);
    const { full } = await assertRoastArrived(server, org, raw.journal.dir, result.batchId!, roast, ['charge', 'turning_point', 'first_crack_start', 'drop']);
    const sample = full.samples[Math.floor(full.samples.length / 2)];
    assert.deepEqual(Object.keys(sample.channels).sort(), ['burner', 'fan', 'inlet']);
  } finally {
    await publisher.stop();
  }
});

test('a TC4 on a serial line (socat pseudo-terminals, READ answered ambient,ET,BT): a whole roast arrives with every sample and the auto-marked events', async (t) => {
  const missing = missingPeer.socat();
  if (missing) return t.skip(missing);
  const server = await startTestServer();
  const org = await server.createOrg('enterprise');
  const machine = await bridgeMachine(org, 'TC4');
  const roast = new SimulatedRoast(SPEED);
  const dir = mkdtempSync(join(tmpdir(), 'fc-pty-'));
  const pty = await ptyPair(dir);
  const board = await tc4Board(roast, pty.boardEnd);
  try {
    const raw = testConfig('tc4-serial.toml', server, org, machine, { path: pty.bridgeEnd });
    roast.restart();
    const { result } = await runBridge(raw);
    const { full } = await assertRoastArrived(server, org, raw.journal.dir, result.batchId!, roast);
    assert.equal(full.samples[10].channels.ambient, 21.5);
    assert.ok(board.reads() >= result.samples, 'one READ per sample');
  } finally {
    await board.close();
    pty.close();
  }
});
