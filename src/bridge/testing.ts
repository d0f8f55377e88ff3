import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect } from 'node:net';
import { join } from 'node:path';
import ModbusSerial from 'modbus-serial';
import type { ServerSerial as ServerSerialType } from 'modbus-serial/ServerSerial.js';
import type { ServerTCP as ServerTCPType } from 'modbus-serial/ServerTCP.js';
import mqtt from 'mqtt';
import { ReadlineParser, SerialPort } from 'serialport';
import { parse as parseToml } from 'smol-toml';
import { importRoastLog } from '../modules/production/roast/telemetry/importers/index.js';
import type { TestOrg, TestServer } from '../testing/harness.js';
import type { ModbusChannel } from './config.js';
import { readRecording } from './journal.js';

/**
 * Simulated roasting machines for the bridge's tests and bench: a real roast log from the shared fixtures
 * played `speed` times as fast, served by real protocol peers (a Modbus TCP server, Modbus RTU slaves and a TC4
 * answering READ on one end of a socat pseudo-terminal pair, MQTT messages through the Mosquitto broker).
 */

export const ROAST_LOG = new URL('../../../shared/fixtures/roast-logs/profile2.alog', import.meta.url).pathname;
const EXAMPLES = new URL('../../examples/bridge/', import.meta.url).pathname;

/** An example configuration file, parsed (its credentials and addresses replaced by the test). */
export const exampleConfig = (name: string): Record<string, any> => parseToml(readFileSync(EXAMPLES + name, 'utf8')) as Record<string, any>;

/** The log's readings at any moment of the simulated roast: linear between its samples. */
export class SimulatedRoast {
  readonly samples: { t: number; bt: number; et: number; channels: Record<string, number> }[];
  readonly events: { type: string; t: number }[];
  private started = performance.now();

  constructor(
    readonly speed: number,
    /** Wall ms the drum holds its first reading (preheated, before the log runs): a bridge just started is reading before charge. */
    readonly holdMs = 1500,
    path = ROAST_LOG,
  ) {
    const curve = importRoastLog(readFileSync(path, 'utf8')).curve;
    this.samples = curve.samples.map((s) => ({
      t: s.t,
      bt: s.bt ?? 0,
      et: s.et ?? 0,
      channels: Object.fromEntries(Object.entries(s.channels ?? {}).map(([k, v]) => [k, v ?? 0])),
    }));
    this.events = curve.events;
  }

  private pausedAt: number | null = null;

  restart(): void {
    this.started = performance.now();
    this.pausedAt = null;
  }

  /**
   * Stops the drum's clock until resume(): a test that restarts its bridge mid-roast holds the roast meanwhile,
   * so how long the restart takes on a busy machine cannot carry the roast past its drop unseen.
   */
  pause(): void {
    this.pausedAt ??= performance.now();
  }

  resume(): void {
    if (this.pausedAt === null) return;
    this.started += performance.now() - this.pausedAt;
    this.pausedAt = null;
  }

  /** Log time now (ms, the log's own clock: its first sample at the start). */
  get t(): number {
    return this.samples[0].t + Math.max(0, (this.pausedAt ?? performance.now()) - this.started - this.holdMs) * this.speed;
  }

  /** Wall ms the whole log takes. */
  get durationMs(): number {
    return this.holdMs + (this.samples.at(-1)!.t - this.samples[0].t) / this.speed;
  }

  /** BT, ET and the other channels: burner (%), airflow, drum, inlet, exhaust, pressure made up from the log. */
  reading(t = this.t): Record<string, number> {
    const s = this.samples;
    let i = s.findIndex((x) => x.t > t);
    if (i === -1) i = s.length - 1;
    const a = s[Math.max(0, i - 1)];
    const b = s[i];
    const f = b.t === a.t ? 0 : Math.min(1, Math.max(0, (t - a.t) / (b.t - a.t)));
    const at = (x: number, y: number) => Math.round((x + (y - x) * f) * 100) / 100;
    const bt = at(a.bt, b.bt);
    const et = at(a.et, b.et);
    return { bt, et, inlet: at(a.et + 40, b.et + 40), exhaust: at(a.et - 20, b.et - 20), drum: 60, burner: Math.round(Math.min(100, Math.max(0, et - bt)) * 10) / 10, airflow: 40, pressure: 12.5 };
  }
}

/** The value to put in registers for `value` (°C) under `spec`: the bridge's conversion undone. */
function toRegisters(value: number, spec: ModbusChannel): number[] {
  const inUnit = spec.unit === 'F' ? (value * 9) / 5 + 32 : value;
  const raw = (inUnit - spec.offset) / spec.scale;
  const b = Buffer.alloc(4);
  if (spec.type === 'int16') return [Math.round(raw) & 0xffff];
  if (spec.type === 'uint16') return [Math.round(raw) & 0xffff];
  if (spec.type === 'int32') b.writeInt32BE(Math.round(raw));
  else if (spec.type === 'uint32') b.writeUInt32BE(Math.round(raw));
  else b.writeFloatBE(raw);
  const hi = b.readUInt16BE(0);
  const lo = b.readUInt16BE(2);
  return spec.word_order === 'big' ? [hi, lo] : [lo, hi];
}

/** Answers a register read (function code 3 or 4) from the simulated roast, laid out as `map` says. */
function registerAnswer(roast: SimulatedRoast, map: Record<string, ModbusChannel>, defaultUnit: number, counted: () => void) {
  return (functionCode: 3 | 4) => (addr: number, unitID: number) => {
    counted();
    const now = roast.reading();
    for (const [name, spec] of Object.entries(map)) {
      if ((spec.unit_id ?? defaultUnit) !== unitID || spec.function_code !== functionCode) continue;
      const words = toRegisters(now[name] ?? 0, spec);
      const k = addr - spec.address;
      if (k >= 0 && k < words.length) return words[k];
    }
    return 0;
  };
}

/** A Modbus TCP server answering `map`'s registers from the simulated roast. */
export async function modbusServer(roast: SimulatedRoast, map: Record<string, ModbusChannel>, defaultUnit = 1): Promise<{ port: number; close: () => Promise<void>; requests: () => number }> {
  let requests = 0;
  const register = registerAnswer(roast, map, defaultUnit, () => requests++);
  const port = 15000 + Math.floor(Math.random() * 20000);
  const ServerTCP = (ModbusSerial as unknown as { ServerTCP: typeof ServerTCPType }).ServerTCP;
  const server = new ServerTCP({ getHoldingRegister: register(3), getInputRegister: register(4) }, { host: '127.0.0.1', port, unitID: 255 });
  await once(server, 'initialized');
  return { port, requests: () => requests, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** CRC-16/MODBUS (Modbus over Serial Line V1.02, 6.2.2: polynomial 0xA001 reflected, initial 0xFFFF). */
export function modbusCrc(bytes: Uint8Array): number {
  let crc = 0xffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0xa001 : crc >>> 1;
  }
  return crc;
}

/**
 * Modbus RTU slaves on `path` (one end of a pseudo-terminal pair) answering `map`'s registers from the simulated
 * roast, for every unit id on the line. modbus-serial's `ServerSerial` frames requests by the line going quiet
 * and recomputes their CRC instead of checking it, so each frame is checked here against the spec: a request
 * with a wrong CRC is counted in `badFrames`.
 */
export async function modbusRtuSlaves(roast: SimulatedRoast, map: Record<string, ModbusChannel>, path: string, baudRate: number, defaultUnit = 1): Promise<{ requests: () => number; frames: () => number; badFrames: () => string[]; close: () => Promise<void> }> {
  let requests = 0;
  let frames = 0;
  const badFrames: string[] = [];
  const register = registerAnswer(roast, map, defaultUnit, () => requests++);
  const ServerSerial = (ModbusSerial as unknown as { ServerSerial: typeof ServerSerialType }).ServerSerial;
  const server = new ServerSerial({ getHoldingRegister: register(3), getInputRegister: register(4) }, { path, baudRate, unitID: 255 });
  await once(server, 'initialized');
  // The CRC is sent low byte first (6.2.2), the only little-endian field of a frame.
  for (const framed of server.socks.keys()) {
    framed.on('data', (frame: Buffer) => {
      frames++;
      if (frame.length < 4 || modbusCrc(frame.subarray(0, -2)) !== frame.readUInt16LE(frame.length - 2)) badFrames.push(frame.toString('hex'));
    });
  }
  return { requests: () => requests, frames: () => frames, badFrames: () => badFrames, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

export const MQTT_URL = 'mqtt://127.0.0.1:1883';

/**
 * Why a test against a real peer cannot run on this machine, or undefined when it can. `.ci/run` installs socat
 * and starts Mosquitto, so CI always runs them; a developer without them sees the tests skipped, saying why.
 */
export const missingPeer = {
  socat: (): string | undefined => (spawnSync('socat', ['-V'], { stdio: 'ignore' }).error ? 'socat is not installed (apt-get install socat)' : undefined),
  broker: (): Promise<string | undefined> =>
    new Promise((resolve) => {
      const socket = connect(1883, '127.0.0.1');
      socket.setTimeout(2000);
      socket.once('connect', () => (socket.destroy(), resolve(undefined)));
      for (const failure of ['error', 'timeout'] as const) socket.once(failure, () => (socket.destroy(), resolve('no MQTT broker on 127.0.0.1:1883 (apt-get install mosquitto)')));
    }),
};

/** Publishes the simulated roast to the broker at `hz`: temperatures as JSON on `<prefix>/temperatures`, burner and fan as plain numbers. */
export async function mqttPublisher(roast: SimulatedRoast, prefix: string, hz = 20): Promise<{ stop: () => Promise<void> }> {
  const client = await mqtt.connectAsync(MQTT_URL);
  const timer = setInterval(() => {
    const r = roast.reading();
    client.publish(`${prefix}/temperatures`, JSON.stringify({ bt: r.bt, et: r.et, inlet: r.inlet }));
    client.publish(`${prefix}/burner`, String(r.burner));
    client.publish(`${prefix}/fan`, String(r.airflow));
  }, 1000 / hz);
  return { stop: async () => (clearInterval(timer), await client.endAsync()) };
}

/** A socat pseudo-terminal pair; the bridge opens `bridgeEnd`, the simulated device (TC4, RTU slaves) `boardEnd`. */
export async function ptyPair(dir: string): Promise<{ bridgeEnd: string; boardEnd: string; close: () => void }> {
  const bridgeEnd = `${dir}/tty-bridge`;
  const boardEnd = `${dir}/tty-board`;
  const child: ChildProcess = spawn('socat', [`pty,raw,echo=0,link=${bridgeEnd}`, `pty,raw,echo=0,link=${boardEnd}`], { stdio: 'ignore' });
  for (let i = 0; i < 100 && !(existsSync(bridgeEnd) && existsSync(boardEnd)); i++) await new Promise((r) => setTimeout(r, 20));
  if (!existsSync(bridgeEnd)) throw new Error('socat did not make the pseudo-terminal pair');
  return { bridgeEnd, boardEnd, close: () => void child.kill() };
}

/** A TC4 on `path`: `READ` answers ambient,ET,BT,0,0 in °C; other commands (CHAN, UNITS) are taken silently. */
export async function tc4Board(roast: SimulatedRoast, path: string): Promise<{ reads: () => number; close: () => Promise<void> }> {
  const port = new SerialPort({ path, baudRate: 115200 });
  await once(port, 'open');
  let reads = 0;
  port.pipe(new ReadlineParser({ delimiter: '\n' })).on('data', (line: string) => {
    if (line.trim().toUpperCase() !== 'READ') return;
    reads++;
    const r = roast.reading();
    port.write(`21.5,${r.et.toFixed(2)},${r.bt.toFixed(2)},0.00,0.00\r\n`);
  });
  return { reads: () => reads, close: () => new Promise<void>((resolve) => port.close(() => resolve())) };
}

export async function bridgeMachine(org: TestOrg, code: string): Promise<{ machineId: string; token: string }> {
  const machine = await org.call('catalog.machine.registerMachine', { name: `Roaster ${code}`, code, connectivity: 'bridge' });
  assert.equal(machine.status, 200, JSON.stringify(machine.body));
  const issued = await org.call('catalog.machine.issueMachineBridgeToken', { machineId: machine.body.id });
  assert.equal(issued.status, 200, JSON.stringify(issued.body));
  return { machineId: machine.body.id, token: issued.body.token };
}

/** A configuration from an example file, pointed at the test service and a fresh journal, recording at 10 Hz. */
export function testConfig(example: string, server: TestServer, org: TestOrg, machine: { machineId: string; token: string }, source: Record<string, unknown>) {
  const raw = exampleConfig(example);
  return {
    ...raw,
    service: { url: server.url, machine: machine.machineId, bridge_token: machine.token, api_key: org.key },
    source: { ...raw.source, ...source, poll_hz: 10 },
    batch: { mode: 'start', number_pattern: 'SIM-{n:2}', charge_kg: '12', after_drop_s: 20 },
    journal: { dir: mkdtempSync(join(tmpdir(), 'fc-bridge-')), fsync_interval_ms: 200 },
    post: { interval_ms: 200, max_samples: 2000 },
  };
}

/**
 * What arrived, checked against what the bridge journaled: the completed batch's full-fidelity curve holds
 * every journaled sample exactly once, in order, and the auto-marked events at the simulated roast's times.
 */
export async function assertRoastArrived(server: TestServer, org: TestOrg, journalDir: string, batchId: string, roast: SimulatedRoast, eventTypes = ['charge', 'turning_point', 'drop'], minSamples = 150) {
  const recording = readRecording(readFileSync(join(journalDir, `${batchId}.jsonl`), 'utf8'))!;
  const journaled = recording.data.filter((d) => d.k === 's');
  assert.ok(journaled.length >= minSamples, `a whole roast read (${journaled.length} samples)`);
  const completed = await org.call('production.roast.completeRoastBatch', { id: batchId, dropWeightKg: '10.2' });
  assert.equal(completed.status, 200, JSON.stringify(completed.body));
  const link = await org.call('production.roast.getRoastCurveLink', { id: batchId, format: 'full' });
  assert.equal(link.status, 200, JSON.stringify(link.body));
  const full = await (await fetch(new URL(link.body.url, server.url))).json();
  assert.deepEqual(
    full.samples.map((s: { t: number }) => s.t),
    journaled.map((s) => s.t),
    'every journaled sample is in the curve, once, in order',
  );
  assert.deepEqual(full.samples.at(-1), { t: journaled.at(-1)!.t, bt: journaled.at(-1)!.bt, et: journaled.at(-1)!.et, ...(journaled.at(-1)!.ch ? { channels: journaled.at(-1)!.ch } : {}) });
  // Where the readings the bridge journaled show the events, on the bridge's own clock (a busy machine delays
  // the simulated drum and the bridge differently, so the simulation's wall clock is no reference): charge
  // where BT first falls steeply, drop at the hottest BT after the coolest (the turning point).
  const bt = journaled.map((s) => s.bt ?? Number.NaN);
  const fall = bt.findIndex((value, i) => i > 0 && value < bt[i - 1] - 3);
  assert.ok(fall > 0, 'the journal shows the charge’s fall in BT');
  let coolest = fall;
  for (let i = fall; i < bt.length; i++) if (bt[i] < bt[coolest]) coolest = i;
  let hottest = coolest;
  for (let i = coolest; i < bt.length; i++) if (bt[i] >= bt[hottest]) hottest = i;
  const seen = { charge: journaled[fall - 1].t, drop: journaled[hottest].t };
  const event = (type: string) => full.events.find((e: { type: string }) => e.type === type);
  assert.deepEqual(full.events.map((e: { type: string }) => e.type), eventTypes);
  const step = 100 * roast.speed;
  assert.ok(Math.abs(event('charge').t - seen.charge) <= 2 * step + 1000, `charge at ${event('charge').t}, the journal's BT falls at ${seen.charge}`);
  assert.ok(Math.abs(event('drop').t - seen.drop) <= 10_000 + 2 * step, `drop at ${event('drop').t}, the journal's hottest BT at ${seen.drop}`);
  assert.ok(event('turning_point').t > event('charge').t && event('turning_point').t < event('drop').t, 'turning point between charge and drop');
  return { full, journaled, metrics: completed.body.metrics };
}
