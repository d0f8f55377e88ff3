import { chmodSync, closeSync, copyFileSync, existsSync, ftruncateSync, mkdirSync, openSync, readdirSync, readSync, rmSync, statSync, writeSync } from 'node:fs';
import { copyFile, link, mkdir, readdir } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createServer, request, type Server } from 'node:http';
import { join, resolve } from 'node:path';
import type { PgliteDatabase } from './client.js';

/**
 * The embedded data directory's consistent copy, and the control socket through which `firstcrack backup`
 * asks the process holding the directory for one (src/db/backup.ts has the whole picture).
 */

export const CONTROL_SOCKET = 'control.sock';
const LOCK_FILE = 'firstcrack.lock';
/** Staging copies are made inside the data directory, so blobs can be hard-linked. */
export const STAGING_PREFIX = 'backup-staging-';

export class SnapshotError extends Error {}

const run = promisify(execFile);

// ---------------------------------------------------------------------------------------------------
// Embedded: the consistent copy.

export interface SnapshotResult {
  migrations: string[];
  /** How long every database statement waited for the copy. */
  pauseMs: number;
  blobs: number;
  /** Bytes copied again while statements waited. */
  copiedAtInstantBytes: number;
}

/**
 * Copies the data directory into `into` as it was at one instant. A first pass copies it with `cp` in a child
 * process while the service runs (the in-process PGlite keeps this process's event loop busy under load, so
 * the copy must not depend on it). A catch-up pass, still while the service runs, copies again every file
 * whose inode changed (ctime: any write, and a rename onto its name) since shortly before the first pass
 * began. Then, inside a PGlite transaction (which holds its only connection, so every other statement waits)
 * and with synchronous file calls (so no other line of this process, such as a live-session append, runs in
 * between), a last pass brings up to date every file changed since shortly before the catch-up began, writing
 * only the chunks that differ (a WAL segment being filled differs in its tail), copies files the earlier
 * passes did not see, and removes the copies of files gone since. Statements thus wait for what changed during
 * the catch-up, which is short, not for what changed during the whole first copy. The copy is the state at
 * that instant, as after a `kill -9` then: PGlite replays its WAL when it opens the copy. A checkpoint first
 * keeps that WAL short.
 *
 * Why a file left alone by the last pass is right: it has not changed since the catch-up began (its ctime),
 * and its copy was made after its last change: by the first pass if that change came before the first pass
 * began, by the catch-up otherwise (which copies every file changed since then, and started after the change).
 *
 * `signal` (the asking client went away) stops the copy between passes: `cp` and the catch-up are ended, and
 * the transaction is not begun. Statements never wait on the client: they wait only for the last pass, one
 * synchronous stretch that no client can lengthen or leave held.
 */
export async function snapshotEmbedded(db: PgliteDatabase, dataDir: string, into: string, signal?: AbortSignal): Promise<SnapshotResult> {
  mkdirSync(into, { recursive: true });
  await db.exec('checkpoint');
  const since = clockMargin();
  const entries = dataEntries(dataDir);
  if (entries.length > 0) await run('cp', ['-R', ...entries.map((entry) => join(dataDir, entry)), into], { signal });
  const caughtUpSince = clockMargin();
  signal?.throwIfAborted();
  await catchUp(dataDir, dataEntries(dataDir), into, since, signal);
  signal?.throwIfAborted();
  let pauseMs = 0;
  let copied = 0;
  const migrations = await db.pglite.transaction(async (tx) => {
    const started = performance.now();
    const applied = (await tx.query<{ version: string }>(`select version from schema_migrations order by version`)).rows.map((r) => r.version);
    const present = new Set<string>();
    const chunk = Buffer.allocUnsafe(2 * SYNC_CHUNK_BYTES);
    for (const entry of dataEntries(dataDir)) copied += lastPass(join(dataDir, entry), join(into, entry), caughtUpSince, present, chunk);
    for (const entry of readdirSync(into)) removeGone(join(into, entry), present);
    pauseMs = performance.now() - started;
    return applied;
  });
  const blobs = await linkTree(join(dataDir, 'blobs'), join(into, 'blobs'));
  return { migrations, pauseMs, blobs, copiedAtInstantBytes: copied };
}

/**
 * Now, less a margin over the file system clock's granularity (a kernel tick), in ctime's nanoseconds: a write
 * in the same tick as a pass's read would otherwise leave ctime looking older than the read.
 */
const clockMargin = () => BigInt(Date.now() - 100) * 1_000_000n;

/** What a copy holds: everything but the lock, the socket, the blobs (linked after) and other copies. */
const dataEntries = (dataDir: string) =>
  readdirSync(dataDir).filter((entry) => entry !== LOCK_FILE && entry !== CONTROL_SOCKET && entry !== 'blobs' && !entry.startsWith(STAGING_PREFIX));

/** The in-process postgres's pid file would only confuse the copy's next start. */
const skipped = (source: string) => source.endsWith('postmaster.pid');

/**
 * Copies again, while the service runs, every file changed since `since` (a file gone meanwhile is left to the
 * last pass). On a worker thread with synchronous calls: like the first pass's `cp`, it must not wait for
 * this process's event loop, which PGlite keeps busy under load (file calls queued on it took minutes).
 */
function catchUp(dataDir: string, entries: string[], into: string, since: bigint, signal?: AbortSignal): Promise<void> {
  const worker = new Worker(CATCH_UP_SOURCE, { eval: true, workerData: { dataDir, entries, into, since: since.toString() } });
  const stop = () => void worker.terminate();
  signal?.addEventListener('abort', stop, { once: true });
  return new Promise<void>((ok, fail) => {
    worker.once('error', fail);
    worker.once('exit', (code) => (code === 0 ? ok() : fail(new SnapshotError(`the catch-up copy exited ${code}`))));
  }).finally(() => signal?.removeEventListener('abort', stop));
}

const CATCH_UP_SOURCE = `
const { copyFileSync, mkdirSync, readdirSync, statSync } = require('node:fs');
const { join } = require('node:path');
const { workerData } = require('node:worker_threads');
const since = BigInt(workerData.since);
const gone = (error) => { if (error.code !== 'ENOENT') throw error; };
function walk(source, target) {
  let st;
  try { st = statSync(source, { bigint: true }); } catch (error) { return gone(error); }
  if (st.isDirectory()) {
    mkdirSync(target, { recursive: true });
    let names;
    try { names = readdirSync(source); } catch (error) { return gone(error); }
    for (const name of names) walk(join(source, name), join(target, name));
  } else if (st.isFile() && !source.endsWith('postmaster.pid') && st.ctimeNs >= since) {
    try { copyFileSync(source, target); } catch (error) { gone(error); }
  }
}
for (const entry of workerData.entries) walk(join(workerData.dataDir, entry), join(workerData.into, entry));
`;

/** The last pass compares and writes files in chunks of this size. */
const SYNC_CHUNK_BYTES = 1 << 20;

/** Answers the bytes it wrote. */
function lastPass(source: string, target: string, since: bigint, present: Set<string>, chunk: Buffer): number {
  const st = statSync(source, { bigint: true });
  let copied = 0;
  if (st.isDirectory()) {
    mkdirSync(target, { recursive: true });
    present.add(target);
    for (const name of readdirSync(source)) copied += lastPass(join(source, name), join(target, name), since, present, chunk);
  } else if (st.isFile() && !skipped(source)) {
    present.add(target);
    if (!existsSync(target)) {
      copyFileSync(source, target);
      copied += Number(st.size);
    } else if (st.ctimeNs >= since) {
      copied += syncChanged(source, target, chunk);
    }
  }
  return copied;
}

/** Makes `target` equal to `source`, writing only the chunks that differ; answers the bytes written. */
function syncChanged(source: string, target: string, chunk: Buffer): number {
  const from = openSync(source, 'r');
  const to = openSync(target, 'r+');
  const theirs = chunk.subarray(0, SYNC_CHUNK_BYTES);
  const ours = chunk.subarray(SYNC_CHUNK_BYTES);
  let written = 0;
  try {
    let position = 0;
    for (;;) {
      const n = readSync(from, theirs, 0, SYNC_CHUNK_BYTES, position);
      if (n === 0) break;
      const m = readSync(to, ours, 0, n, position);
      if (m !== n || !theirs.subarray(0, n).equals(ours.subarray(0, n))) {
        writeSync(to, theirs, 0, n, position);
        written += n;
      }
      position += n;
    }
    ftruncateSync(to, position);
  } finally {
    closeSync(from);
    closeSync(to);
  }
  return written;
}

function removeGone(target: string, present: Set<string>): void {
  if (!present.has(target)) return void rmSync(target, { recursive: true, force: true });
  if (statSync(target).isDirectory()) for (const name of readdirSync(target)) removeGone(join(target, name), present);
}

/** Hard-links (or copies, across file systems) every finished file under `from`; answers how many. */
export async function linkTree(from: string, to: string): Promise<number> {
  if (!existsSync(from)) return 0;
  let count = 0;
  await mkdir(to, { recursive: true });
  for (const entry of await readdir(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory()) count += await linkTree(source, target);
    else if (entry.isFile() && !entry.name.endsWith('.partial')) {
      try {
        await link(source, target);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') continue; // replaced meanwhile: the rename left the new file, linked below if listed
        if (code !== 'EXDEV' && code !== 'EPERM') throw error;
        await copyFile(source, target);
      }
      count++;
    }
  }
  return count;
}

// ---------------------------------------------------------------------------------------------------
// The control socket: the running server makes the copy on the CLI's behalf.

/**
 * Listens on `<dataDir>/control.sock` (mode 0600: only the data directory's owner may connect) while this
 * process holds the data directory. One request: POST /snapshot {"into": "<dir inside the data dir>"}.
 */
export async function startControlServer(db: PgliteDatabase, dataDir: string): Promise<{ close(): Promise<void> } | null> {
  const path = join(dataDir, CONTROL_SOCKET);
  // The data directory is ours (locked): a socket file left there is a dead process's.
  rmSync(path, { force: true });
  const server: Server = createServer((req, res) => {
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'POST' || req.url !== '/snapshot') return answer(404, { error: 'unknown request' });
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => {
      let into: string;
      try {
        into = resolve(String(JSON.parse(text).into));
      } catch {
        return answer(400, { error: 'expected {"into": "<directory>"}' });
      }
      // Only a fresh staging directory directly inside the data directory.
      if (resolve(dataDir, into.slice(into.lastIndexOf('/') + 1)) !== into || !into.slice(into.lastIndexOf('/') + 1).startsWith(STAGING_PREFIX) || existsSync(into)) {
        return answer(400, { error: 'into must be a new backup-staging-* directory in the data directory' });
      }
      // The client killed (or gone) before its answer: stop copying, and remove the copy nobody will pack.
      // Nothing else is held for it: statements wait only inside snapshotEmbedded's last pass.
      const gone = new AbortController();
      res.once('close', () => {
        if (!res.writableEnded) gone.abort();
      });
      snapshotEmbedded(db, dataDir, into, gone.signal).then(
        (result) => {
          if (gone.signal.aborted) rmSync(into, { recursive: true, force: true });
          else answer(200, result);
        },
        (error: Error) => {
          rmSync(into, { recursive: true, force: true });
          if (!gone.signal.aborted) answer(500, { error: error.message });
        },
      );
    });
  });
  try {
    await new Promise<void>((ok, fail) => {
      server.once('error', fail);
      server.listen(path, () => ok());
    });
    chmodSync(path, 0o600);
  } catch {
    // A path too long for a Unix socket, or a file system without them: backups then need the server stopped.
    return null;
  }
  server.unref();
  return {
    close: () =>
      new Promise<void>((ok) => {
        server.close(() => ok());
        server.closeAllConnections();
        rmSync(path, { force: true });
      }),
  };
}

/** Asks the server holding `dataDir` for a copy; null when no server listens there. */
export async function snapshotThroughServer(dataDir: string, into: string): Promise<SnapshotResult | null> {
  const path = join(dataDir, CONTROL_SOCKET);
  if (!existsSync(path)) return null;
  return new Promise((ok, fail) => {
    const req = request({ socketPath: path, method: 'POST', path: '/snapshot', headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        const body = JSON.parse(text || '{}');
        if (res.statusCode === 200) ok(body as SnapshotResult);
        else fail(new SnapshotError(`The running server could not copy the data directory: ${body.error ?? res.statusCode}`));
      });
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      // A socket file without a listener: its server is gone.
      if (error.code === 'ECONNREFUSED' || error.code === 'ENOENT') ok(null);
      else fail(error);
    });
    req.end(JSON.stringify({ into }));
  });
}

