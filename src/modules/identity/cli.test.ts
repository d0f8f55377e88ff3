import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase } from '../../testing/harness.js';
import { CLI, seedDataDir } from '../../testing/processes.js';

const root = new URL('../../../', import.meta.url).pathname;

/** The CLI against a fresh PostgreSQL database when DATABASE_URL is set, else a fresh embedded data directory. */
async function environment(): Promise<NodeJS.ProcessEnv> {
  const { DATABASE_URL, REDIS_URL: _redis, ...env } = process.env;
  const dataDir = mkdtempSync(join(tmpdir(), 'fc-identity-cli-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));
  const base = { ...env, FIRSTCRACK_DATA_DIR: dataDir, LOG_LEVEL: 'silent', FIRSTCRACK_BASE_URL: 'https://roast.example' };
  if (!DATABASE_URL) {
    await seedDataDir(dataDir);
    return base;
  }
  const database = await createTestDatabase(DATABASE_URL);
  after(() => database.drop());
  return { ...base, DATABASE_URL: database.url, FIRSTCRACK_SECRET_KEY: randomBytes(32).toString('base64') };
}

test('oauth-client, keys and user commands (memberships added and removed): JSON answers, secrets once, mistakes are exit 2', async () => {
  const env = await environment();
  const run = (...args: string[]) => {
    const result = spawnSync(process.execPath, [...CLI, ...args], { cwd: root, env, encoding: 'utf8' });
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  };
  const json = (result: ReturnType<typeof run>) => {
    assert.equal(result.status, 0, result.stderr);
    return JSON.parse(result.stdout);
  };
  const refused = (result: ReturnType<typeof run>, pattern: RegExp) => {
    assert.equal(result.status, 2, result.stdout + result.stderr);
    assert.match(result.stderr, pattern);
    assert.equal(result.stderr.trim().split('\n').length, 1, 'one line, no stack trace');
  };

  const { organizationId } = json(run('org', 'create', '--name', 'CLI roastery', '--plan', 'pro', '--json'));
  const client = json(run('oauth-client', 'create', '--org', organizationId, '--role', 'viewer', '--scopes', 'catalog.*', '--json'));
  assert.deepEqual(Object.keys(client).sort(), ['clientId', 'clientSecret']);
  assert.match(client.clientSecret, /^fccs_/);
  refused(run('oauth-client', 'create', '--org', organizationId, '--role', 'viewer', '--scopes', 'nonsense.read'), /Unknown scope nonsense\.read/);
  refused(run('oauth-client', 'create', '--org', organizationId, '--role', 'wizard'), /--role must be one of/);
  refused(run('oauth-client', 'create', '--org', 'org_missing', '--role', 'viewer'), /no organization org_missing/);
  const listed = json(run('oauth-client', 'list', '--org', organizationId, '--json'));
  assert.deepEqual(listed.map((c: { clientId: string }) => c.clientId), [client.clientId]);
  assert.ok(!JSON.stringify(listed).includes(client.clientSecret), 'the list never shows the secret');

  const first = json(run('keys', 'rotate', '--json'));
  const second = json(run('keys', 'rotate', '--json'));
  assert.deepEqual(second.retired, [first.kid], 'the previous key stops signing');

  const user = json(run('user', 'create', '--email', 'roaster@example.com', '--org', organizationId, '--role', 'admin', '--json'));
  assert.match(user.userId, /^usr_/);
  assert.match(user.loginLink, /^https:\/\/roast\.example\/app\/#loginToken=fcl_/);
  assert.deepEqual(json(run('user', 'create', '--email', 'pw@example.com', '--org', organizationId, '--role', 'viewer', '--password', 'a long enough password', '--json')).loginLink, undefined);
  refused(run('user', 'create', '--email', 'ROASTER@example.com', '--org', organizationId, '--role', 'admin'), /exists already/);
  const { organizationId: secondOrg } = json(run('org', 'create', '--name', 'Second', '--plan', 'pro', '--json'));
  assert.equal(run('user', 'add-membership', '--user', user.userId, '--org', secondOrg, '--role', 'viewer').status, 0);
  refused(run('user', 'add-membership', '--user', 'usr_missing', '--org', secondOrg, '--role', 'viewer'), /No user usr_missing/);
  const removed = run('user', 'remove-membership', '--user', user.userId, '--org', secondOrg);
  assert.equal(removed.status, 0, removed.stderr);
  assert.match(removed.stdout, /no longer a member/);
  refused(run('user', 'remove-membership', '--user', user.userId, '--org', secondOrg), /is not a member of/);
  refused(run('user', 'reset-password', '--user', user.userId, '--password', 'short'), /12 to 1024/);
  assert.deepEqual(json(run('user', 'reset-password', '--user', user.userId, '--password', 'another long password', '--json')), {});
  assert.match(json(run('user', 'reset-password', '--user', user.userId, '--json')).loginLink, /#loginToken=fcl_/);

  assert.equal(run('oauth-client', 'revoke', '--org', organizationId, client.clientId).status, 0);
  refused(run('oauth-client', 'revoke', '--org', organizationId, client.clientId), /no live OAuth client/);
  const afterRevoke = json(run('oauth-client', 'list', '--org', organizationId, '--json'));
  assert.equal(typeof afterRevoke[0].revokedAt, 'string');
});
