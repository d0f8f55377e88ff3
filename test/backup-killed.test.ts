import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { startTestServer, type TestServer } from '../src/testing/harness.js';
import { runCommand } from '../src/testing/processes.js';
import { backup, pruneBackups, restore, scheduledBackupName } from '../src/db/backup.js';
import { PostgresDatabase } from '../src/db/client.js';
import { FsBlobStore, blobDir } from '../src/blobs/fs.js';
import { withDatabase } from '../src/testing/template.js';

/**
 * `firstcrack backup` killed with SIGKILL mid-way (README "A backup killed mid-way"): no file that looks
 * complete is left, the running service is not left paused, a partial never counts among `--keep N` nor
 * pushes a good backup out, and the next run succeeds, removes what the dead run left, and restores.
 *
 * To catch the run mid-way without a test-only seam in the code, the data directory holds a 24 MB blob of
 * random bytes (gzip cannot shrink it, so packing the file takes a while), and the test watches for the
 * dead-to-be process's own staging folder or partial (their names carry its pid) and kills it then.
 */

const work = mkdtempSync(join(tmpdir(), 'fc-backup-killed-'));
after(() => rmSync(work, { recursive: true, force: true }));
const embedded = !process.env.DATABASE_URL;

const source: TestServer = await startTestServer({ onDisk: embedded ? join(work, 'source') : undefined });
const dataDir = source.config.dataDir;
const org = await source.createOrg('enterprise', 'Killed backup roastery');
const marker = await org.call('catalog.location.createLocation', { name: 'Before the backups', code: 'KILLED-1', kind: 'warehouse' });
assert.equal(marker.status, 200, JSON.stringify(marker.body));
const ballast = randomBytes(24 << 20);
await new FsBlobStore(blobDir(dataDir)).put('test/ballast.bin', ballast);

const backups = join(work, 'backups');
mkdirSync(backups);
const env = {
  ...process.env,
  FIRSTCRACK_DATA_DIR: dataDir,
  LOG_LEVEL: 'silent',
  ...(embedded ? {} : { DATABASE_URL: source.config.databaseUrl, DATABASE_APP_URL: source.config.databaseAppUrl, FIRSTCRACK_SECRET_KEY: source.config.secretKey }),
};

const complete = () => readdirSync(backups).filter((name) => /^firstcrack-.*\.tar\.gz$/.test(name));
const stagingOf = (pid: number) => readdirSync(dataDir).filter((name) => name.startsWith(`backup-staging-${pid}-`));
const partialsOf = (pid: number) => readdirSync(backups).filter((name) => name.includes(`.firstcrack-${pid}-`) && name.endsWith('.partial'));

/**
 * Starts `firstcrack backup --dir backups --keep 1` and SIGKILLs it once `caught` sees it mid-way (polled
 * every millisecond or so); fails if it finishes first.
 */
async function killMidway(caught: (pid: number) => boolean): Promise<number> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'backup', '--dir', backups, '--keep', '1'], {
    cwd: new URL('..', import.meta.url).pathname,
    env,
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  let exited = false;
  const exit = once(child, 'exit').then(() => (exited = true));
  const pid = child.pid!;
  while (!exited && !caught(pid)) await new Promise((resolve) => setTimeout(resolve, 1));
  assert.ok(!exited, `the backup ended before it was caught mid-way:\n${output}`);
  child.kill('SIGKILL');
  await exit;
  assert.equal(child.signalCode, 'SIGKILL');
  return pid;
}

async function assertServes(): Promise<void> {
  const res = await org.call('catalog.location.createLocation', { name: 'After a kill', code: `K-${randomBytes(3).toString('hex')}`, kind: 'warehouse' });
  assert.equal(res.status, 200, `the service answers writes after the backup was killed: ${JSON.stringify(res.body)}`);
}

test('a backup killed while packing its file leaves no complete-looking file, keeps the good one, and the next run cleans up and restores', async () => {
  // A good backup already in the folder, older than any the CLI names now.
  const good = join(backups, scheduledBackupName(new Date(Date.now() - 86_400_000)));
  await backup(source.config, good);

  const pid = await killMidway((p) => partialsOf(p).length > 0);
  assert.deepEqual(complete(), [good.slice(backups.length + 1)], 'no file that looks complete was added; the good one stays');
  assert.equal(partialsOf(pid).length, 1, 'the partial names the dead process');
  assert.equal(stagingOf(pid).length, 1, 'the dead run’s staging folder is left in the data directory');
  assert.deepEqual(pruneBackups(backups, 1), [], 'a partial is not counted among the newest N: the good one is kept');
  await assertServes();

  const next = await runCommand(['backup', '--dir', backups, '--keep', '1', '--json'], env);
  assert.equal(next.status, 0, next.stderr);
  const result = JSON.parse(next.stdout);
  assert.equal(result.cleaned.length, 2, `the dead run's staging folder and partial were removed: ${next.stdout}`);
  assert.deepEqual(result.removed, [good.slice(backups.length + 1)], 'the good one is pushed out only by a new complete backup');
  assert.deepEqual(readdirSync(backups), [result.file.slice(backups.length + 1)], 'only the new backup is left; no partial');
  assert.deepEqual(readdirSync(dataDir).filter((name) => name.startsWith('backup-staging-')), [], 'no staging folder is left');

  // It restores, with the data and the blobs.
  const restoredDir = join(work, 'restored');
  let restoredUrl: string | undefined;
  if (!embedded) {
    const name = `fc_test_killed_${randomBytes(5).toString('hex')}`;
    const admin = PostgresDatabase.open(process.env.DATABASE_URL!, 1);
    await admin.query(`create database ${name}`);
    restoredUrl = withDatabase(process.env.DATABASE_URL!, name);
    after(async () => {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.close();
    });
  }
  await restore({ ...source.config, dataDir: restoredDir, ...(restoredUrl ? { databaseUrl: restoredUrl } : {}) }, result.file);
  const target = await startTestServer({
    onDisk: embedded ? restoredDir : undefined,
    databaseUrl: restoredUrl,
    config: { secretKey: source.config.secretKey, ...(embedded ? {} : { dataDir: restoredDir }) },
  });
  const got = await target.call(org.key, 'catalog.location.getLocation', { id: marker.body.id }, { method: 'GET' });
  assert.equal(got.status, 200, JSON.stringify(got.body));
  assert.equal(got.body.code, 'KILLED-1');
  assert.ok(ballast.equals((await new FsBlobStore(blobDir(restoredDir)).get('test/ballast.bin'))!), 'the blob came back whole');
});

test('embedded: a backup killed while the service copies for it leaves the service serving and its copy removed', { skip: !embedded }, async () => {
  // Caught while the service copies the data directory for it over the control socket: the staging folder
  // exists, the client has not yet written its manifest there (it does so once the service answered).
  const pid = await killMidway((p) => {
    const [staging] = stagingOf(p);
    return staging !== undefined && !existsSync(join(dataDir, staging, 'manifest.json'));
  });
  assert.deepEqual(partialsOf(pid), [], 'killed before packing began');
  await assertServes();
  // The service notices its client is gone (the socket closed), stops the copy and removes it.
  for (let i = 0; i < 600 && stagingOf(pid).length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 100));
  assert.deepEqual(stagingOf(pid), [], 'the service removed the copy its dead client asked for');
  await assertServes();

  // A later backup through the same service works.
  const after = await backup(source.config, join(work, 'after-kill.tar.gz'));
  assert.equal(after.throughServer, true);
  assert.ok(after.pauseMs !== undefined, 'the next backup went through the service');
});

test('a dead run’s leftovers are removed by the service at start; a live run’s are not', { skip: !embedded }, async () => {
  const { openDatabases } = await import('../src/db/open.js');
  const dir = join(work, 'start');
  mkdirSync(dir);
  // A process that has exited: its pid is not running (nor reused yet, in the moment this takes).
  const dead = spawn(process.execPath, ['-e', '0']);
  await once(dead, 'exit');
  const deadStaging = join(dir, `backup-staging-${dead.pid}-${randomBytes(6).toString('hex')}`);
  const running = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 120000)']);
  after(() => running.kill());
  const liveStaging = join(dir, `backup-staging-${running.pid}-${randomBytes(6).toString('hex')}`);
  for (const path of [deadStaging, liveStaging]) {
    mkdirSync(path);
    writeFileSync(join(path, 'manifest.json'), '{}');
  }
  const dbs = await openDatabases({ ...source.config, dataDir: dir }, { migrate: false, control: false });
  await dbs.close();
  assert.equal(existsSync(deadStaging), false, 'the dead run’s staging folder is removed at start');
  assert.equal(existsSync(liveStaging), true, 'a running process’s staging folder is kept');
});
