#!/usr/bin/env node
// Runs the whole suite with node's test runner. Before it starts, one migrated template database is
// prepared (PostgreSQL when DATABASE_URL is set, PGlite otherwise) for every test file to clone.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { randomBytes } from 'node:crypto';

const root = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);
const files = args.length ? args : [...findTests(join(root, 'src')), ...findTests(join(root, 'test'))].map((f) => relative(root, f));

function findTests(dir) {
  let out = [];
  let entries = [];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out = out.concat(findTests(p));
    else if (e.name.endsWith('.test.ts')) out.push(p);
  }
  return out.sort();
}

// FIRSTCRACK_CHECK_CONTRACT: the dispatcher holds every answer, event and problem to its operation's declaration.
const env = { ...process.env, FIRSTCRACK_TEST_RUN: randomBytes(3).toString('hex'), FIRSTCRACK_CHECK_CONTRACT: '1' };
// Server mode needs its secret key; the suite is one deployment, so every process it starts shares one.
if (env.DATABASE_URL && !env.FIRSTCRACK_SECRET_KEY) env.FIRSTCRACK_SECRET_KEY = randomBytes(32).toString('base64');
const prepare = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/prepare-test-template.ts'], { cwd: root, env, encoding: 'utf8' });
if (prepare.status !== 0) {
  process.stderr.write(prepare.stdout + prepare.stderr);
  process.exit(prepare.status ?? 1);
}
Object.assign(env, JSON.parse(prepare.stdout.trim().split('\n').pop()));
console.log(`Testing on ${env.DATABASE_URL ? 'PostgreSQL' : 'embedded PGlite'}${env.REDIS_URL ? ' with Redis' : ''}: ${files.length} files`);

const run = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', `--test-concurrency=${process.env.TEST_CONCURRENCY ?? 2}`, ...files],
  { cwd: root, env, stdio: 'inherit' },
);
process.exit(run.status ?? 1);
