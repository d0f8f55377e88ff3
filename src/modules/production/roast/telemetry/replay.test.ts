import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startTestServer } from '../../../../testing/harness.js';
import { runCommand } from '../../../../testing/processes.js';
import { importRoastLog } from './importers/index.js';
import { replayRoast } from './replay.js';
import { machineWithToken } from './testing.js';

const LOG = new URL('../../../../../../shared/fixtures/roast-logs/profile2.alog', import.meta.url).pathname;

const cli = (args: string[], env: NodeJS.ProcessEnv = process.env) => runCommand(args, env);

test('replay-roast: --help, and mistakes answered with one line and exit 2', async () => {
  const help = await cli(['replay-roast', '--help']);
  assert.equal(help.status, 0, help.stderr);
  assert.match(help.stdout, /replay-roast --file PATH --machine ID/);
  const { FIRSTCRACK_API_KEY: _key, ...noKey } = process.env;
  const cases: [string[], RegExp][] = [
    [['replay-roast', '--machine', 'mch_x', '--api-key', 'fck_x'], /--file/],
    [['replay-roast', '--file', LOG, '--machine', 'mch_x', '--api-key', 'fck_x', '--speed', 'fast'], /--speed must be a number/],
    [['replay-roast', '--file', LOG, '--machine', 'mch_x'], /--api-key/],
    [['replay-roast', '--file', '/nonexistent.alog', '--machine', 'mch_x', '--api-key', 'fck_x'], /no file/],
  ];
  for (const [args, message] of cases) {
    const res = await cli(args, noKey);
    assert.equal(res.status, 2, `${args.join(' ')}: ${res.stderr}`);
    assert.match(res.stderr, message);
    assert.equal(res.stderr.trim().split('\n').length <= 2, true, `one line (and a hint) for ${args.join(' ')}: ${res.stderr}`);
  }
});

test('replaying a log posts every sample and event once through the bridge channel, and the batch completes with its metrics', async () => {
  const server = await startTestServer();
  const org = await server.createOrg('enterprise');
  const { machineId, token } = await machineWithToken(org, 'RPL');
  const content = readFileSync(LOG, 'utf8');
  const expected = importRoastLog(content).curve;
  const progress: number[] = [];
  const result = await replayRoast({
    baseUrl: server.url,
    token: org.key,
    machineId,
    bridgeToken: token,
    content,
    speed: 1000,
    tickMs: 20,
    batchNumber: 'RPL-1',
    chargeWeightKg: '12',
    complete: true,
    dropWeightKg: '10.2',
    onProgress: (p) => progress.push(p.samplesSent),
  });
  assert.equal(result.samples, expected.samples.length);
  assert.ok(result.posts > 1, `the samples went in several posts as they fell due (${result.posts})`);
  assert.deepEqual(progress, [...progress].sort((a, b) => a - b), 'progress only grows');
  const batch = await org.call('production.roast.getRoastBatch', { id: result.batchId });
  assert.equal(batch.status, 200, JSON.stringify(batch.body));
  assert.equal(batch.body.state, 'completed');
  assert.equal(batch.body.batchNumber, 'RPL-1');
  assert.equal(batch.body.curve.fullSampleCount, expected.samples.length, 'every sample stored once');
  const curve = await org.call('production.roast.getRoastCurve', { id: result.batchId });
  assert.deepEqual(
    curve.body.events.map((e: { type: string }) => e.type),
    expected.events.map((e) => e.type),
  );
  const firstCrackS = Math.round(expected.events.find((e) => e.type === 'first_crack_start')!.t) / 1000;
  assert.ok(Math.abs(batch.body.metrics.firstCrackStartS - firstCrackS) < 0.01, `first crack at ${batch.body.metrics.firstCrackStartS} s, logged at ${firstCrackS} s`);
});

test('the replay command starts a live batch with a bridge token of its own and leaves it live', async () => {
  const server = await startTestServer();
  const org = await server.createOrg('enterprise');
  const machine = await org.call('catalog.machine.registerMachine', { name: 'Replay roaster', code: 'RPL-CLI', connectivity: 'bridge' });
  assert.equal(machine.status, 200, JSON.stringify(machine.body));
  const res = await cli(['replay-roast', '--file', LOG, '--machine', machine.body.id, '--speed', '1000', '--url', server.url, '--json'], {
    ...process.env,
    FIRSTCRACK_API_KEY: org.key,
  });
  assert.equal(res.status, 0, res.stderr);
  const result = JSON.parse(res.stdout.trim().split('\n').pop()!);
  assert.equal(result.completed, false);
  const batch = await org.call('production.roast.getRoastBatch', { id: result.batchId });
  assert.equal(batch.body.state, 'live');
  const curve = await org.call('production.roast.getRoastCurve', { id: result.batchId });
  assert.equal(curve.body.samples.length, result.samples, 'the live session holds every sample');

  const refused = await cli(['replay-roast', '--file', LOG, '--machine', 'mch_doesnotexist', '--speed', '1000', '--url', server.url], {
    ...process.env,
    FIRSTCRACK_API_KEY: org.key,
  });
  assert.equal(refused.status, 2, refused.stderr);
  assert.match(refused.stderr, /not_found/);
});
