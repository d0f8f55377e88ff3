import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { createTestDatabase } from '../src/testing/harness.js';
import { CLI, runCommand, seedDataDir } from '../src/testing/processes.js';
import { COMMANDS } from '../src/cli/commands.js';

const root = new URL('..', import.meta.url).pathname;
const cli = CLI;

function embeddedEnv(dataDir: string): NodeJS.ProcessEnv {
  const { DATABASE_URL: _db, REDIS_URL: _redis, ...env } = process.env;
  return { ...env, FIRSTCRACK_DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info' };
}

function run(args: string[], env: NodeJS.ProcessEnv) {
  const result = spawnSync(process.execPath, [...cli, ...args], { cwd: root, env, encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** As run, without blocking, so several commands that need no database can run side by side. */
const runAsync = runCommand;

/** Starts `firstcrack serve` and resolves once it listens, with everything it printed so far. */
async function serve(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  return listening(spawn(process.execPath, [...cli, 'serve'], { cwd: root, env }));
}

async function listening(child: ChildProcess): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    // A guard against a hang, not a timing assertion: a busy machine can take a minute or more to start.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not start:\n${output}`));
    }, 240_000);
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
  const env = embeddedEnv(dataDir);
  const first = await serve(env);
  const key = /^\s+(fck_[\w-]+)$/m.exec(first.output())?.[1];
  assert.ok(key, first.output());
  const organizationId = assertFirstStartBanner(first.output());
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
  renameAsTheBannerSays(first.output(), organizationId, env);
});

/** The first-start banner names "My roastery" on the enterprise plan and the command that renames it; answers its id. */
function assertFirstStartBanner(output: string): string {
  const organizationId = /created your organization "My roastery" \((org_\w+), enterprise plan\)/.exec(output)?.[1];
  assert.ok(organizationId, output);
  assert.match(output, new RegExp(`firstcrack org rename --org ${organizationId} --name "Your roastery"`));
  return organizationId!;
}

/** Runs the rename command the banner printed (with a real name) and sees it in `org list`. */
function renameAsTheBannerSays(output: string, organizationId: string, env: NodeJS.ProcessEnv) {
  const before = run(['org', 'list', '--json'], env);
  assert.equal(before.status, 0, before.stderr);
  assert.deepEqual(JSON.parse(before.stdout).map((o: { id: string; name: string; plan: string }) => [o.id, o.name, o.plan]), [[organizationId, 'My roastery', 'enterprise']]);
  const printed = /firstcrack (org rename --org \S+ --name) "Your roastery"/.exec(output)![1].split(' ');
  const renamed = run([...printed, 'Sunrise Coffee Roasters'], env);
  assert.equal(renamed.status, 0, renamed.stderr);
  const after = JSON.parse(run(['org', 'list', '--json'], env).stdout);
  assert.deepEqual(after.map((o: { name: string; plan: string }) => [o.name, o.plan]), [['Sunrise Coffee Roasters', 'enterprise']]);
}

test('every command and command group answers --help with its own usage and exit 0', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'fc-cli-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = embeddedEnv(dataDir);
  const groups = [...new Set(COMMANDS.filter((c) => c.path.length > 1).map((c) => c.path[0]))];
  const asked = [['--help'], ['help'], ...groups.map((g) => [g, '--help']), ...COMMANDS.map((c) => [...c.path, '--help']), ['org', 'create', '--name', 'X', '-h']];
  const answers = await Promise.all(asked.map((args) => runAsync(args, env)));
  answers.forEach((answer, i) => {
    const args = asked[i];
    assert.equal(answer.status, 0, `${args.join(' ')}: ${answer.stderr}`);
    assert.equal(answer.stderr, '', args.join(' '));
    const named = args[0] === '--help' || args[0] === 'help' ? '<command>' : args.filter((a) => !a.startsWith('-') && a !== 'X').join(' ');
    assert.ok(answer.stdout.startsWith(`Usage: firstcrack ${named}`), `${args.join(' ')} printed:\n${answer.stdout}`);
  });
  // Command help lists each option; group help lists each member.
  assert.match(answers[asked.findIndex((a) => a.join(' ') === 'org create --help')].stdout, /--plan P +the plan: free, starter, pro, enterprise \(required\)/);
  assert.match(answers[asked.findIndex((a) => a.join(' ') === 'apikey --help')].stdout, /apikey list --org ID \[--json\]/);
  assert.ok(!existsSync(join(dataDir, 'pgdata')), 'help opened no database');
});

test('usage errors are one line on stderr with exit code 2, never a stack trace', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'fc-cli-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = embeddedEnv(dataDir);
  const cases: [string[], RegExp][] = [
    [['org', 'create', '--name', 'X', '--plan', 'pro', '--colour', 'red'], /unknown option --colour \(see `firstcrack org create --help`\)/],
    [['org', 'create', '--plan', 'pro', '--name'], /--name needs a value/],
    [['org', 'create', '--name', '--plan', 'pro'], /--name needs a value/],
    [['org', 'create', '--plan', 'pro'], /--name is required/],
    [['org', 'create', '--name', 'X', '--plan', 'gold'], /--plan must be one of free, starter, pro, enterprise/],
    [['org', 'list', '--json=yes'], /--json takes no value/],
    [['org', 'list', 'everything'], /unexpected argument 'everything'/],
    [['org'], /org needs a command: create, list, rename, set-plan/],
    [['org', 'delete'], /unknown command 'org delete' \(see `firstcrack org --help`\)/],
    [['apikey'], /apikey needs a command: create, list, revoke/],
    [['launch'], /unknown command 'launch'/],
    [['help', 'launch'], /no command launch/],
    [['apikey', 'revoke'], /apikey revoke needs ID/],
    [['apikey', 'revoke', 'key_a', 'key_b'], /unexpected argument 'key_b'/],
    [['apikey', 'create', '--org', 'org_x', '--role', 'emperor'], /--role must be one of owner, admin/],
    [['apikey', 'list'], /--org is required/],
    [['org', 'set-plan', '--org', 'org_x', '--plan', 'platinum'], /--plan must be one of/],
  ];
  const answers = await Promise.all(cases.map(([args]) => runAsync(args, env)));
  answers.forEach((answer, i) => {
    const [args, message] = cases[i];
    assert.equal(answer.status, 2, `${args.join(' ')}: ${answer.stdout}${answer.stderr}`);
    assert.equal(answer.stdout, '', args.join(' '));
    assert.equal(answer.stderr.trimEnd().split('\n').length, 1, `${args.join(' ')} printed more than one line:\n${answer.stderr}`);
    assert.match(answer.stderr, /^firstcrack: /);
    assert.match(answer.stderr, message);
  });
  assert.ok(!existsSync(join(dataDir, 'pgdata')), 'no usage error opened the database');
});

/** The administration commands against one database: list, rename, re-plan, list keys, refuse a useless key. */
function administer(env: NodeJS.ProcessEnv) {
  const created = run(['org', 'create', '--name', 'Acme Roasters', '--plan', 'pro', '--json'], env);
  assert.equal(created.status, 0, created.stderr);
  const { organizationId, apiKey } = JSON.parse(created.stdout);

  const table = run(['org', 'list'], env);
  assert.equal(table.status, 0, table.stderr);
  assert.match(table.stdout, /^ID +PLAN +CREATED +NAME$/m);
  assert.match(table.stdout, new RegExp(`^${organizationId} +pro +\\d{4}-\\d\\d-\\d\\dT[\\d:]+Z +Acme Roasters$`, 'm'));

  const renamed = run(['org', 'rename', '--org', organizationId, '--name', '  Acme Coffee  ', '--json'], env);
  assert.equal(renamed.status, 0, renamed.stderr);
  assert.equal(JSON.parse(renamed.stdout).name, 'Acme Coffee', 'the name is stored trimmed');
  const replanned = run(['org', 'set-plan', '--org', organizationId, '--plan', 'starter'], env);
  assert.equal(replanned.status, 0, replanned.stderr);
  assert.match(replanned.stdout, /now on the starter plan/);
  const zoned = run(['org', 'set-timezone', '--org', organizationId, '--timezone', 'Europe/Berlin'], env);
  assert.equal(zoned.status, 0, zoned.stderr);
  assert.match(zoned.stdout, /now prints times in Europe\/Berlin/);
  for (const [args, message] of [
    [['org', 'set-timezone', '--org', organizationId, '--timezone', 'Mars/Olympus_Mons'], /not an IANA time zone/],
    [['org', 'set-timezone', '--org', 'org_missing', '--timezone', 'UTC'], /no organization org_missing/],
    [['org', 'rename', '--org', organizationId, '--name', '   '], /organization name must not be empty/],
    [['org', 'rename', '--org', organizationId, '--name', 'x'.repeat(201)], /at most 200 characters/],
    [['org', 'rename', '--org', 'org_missing', '--name', 'Ghost'], /no organization org_missing/],
    [['org', 'set-plan', '--org', 'org_missing', '--plan', 'free'], /no organization org_missing/],
  ] as const) {
    const refused = run([...args], env);
    assert.equal(refused.status, 2, `${args.join(' ')}: ${refused.stdout}`);
    assert.match(refused.stderr, message);
    assert.equal(refused.stderr.trimEnd().split('\n').length, 1);
  }
  const listed = JSON.parse(run(['org', 'list', '--json'], env).stdout).find((o: { id: string }) => o.id === organizationId);
  assert.deepEqual([listed.name, listed.plan], ['Acme Coffee', 'starter'], 'refused commands changed nothing');

  // A key whose scopes leave its role nothing is refused, as is a scope naming no permission; neither is stored.
  const useless = run(['apikey', 'create', '--org', organizationId, '--role', 'cafe', '--scopes', 'quality.*'], env);
  assert.equal(useless.status, 2, useless.stdout);
  assert.match(useless.stderr, /^firstcrack: The scopes quality\.\* leave a cafe key no permission/);
  assert.equal(useless.stderr.trimEnd().split('\n').length, 1);
  const unknownScope = run(['apikey', 'create', '--org', organizationId, '--role', 'viewer', '--scopes', 'espresso.*'], env);
  assert.equal(unknownScope.status, 2);
  assert.match(unknownScope.stderr, /Unknown scope espresso\.\*/);
  const noOrg = run(['apikey', 'create', '--org', 'org_missing', '--role', 'viewer'], env);
  assert.equal(noOrg.status, 2);
  assert.match(noOrg.stderr, /no organization org_missing/);

  const narrowed = run(['apikey', 'create', '--org', organizationId, '--role', 'cafe', '--scopes', 'cafe.read,quality.*', '--json'], env);
  assert.equal(narrowed.status, 0, narrowed.stderr);
  const cafeKey = JSON.parse(narrowed.stdout);
  assert.equal(run(['apikey', 'revoke', cafeKey.id], env).status, 0);

  const keys = run(['apikey', 'list', '--org', organizationId, '--json'], env);
  assert.equal(keys.status, 0, keys.stderr);
  const rows = JSON.parse(keys.stdout);
  assert.deepEqual(
    rows.map((k: { role: string; scopes: string[]; label: string | null; revokedAt: string | null }) => [k.role, k.scopes, k.label, k.revokedAt === null]),
    [['owner', [], 'owner key', true], ['cafe', ['cafe.read', 'quality.*'], null, false]],
  );
  assert.deepEqual(Object.keys(rows[0]).sort(), ['createdAt', 'id', 'label', 'revokedAt', 'role', 'scopes']);
  const keyTable = run(['apikey', 'list', '--org', organizationId], env);
  assert.match(keyTable.stdout, /^ID +ROLE +SCOPES +CREATED +REVOKED +LABEL$/m);
  assert.match(keyTable.stdout, new RegExp(`^${cafeKey.id} +cafe +cafe\\.read,quality\\.\\* +\\S+ +\\d{4}-\\S+Z$`, 'm'));
  for (const output of [keys.stdout, keyTable.stdout]) {
    assert.ok(!output.includes(apiKey) && !output.includes(cafeKey.apiKey) && !output.includes('fck_'), 'apikey list shows no secret');
  }
  const missing = run(['apikey', 'list', '--org', 'org_missing'], env);
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /no organization org_missing/);
}

test('embedded: org list, rename, set-plan and apikey list; a key left no permission is refused', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'fc-cli-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  await seedDataDir(dataDir); // migrated: the first start's migration is the first test's
  administer(embeddedEnv(dataDir));
});

const lockHolder = (dataDir: string) => Number(readFileSync(join(dataDir, 'firstcrack.lock'), 'utf8').split(' ')[0]);

test('embedded: after kill -9 a restart takes the data directory over at once; a live server still holds it', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'fc-cli-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  await seedDataDir(dataDir); // migrated: the first start's migration is the first test's
  const env = embeddedEnv(dataDir);
  const killed = await serve(env);
  assert.equal(lockHolder(dataDir), killed.child.pid);
  killed.child.kill('SIGKILL');
  await once(killed.child, 'exit');

  const restarted = await serve(env);
  assert.doesNotMatch(restarted.output(), /in use/);
  const second = spawnSync(process.execPath, [...cli, 'serve'], { cwd: root, env, encoding: 'utf8' });
  assert.equal(second.status, 3, 'a second server is refused while the first runs');
  assert.match(second.stderr, new RegExp(`in use by a running Firstcrack server \\(pid ${restarted.child.pid}\\)`));
  await stop(restarted.child);
  assert.ok(!existsSync(join(dataDir, 'firstcrack.lock')), 'a clean stop releases the lock');

  // A lock naming a live process: refused. The same pid with another start time is a reused pid: taken over.
  writeFileSync(join(dataDir, 'firstcrack.lock'), String(process.pid));
  const refused = run(['org', 'list'], env);
  assert.equal(refused.status, 3);
  assert.match(refused.stderr, new RegExp(`in use by a running Firstcrack server \\(pid ${process.pid}\\)`));
  if (existsSync('/proc/self/stat')) {
    writeFileSync(join(dataDir, 'firstcrack.lock'), `${process.pid} 1`);
    const reused = run(['org', 'list'], env);
    assert.equal(reused.status, 0, reused.stderr);
  }
});

test('embedded: a server killed while its parent does not reap it (a zombie) does not hold the data directory', async (t) => {
  if (!existsSync('/proc/self/stat')) return t.skip('needs /proc to see a zombie');
  const dataDir = mkdtempSync(join(tmpdir(), 'fc-cli-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  await seedDataDir(dataDir); // migrated: the first start's migration is the first test's
  const env = embeddedEnv(dataDir);
  // sh starts the server in the background and becomes `sleep`, which never waits for its children.
  const parent = spawn('sh', ['-c', '"$0" "$@" & exec sleep 600', process.execPath, ...cli, 'serve'], { cwd: root, env, detached: true });
  t.after(() => process.kill(-parent.pid!, 'SIGKILL')); // sleep and, should the test fail early, the server
  await listening(parent);
  const pid = lockHolder(dataDir);
  assert.notEqual(pid, parent.pid);
  process.kill(pid, 'SIGKILL');
  const state = () => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1][0];
  while (state() !== 'Z') await new Promise((resolve) => setTimeout(resolve, 50));

  const restarted = await serve(env);
  assert.doesNotMatch(restarted.output(), /in use/);
  assert.equal(lockHolder(dataDir), restarted.child.pid);
  await stop(restarted.child);
});

test('embedded: org create, apikey create and revoke; refused clearly while a server holds the data directory', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'fc-cli-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  await seedDataDir(dataDir); // migrated: the first start's migration is the first test's
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
  administer(env);
});

test('server mode: the first start on an empty database names the organization and how to rename it', async (t) => {
  if (!process.env.DATABASE_URL) return t.skip('DATABASE_URL is not set');
  const database = await createTestDatabase(process.env.DATABASE_URL);
  t.after(database.drop);
  const { REDIS_URL: _redis, ...rest } = process.env;
  const env = { ...rest, DATABASE_URL: database.url, PORT: '0', FIRSTCRACK_SECRET_KEY: randomBytes(32).toString('base64') };
  const first = await serve(env);
  const organizationId = assertFirstStartBanner(first.output());
  await stop(first.child);
  renameAsTheBannerSays(first.output(), organizationId, env);
});

test('server mode: serve without FIRSTCRACK_SECRET_KEY stops at start naming it (exit 2), as lists could not page', async (t) => {
  if (!process.env.DATABASE_URL) return t.skip('DATABASE_URL is not set');
  const database = await createTestDatabase(process.env.DATABASE_URL);
  t.after(database.drop);
  const { REDIS_URL: _redis, FIRSTCRACK_SECRET_KEY: _key, ...rest } = process.env;
  for (const [key, message] of [
    [undefined, /FIRSTCRACK_SECRET_KEY must be set in server mode/],
    ['c2hvcnQ=', /FIRSTCRACK_SECRET_KEY/],
  ] as const) {
    const result = await runAsync(['serve'], { ...rest, DATABASE_URL: database.url, PORT: '0', ...(key ? { FIRSTCRACK_SECRET_KEY: key } : {}) });
    assert.equal(result.status, 2, result.stdout + result.stderr);
    assert.match(result.stderr, message);
    assert.doesNotMatch(result.stdout, /listening/);
  }
});

test('npx firstcrack: the package bin runs the built CLI', () => {
  const result = spawnSync(process.execPath, ['bin/firstcrack.js', 'help'], { cwd: root, encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  assert.match(result.stdout, /org create --name N --plan P/);
});
