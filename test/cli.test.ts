import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { createTestDatabase } from '../src/testing/harness.js';

const root = new URL('..', import.meta.url).pathname;
const cli = ['--import', 'tsx', 'src/cli/main.ts'];

function embeddedEnv(dataDir: string): NodeJS.ProcessEnv {
  const { DATABASE_URL: _db, REDIS_URL: _redis, ...env } = process.env;
  return { ...env, FIRSTCRACK_DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info' };
}

function run(args: string[], env: NodeJS.ProcessEnv) {
  const result = spawnSync(process.execPath, [...cli, ...args], { cwd: root, env, encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Starts `firstcrack serve` and resolves once it listens, with everything it printed so far. */
async function serve(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const child = spawn(process.execPath, [...cli, 'serve'], { cwd: root, env });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${output}`)), 60_000);
    child.stdout!.on('data', () => {
      const m = /Firstcrack listening on (http:\/\/[\d.:]+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}:\n${output}`)));
  });
  return { child, url, output: () => output };
}

async function stop(child: ChildProcess) {
  child.kill('SIGTERM');
  if (child.exitCode === null) await once(child, 'exit');
}

const call = (url: string, key: string, operation: string, input: unknown = {}) =>
  fetch(`${url}/rpc/v1/${operation}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(input) });

test('embedded: first start creates an organization, prints its key once with a working curl', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'fc-cli-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const first = await serve(embeddedEnv(dataDir));
  const key = /^\s+(fck_[\w-]+)$/m.exec(first.output())?.[1];
  assert.ok(key, first.output());
  assert.match(first.output(), /curl -s -X POST http:\/\/127\.0\.0\.1:\d+\/rpc\/v1\/catalog\.location\.createLocation/);
  const res = await call(first.url, key!, 'catalog.location.createLocation', { name: 'Main roastery', code: 'HQ', kind: 'roastery' });
  assert.equal(res.status, 200);
  await stop(first.child);
  // Structured JSON logs carry the request id and never the secret.
  const logLines = first.output().split('\n').filter((l) => l.startsWith('{'));
  assert.ok(logLines.some((l) => JSON.parse(l).reqId?.startsWith('req_')), 'a log line carries a request id');
  assert.ok(!logLines.some((l) => l.includes(key!)), 'a log line contains the API key');

  const again = await serve(embeddedEnv(dataDir));
  assert.doesNotMatch(again.output(), /fck_/, 'the key is shown only once');
  assert.equal((await call(again.url, key!, 'catalog.location.listLocations')).status, 200);
  await stop(again.child);
});

test('embedded: org create, apikey create and revoke; refused clearly while a server holds the data directory', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'fc-cli-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = embeddedEnv(dataDir);

  const org = run(['org', 'create', '--name', 'Acme Roasters', '--plan', 'pro', '--json'], env);
  assert.equal(org.status, 0, org.stderr);
  const { organizationId, apiKey } = JSON.parse(org.stdout);
  assert.match(organizationId, /^org_/);
  assert.match(apiKey, /^fck_/);

  const key = run(['apikey', 'create', '--org', organizationId, '--role', 'viewer', '--scopes', 'catalog.*', '--json'], env);
  assert.equal(key.status, 0, key.stderr);
  const viewer = JSON.parse(key.stdout);
  assert.deepEqual(Object.keys(viewer).sort(), ['apiKey', 'id', 'role', 'scopes']);
  assert.equal(viewer.role, 'viewer');
  assert.deepEqual(viewer.scopes, ['catalog.*']);

  const badRole = run(['apikey', 'create', '--org', organizationId, '--role', 'emperor'], env);
  assert.equal(badRole.status, 2);
  assert.match(badRole.stderr, /--role must be one of/);
  const badPlan = run(['org', 'create', '--name', 'X', '--plan', 'gold'], env);
  assert.equal(badPlan.status, 2);

  const server = await serve(env);
  assert.equal((await call(server.url, viewer.apiKey, 'catalog.location.listLocations')).status, 200);
  assert.equal((await call(server.url, viewer.apiKey, 'catalog.location.createLocation', { name: 'A', code: 'A', kind: 'lab' })).status, 403);
  const blocked = run(['org', 'create', '--name', 'Intruder', '--plan', 'free', '--json'], env);
  assert.equal(blocked.status, 3);
  assert.match(blocked.stderr, /in use by a running Firstcrack server \(pid \d+\)/);
  assert.equal((await call(server.url, apiKey, 'catalog.location.listLocations')).status, 200, 'the server still works');
  await stop(server.child);

  const revoke = run(['apikey', 'revoke', viewer.id], env);
  assert.equal(revoke.status, 0, revoke.stderr);
  const restarted = await serve(env);
  assert.equal((await call(restarted.url, viewer.apiKey, 'catalog.location.listLocations')).status, 401);
  assert.equal((await call(restarted.url, apiKey, 'catalog.location.listLocations')).status, 200);
  await stop(restarted.child);
});

test('server mode: the CLI works against DATABASE_URL', async (t) => {
  if (!process.env.DATABASE_URL) return t.skip('DATABASE_URL is not set');
  const database = await createTestDatabase(process.env.DATABASE_URL);
  t.after(database.drop);
  const env = { ...process.env, DATABASE_URL: database.url };
  const migrate = run(['migrate'], env);
  assert.equal(migrate.status, 0, migrate.stderr);
  assert.match(migrate.stdout, /up to date/);
  const org = run(['org', 'create', '--name', 'Server Roasters', '--plan', 'starter', '--json'], env);
  assert.equal(org.status, 0, org.stderr);
  const { organizationId } = JSON.parse(org.stdout);
  const key = run(['apikey', 'create', '--org', organizationId, '--role', 'sales', '--json'], env);
  assert.equal(key.status, 0, key.stderr);
  assert.equal(JSON.parse(key.stdout).role, 'sales');
});

test('npx firstcrack: the package bin runs the built CLI', () => {
  const result = spawnSync(process.execPath, ['bin/firstcrack.js', 'help'], { cwd: root, encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  assert.match(result.stdout, /org create --name N --plan P/);
});
