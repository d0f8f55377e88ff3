import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer } from '../testing/harness.js';
import { Bridge } from './bridge.js';
import { parseBridgeConfig, type ModbusChannel } from './config.js';
import { assertRoastArrived, bridgeMachine, missingPeer, modbusCrc, modbusRtuSlaves, ptyPair, SimulatedRoast, testConfig } from './testing.js';

const SPEED = 40;

test('Modbus RTU (the Delta DTA layout: two slaves on one line, int16 tenths of °F) over socat pseudo-terminals: a whole roast arrives with every sample and the auto-marked events', async (t) => {
  const missing = missingPeer.socat();
  if (missing) return t.skip(missing);
  // The slaves' CRC check, on a frame whose CRC is known (read 10 holding registers from unit 1: …C5 CD on the wire).
  assert.equal(modbusCrc(Buffer.from('01030000000a', 'hex')), 0xcdc5);
  const server = await startTestServer();
  const org = await server.createOrg('enterprise');
  const machine = await bridgeMachine(org, 'RTU1');
  const roast = new SimulatedRoast(SPEED);
  const pty = await ptyPair(mkdtempSync(join(tmpdir(), 'fc-pty-')));
  // The slaves answer from this process's event loop, which the service under test (PGlite, HTTP) can hold for a
  // few hundred ms on a loaded machine: a longer timeout than the example's 400 ms keeps such a pause from
  // reading as a silent line, so any failed poll below is the line's fault.
  const raw = testConfig('modbus-rtu-delta-dta.toml', server, org, machine, { path: pty.bridgeEnd, timeout_ms: 2000 });
  const config = parseBridgeConfig(raw);
  assert.equal(config.source.kind, 'modbus-rtu');
  const map = config.channels.map as Record<string, ModbusChannel>;
  const slaves = await modbusRtuSlaves(roast, map, pty.boardEnd, raw.source.baud_rate);
  try {
    roast.restart();
    const logs: string[] = [];
    const bridge = new Bridge({ config, once: true, speed: SPEED, log: (line) => logs.push(line) });
    const [result] = await bridge.run();
    assert.equal(result.batchNumber, 'SIM-01');
    assert.deepEqual(logs.filter((line) => line.startsWith('reading ')), [], 'every poll answered');
    const { full, journaled } = await assertRoastArrived(server, org, raw.journal.dir, result.batchId!, roast);
    assert.deepEqual(slaves.badFrames(), [], 'every request frame carries a valid CRC-16');
    // ET on unit 1 and BT on unit 2 are separate requests; every sample read both.
    assert.ok(slaves.requests() >= 2 * journaled.length && slaves.frames() >= 2 * journaled.length, `${slaves.requests()} register reads for ${journaled.length} samples`);
    assert.ok(full.samples.every((s: { bt: number | null; et: number | null }) => s.bt !== null && s.et !== null), 'BT and ET in every sample');
    // Read as int16 tenths of °F and converted: every value is a tenth of a °F (to the 0.01 °C the bridge keeps),
    // and it follows the simulated drum (a sample's time is the log's, give or take one poll at 40× speed).
    const tenthsOfF = (c: number) => (c * 9) / 5 * 10 + 320;
    for (const s of journaled) for (const c of [s.bt!, s.et!]) assert.ok(Math.abs(tenthsOfF(c) - Math.round(tenthsOfF(c))) <= 0.1, `${c} °C is not a tenth of a °F`);
    const mid = full.samples[Math.floor(full.samples.length / 2)];
    const drum = roast.reading(roast.samples[0].t + mid.t - roast.holdMs * roast.speed);
    assert.ok(Math.abs(mid.bt - drum.bt) < 3 && Math.abs(mid.et - drum.et) < 3, `read ${mid.bt}/${mid.et} °C, drum ${drum.bt}/${drum.et} °C`);
    assert.equal(mid.channels, undefined, 'only ET and BT are mapped');
  } finally {
    await slaves.close();
    pty.close();
  }
});
