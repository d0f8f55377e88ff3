#!/usr/bin/env node
// Runs the whole suite (or the files named) with node's test runner. Before it starts, one migrated template
// database is prepared (PostgreSQL when DATABASE_URL is set, PGlite otherwise) for every test file to clone, and
// src/ is compiled into dist/ (incremental) so that the tests which start `firstcrack` run the built CLI.
//
// The whole suite runs its slowest files first (seconds per file and database in scripts/test-durations.json): with
// two files at a time, a long file started last runs on alone at the end. `--record-durations` (whole suite, all
// passed) replaces this database's times there with this run's; every run prints its slowest files.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { randomBytes } from 'node:crypto';

const root = new URL('..', import.meta.url).pathname;
const argv = process.argv.slice(2);
const record = argv.includes('--record-durations');
const args = argv.filter((a) => a !== '--record-durations');
const database = process.env.DATABASE_URL ? 'postgres' : 'pglite';
const durationsFile = join(root, 'scripts', 'test-durations.json');
const durations = existsSync(durationsFile) ? JSON.parse(readFileSync(durationsFile, 'utf8')) : {};
const known = durations[database] ?? {};
const other = durations[database === 'pglite' ? 'postgres' : 'pglite'] ?? {};
const recorded = Object.values(known).sort((a, b) => a - b);
/** A file's recorded seconds on this database, else on the other, else the median file's (a new file). */
const expected = (file) => known[file] ?? other[file] ?? recorded[recorded.length >> 1] ?? 0;
// Named files run in the order given; the whole suite longest first.
const files = args.length
  ? args
  : [...findTests(join(root, 'src')), ...findTests(join(root, 'test'))]
      .map((f) => relative(root, f))
      .sort((a, b) => expected(b) - expected(a) || a.localeCompare(b));

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

/** Runs node with `nodeArgs` to its end; answers its exit status and, unless inherited, what it printed. */
function node(nodeArgs, options) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, nodeArgs, { cwd: root, ...options });
    let output = '';
    child.stdout?.on('data', (chunk) => (output += chunk));
    child.stderr?.on('data', (chunk) => (output += chunk));
    child.on('close', (status) => resolve({ status, output }));
  });
}

const started = Date.now();
// FIRSTCRACK_CHECK_CONTRACT: the dispatcher holds every answer, event and problem to its operation's declaration.
const env = { ...process.env, FIRSTCRACK_TEST_RUN: randomBytes(3).toString('hex'), FIRSTCRACK_CHECK_CONTRACT: '1' };
// Server mode needs its secret key; the suite is one deployment, so every process it starts shares one.
if (env.DATABASE_URL && !env.FIRSTCRACK_SECRET_KEY) env.FIRSTCRACK_SECRET_KEY = randomBytes(32).toString('base64');
// Both at once: the build is mostly a check that dist/ is current (npm ci built it), the template waits on the database.
const [prepare, build] = await Promise.all([
  node(['--import', 'tsx', 'scripts/prepare-test-template.ts'], { env }),
  node([join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', 'tsconfig.build.json'], { env }),
]);
for (const step of [prepare, build]) {
  if (step.status !== 0) {
    process.stderr.write(step.output);
    process.exit(step.status ?? 1);
  }
}
Object.assign(env, JSON.parse(prepare.output.trim().split('\n').pop()));
// dist/ is these sources compiled: src/testing/processes.ts starts the CLI from it (see CLI there).
env.FIRSTCRACK_TEST_BUILT_CLI = '1';
// Each test file's process notes its wall time here (scripts/test-wall-time.mjs).
const timesDir = mkdtempSync(join(tmpdir(), 'firstcrack-test-times-'));
env.FIRSTCRACK_TEST_TIMES = join(timesDir, 'times.jsonl');
console.log(`Testing on ${env.DATABASE_URL ? 'PostgreSQL' : 'embedded PGlite'}${env.REDIS_URL ? ' with Redis' : ''}: ${files.length} files`);

// No test may hang the run: one still going after 20 minutes fails (the slowest take about 5).
const run = await node(
  ['--import', 'tsx', '--import', join(root, 'scripts', 'test-wall-time.mjs'), '--test', `--test-concurrency=${process.env.TEST_CONCURRENCY ?? 2}`, '--test-timeout=1200000', ...files],
  { env, stdio: 'inherit' },
);

const times = existsSync(env.FIRSTCRACK_TEST_TIMES)
  ? readFileSync(env.FIRSTCRACK_TEST_TIMES, 'utf8').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line))
  : [];
rmSync(timesDir, { recursive: true, force: true });
times.sort((a, b) => b.ms - a.ms);
console.log(`\nSlowest files (wall time of each file's process; ${((Date.now() - started) / 1000).toFixed(0)} s in all):`);
for (const { file, ms } of times.slice(0, 15)) console.log(`  ${(ms / 1000).toFixed(1).padStart(6)} s  ${file}`);
if (record && run.status === 0 && !args.length) {
  const seconds = Object.fromEntries(times.map(({ file, ms }) => [file, Math.round(ms / 1000)]).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(durationsFile, JSON.stringify({ ...durations, [database]: seconds }, null, 2) + '\n');
  console.log(`Recorded ${times.length} files' times for ${database} in scripts/test-durations.json`);
}
process.exit(run.status ?? 1);
