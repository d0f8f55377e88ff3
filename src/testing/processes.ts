import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PgliteDatabase } from '../db/client.js';
import { preparePgliteTemplate } from './template.js';

/**
 * Firstcrack processes started the way an operator starts them (the CLI, `serve` or `worker`), for tests of
 * several processes sharing one PostgreSQL database (and Redis). PGlite is one process's database, so such
 * tests skip without DATABASE_URL.
 */
const root = new URL('../..', import.meta.url).pathname;

/**
 * The node arguments that start `firstcrack` (from the checkout's root). scripts/run-tests.mjs compiles src/ into
 * dist/ (tsc -b, incremental) before the suite and sets FIRSTCRACK_TEST_BUILT_CLI=1: the tests then run the built
 * JavaScript, as `npx firstcrack` and `npm start` do. A file run on its own (no fresh build promised) starts the
 * TypeScript under tsx, which compiles the CLI's whole import graph at every start: seconds per command where the
 * built CLI takes a fraction, and the CLI tests start dozens of commands.
 */
export const CLI: readonly string[] =
  process.env.FIRSTCRACK_TEST_BUILT_CLI === '1' ? [join(root, 'dist', 'cli', 'main.js')] : ['--import', 'tsx', join(root, 'src', 'cli', 'main.ts')];

let migratedPgdata: Promise<string> | undefined;

/**
 * Gives an embedded data directory the suite's migrated PGlite database (the template the harness clones, also in
 * server mode, where the embedded CLI tests still run): a command there finds every migration applied, as on any
 * start after the first, instead of migrating a fresh PGlite, which is most of a first command's time. The template
 * is loaded once per test file into a cleanly closed data directory and copied from there. The test of the first
 * start itself keeps an empty directory.
 */
export async function seedDataDir(dataDir: string): Promise<void> {
  migratedPgdata ??= (async () => {
    const template = process.env.FIRSTCRACK_TEST_PGLITE_TEMPLATE ?? (await preparePgliteTemplate());
    const pgdata = join(mkdtempSync(join(tmpdir(), 'fc-migrated-')), 'pgdata');
    const db = await PgliteDatabase.open({ dataDir: pgdata, loadDataDir: new Blob([readFileSync(template)]) });
    await db.close();
    process.once('exit', () => rmSync(dirname(pgdata), { recursive: true, force: true }));
    return pgdata;
  })();
  const pgdata = await migratedPgdata;
  if (!existsSync(join(dataDir, 'pgdata'))) cpSync(pgdata, join(dataDir, 'pgdata'), { recursive: true });
}

/** `serve` printed its address; group 1 is the base URL. */
export const SERVE_READY = /Firstcrack listening on (http:\/\/[\d.:]+)/;
/** `serve --no-workers` on PostgreSQL. */
export const API_ONLY_READY = /Firstcrack listening on (http:\/\/[\d.:]+) \(PostgreSQL, API only\)/;
export const WORKER_READY = /Firstcrack worker running jobs/;

export interface StartedProcess {
  child: ChildProcess;
  /** Everything the process wrote so far, stdout and stderr. */
  output: () => string;
  /** The ready pattern's first group, when it has one (the base URL for `serve`). */
  url?: string;
}

/** Runs a one-shot `firstcrack <args>` to its end, without blocking the test's event loop, with what it printed. */
export async function runCommand(args: string[], env: NodeJS.ProcessEnv): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...CLI, ...args], { cwd: root, env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const [status] = (await once(child, 'close')) as [number | null];
  return { status, stdout, stderr };
}

/**
 * Starts `firstcrack <args>` and resolves once its stdout matches `ready` (rejects if it exits or takes 2 minutes first).
 * `nodeArgs` go to node itself, for flags NODE_OPTIONS does not take (`--cpu-prof`).
 */
export async function startProcess(args: string[], env: NodeJS.ProcessEnv, ready: RegExp, nodeArgs: readonly string[] = []): Promise<StartedProcess> {
  const child = spawn(process.execPath, [...nodeArgs, ...CLI, ...args], { cwd: root, env });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')} did not start:\n${output}`)), 120_000);
    child.stdout!.on('data', () => {
      const m = ready.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(' ')} exited ${code}:\n${output}`));
    });
  });
  return { child, output: () => output, url: match[1] };
}

/** The exit code once the process exits by itself (a one-shot command). */
export async function exitOf(started: StartedProcess): Promise<number | null> {
  const { child } = started;
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const [code] = await once(child, 'exit');
  return code;
}

/** SIGTERM, and the exit code once it exited (it was already, if it had). */
export async function stopProcess(started: StartedProcess): Promise<number | null> {
  const { child } = started;
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  child.kill('SIGTERM');
  const [code] = await once(child, 'exit');
  return code;
}

/** SIGKILL: the process dies mid-whatever it was doing. */
export async function killProcess(started: StartedProcess): Promise<void> {
  const { child } = started;
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGKILL');
  await once(child, 'exit');
}

/**
 * The environment for such processes: the test's own, on `databaseUrl`, listening on a free port. The
 * application role's URL is derived from `databaseUrl` (an inherited DATABASE_APP_URL would name another database).
 */
export function processEnv(databaseUrl: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const { DATABASE_APP_URL: _appUrl, ...inherited } = process.env;
  // One key for every process started with this environment, as a deployment shares one.
  const secretKey = inherited.FIRSTCRACK_SECRET_KEY ?? randomBytes(32).toString('base64');
  return { ...inherited, DATABASE_URL: databaseUrl, PORT: '0', FIRSTCRACK_SECRET_KEY: secretKey, ...extra };
}
